package skymodel

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestSkyH5PositionNamesItsDataset: a bad right ascension is blamed on
// skycoord/ra (a NaN there was reported as dec), a bad declination on
// skycoord/dec, each with the component and value. The files are
// good_point.skyh5 with one value replaced by h5py.
func TestSkyH5PositionNamesItsDataset(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	good, err := os.ReadFile("testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dataset, value, field string
		want                        []string
	}{
		{"NaN ra", "ra", "float('nan')", "/Header/skycoord/ra", []string{"component 1", "NaN", "not finite"}},
		{"inf ra", "ra", "float('inf')", "/Header/skycoord/ra", []string{"component 1", "+Inf"}},
		{"NaN dec", "dec", "float('nan')", "/Header/skycoord/dec", []string{"component 1", "NaN", "latitude"}},
		{"dec 100°", "dec", "100.0", "/Header/skycoord/dec", []string{"component 1", "(100°)", "from −90° to 90°"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "sky.skyh5")
			if err := os.WriteFile(p, good, 0o600); err != nil {
				t.Fatal(err)
			}
			script := "import h5py, sys\nwith h5py.File(sys.argv[1], 'r+') as f:\n    d = f['Header/skycoord/" + c.dataset + "']\n    v = d[...]\n    v[1] = " + c.value + "\n    d[...] = v\n"
			if out, err := exec.Command(py, "-c", script, p).CombinedOutput(); err != nil {
				t.Fatalf("h5py: %v\n%s", err, out)
			}
			_, err := ReadSkyH5File(p)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Field != c.field {
				t.Fatalf("error %v: want field %s", err, c.field)
			}
			for _, w := range append(c.want, p) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestSkyH5LinkNotFollowed: a dataset stored as an external or soft link
// (valid HDF5, which h5py follows) is refused as a link not followed,
// naming where it points, not as "dataset missing"; an optional one too
// (it must not read as absent).
func TestSkyH5LinkNotFollowed(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	good, err := os.ReadFile("testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dataset, link string
		want                []string
	}{
		{"external stokes", "Data/stokes", "h5py.ExternalLink('other.h5', '/stokes')", []string{"/Data/stokes", `an external link to "/stokes" in "other.h5"`, "not followed"}},
		{"soft ra", "Header/skycoord/ra", "h5py.SoftLink('/Header/ra_copy')", []string{"/Header/skycoord/ra", `a soft link to "/Header/ra_copy"`, "not followed"}},
		{"optional frame", "Header/skycoord/frame", "h5py.SoftLink('/Header/frame_copy')", []string{"/Header/skycoord/frame", "soft link", "not followed"}},
		{"skycoord group", "Header/skycoord", "h5py.SoftLink('/Header/skycoord_copy')", []string{"/Header/skycoord", `a soft link to "/Header/skycoord_copy"`, "not followed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "sky.skyh5")
			if err := os.WriteFile(p, good, 0o600); err != nil {
				t.Fatal(err)
			}
			// Copy the dataset out (to other.h5 or beside it) and link it
			// back: the file stays a valid sky that h5py reads whole.
			script := `import h5py, sys, os
import numpy as np
d, path = sys.argv[2], sys.argv[1]
with h5py.File(path, 'r+', libver='latest') as f:
    link = ` + c.link + `
    if isinstance(f[d], h5py.Group):
        if isinstance(link, h5py.ExternalLink):
            with h5py.File(os.path.join(os.path.dirname(path), link.filename), 'w') as o:
                f.copy(f[d], o, name=link.path)
            del f[d]
        else:
            f.move(d, link.path)
        f[d] = link
        assert isinstance(f[d], h5py.Group) and 'ra' in f[d]
        sys.exit(0)
    data = f[d][()]
    del f[d]
    if isinstance(link, h5py.ExternalLink):
        with h5py.File(os.path.join(os.path.dirname(path), link.filename), 'w') as o:
            o[link.path] = data
    else:
        f[link.path] = data
    f[d] = link
    assert np.array_equal(f[d][()], data)
`
			if out, err := exec.Command(py, "-c", script, p, c.dataset).CombinedOutput(); err != nil {
				t.Fatalf("h5py: %v\n%s", err, out)
			}
			_, err := ReadSkyH5File(p)
			if err == nil {
				t.Fatal("read")
			}
			for _, w := range append(c.want, p) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "missing") {
				t.Errorf("%v: says missing", err)
			}
		})
	}
}

// TestSkyH5DenseLinksNamed: a valid SkyH5 whose /Header group h5py keeps
// in dense link storage (libver 'latest', more than 8 members), which this
// reader does not implement, is refused as unsupported, naming the group
// and what to do, not called malformed.
func TestSkyH5DenseLinksNamed(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	good, err := os.ReadFile("testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "sky.skyh5")
	if err := os.WriteFile(p, good, 0o600); err != nil {
		t.Fatal(err)
	}
	// The sky copied into a file of h5py's libver 'latest', its /Header
	// made anew there (a new-style group; a copied group keeps its old
	// style) and given 12 more members: past HDF5's 8 a new-style group
	// keeps its links in a fractal heap.
	script := `import h5py, sys, os
src = sys.argv[1] + '.src'
os.rename(sys.argv[1], src)
with h5py.File(src, 'r') as s, h5py.File(sys.argv[1], 'w', libver='latest') as f:
    for k in s:
        if k != 'Header':
            s.copy(s[k], f, name=k)
    h = f.create_group('Header')
    for k in s['Header']:
        s.copy(s['Header'][k], h, name=k)
    for k, v in s['Header'].attrs.items():
        h.attrs[k] = v
    for i in range(12):
        h['extra_%d' % i] = i
with h5py.File(sys.argv[1], 'r') as f:
    assert 'ra' in f['Header/skycoord'] and 'extra_11' in f['Header']
`
	if out, err := exec.Command(py, "-c", script, p).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	_, err = ReadSkyH5File(p)
	if err == nil {
		t.Fatal("read a sky whose /Header is in dense link storage")
	}
	for _, w := range []string{p, "/Header", "dense link storage", "not supported by this reader", "h5py's default settings"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v\nlacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "malformed") {
		t.Errorf("%v: calls a valid file malformed", err)
	}
}
