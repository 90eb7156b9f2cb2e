package h5read

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

func open(t testing.TB, path string) *File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var references = []string{
	"pyuvsim-stokesI-gaussian/stokesI-gaussian.uvh5",
	"pyuvsim-fullstokes-airy/fullstokes-airy.uvh5",
}

// refPath locates a reference file (testdata/, or GOMATVIS_SHARED).
func refPath(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(sharedtest.Dir(t), "reference", name)
}

// pyHashes lists every dataset h5py sees with its shape and the SHA-256 of
// its C-ordered bytes as stored.
const pyHashes = `
import h5py, hashlib, json, sys, numpy as np
out = {}
def visit(name, o):
    if isinstance(o, h5py.Dataset):
        if o.shape is None:
            out["/" + name] = {"shape": None, "sha": ""}
            return
        a = np.ascontiguousarray(o[()])
        out["/" + name] = {"shape": list(o.shape), "sha": hashlib.sha256(a.tobytes()).hexdigest()}
with h5py.File(sys.argv[1], "r") as f:
    f.visititems(visit)
json.dump(out, sys.stdout)
`

// listAll lists every dataset under path, by our reader.
func listAll(t *testing.T, f *File, path string, out map[string]*Dataset) {
	t.Helper()
	names, err := f.Members(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p := joinPath(path, n)
		if _, err := f.Members(p); err == nil {
			listAll(t, f, p, out)
			continue
		}
		d, err := f.Dataset(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = d
	}
}

// TestReferencesMatchH5py reads every dataset of pyuvsim's reference files
// (superblock 0, symbol-table groups, contiguous and chunked storage, LZF,
// null dataspaces, enums) and checks the bytes against h5py's.
func TestReferencesMatchH5py(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	for _, ref := range references {
		path := refPath(t, ref)
		out, err := exec.Command(py, "-c", pyHashes, path).Output()
		if err != nil {
			t.Fatalf("h5py on %s: %v", path, err)
		}
		var want map[string]struct {
			Shape []int
			Sha   string
		}
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]*Dataset{}
		listAll(t, open(t, path), "/", got)
		if len(got) != len(want) || len(got) < 50 {
			t.Errorf("%s: %d datasets, h5py %d", ref, len(got), len(want))
		}
		for p, w := range want {
			d := got[p]
			if d == nil {
				t.Errorf("%s: %s missing", ref, p)
				continue
			}
			if w.Shape == nil {
				if !d.Null {
					t.Errorf("%s: %s not null", ref, p)
				}
				continue
			}
			raw, err := d.Raw()
			if err != nil {
				t.Errorf("%s: %v", ref, err)
				continue
			}
			sum := sha256.Sum256(raw)
			if hex.EncodeToString(sum[:]) != w.Sha || !slices.Equal(d.Shape, w.Shape) {
				t.Errorf("%s: %s differs from h5py (shape %v vs %v)", ref, p, d.Shape, w.Shape)
			}
		}
	}
}

func TestLZF(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		n    int
		want string
		ok   bool
	}{
		{"literal", []byte{2, 'a', 'b', 'c'}, 3, "abc", true},
		// "ab" then a back reference of length 2+2=4 at distance 2.
		{"backref", []byte{1, 'a', 'b', 2 << 5, 1}, 6, "ababab", true},
		// length 7+1+2 = 10 at distance 1.
		{"long backref", []byte{0, 'x', 7 << 5, 1, 0}, 11, "xxxxxxxxxxx", true},
		{"distance too far", []byte{0, 'x', 1 << 5, 5}, 4, "", false},
		{"truncated literal", []byte{5, 'a'}, 6, "", false},
		{"short output", []byte{0, 'a'}, 2, "", false},
		{"overlong output", []byte{2, 'a', 'b', 'c'}, 2, "", false},
	}
	for _, c := range cases {
		got, err := lzfDecompress(c.in, c.n)
		if (err == nil) != c.ok || (c.ok && string(got) != c.want) {
			t.Errorf("%s: %q, %v", c.name, got, err)
		}
	}
}

func TestUnshuffle(t *testing.T) {
	got := unshuffle([]byte{1, 3, 5, 2, 4, 6, 9}, 2)
	if !bytes.Equal(got, []byte{1, 2, 3, 4, 5, 6, 9}) {
		t.Fatalf("%v", got)
	}
}

// TestCorruptReferenceNeverPanics flips every 29th byte of a reference file's
// metadata region in turn and reads all its datasets: errors are fine,
// panics are not.
func TestCorruptReferenceNeverPanics(t *testing.T) {
	orig, err := os.ReadFile(refPath(t, references[0]))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(orig); i += 29 {
		b := bytes.Clone(orig)
		b[i] ^= 0xA5
		readAll(b)
	}
	for _, n := range []int{0, 7, 47, 100, 1000, 5000, len(orig) / 2, len(orig) - 1} {
		readAll(orig[:n])
	}
}

func readAll(b []byte) {
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return
	}
	var visit func(string, int)
	visit = func(p string, depth int) {
		names, err := f.Members(p)
		if err != nil || depth > 4 {
			return
		}
		for _, n := range names {
			q := joinPath(p, n)
			if d, err := f.Dataset(q); err == nil {
				d.Raw()
				d.Strings()
			} else if !strings.Contains(err.Error(), "not a dataset") {
				continue
			}
			visit(q, depth+1)
		}
	}
	visit("/", 0)
}

// TestH5pyChunkedFilters has h5py write chunked datasets whose edges cut
// through chunks, with deflate+shuffle, LZF and no filter, in several
// types and ranks, and compares every byte we read with h5py's.
func TestH5pyChunkedFilters(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	path := filepath.Join(t.TempDir(), "chunks.h5")
	script := `
import h5py, numpy as np, sys
rng = np.random.default_rng(1)
with h5py.File(sys.argv[1], "w", libver="earliest") as f:
    a = rng.normal(size=(7, 5, 3)) + 1j * rng.normal(size=(7, 5, 3))
    f.create_dataset("c16_gzip_shuffle", data=a, chunks=(3, 2, 3), compression="gzip", shuffle=True)
    f.create_dataset("c16_lzf", data=a, chunks=(4, 5, 2), compression="lzf")
    f.create_dataset("c16_plain", data=a, chunks=(2, 2, 2))
    f.create_dataset("i2_lzf", data=rng.integers(-300, 300, size=(11, 13)).astype("<i2"), chunks=(4, 4), compression="lzf")
    f.create_dataset("bool_lzf", data=rng.random(size=(9, 4, 4)) < 0.3, chunks=(2, 4, 4), compression="lzf")
    f.create_dataset("f4_1d", data=rng.normal(size=1000).astype("<f4"), chunks=(64,), compression="gzip")
    f.create_dataset("zeros_lzf", data=np.zeros((100, 3, 4), "<f4"), chunks=(100, 3, 4), compression="lzf")
    g = f.create_group("g")
    for i in range(40):
        g["s%02d" % i] = np.bytes_("name%d" % i)
`
	if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	out, err := exec.Command(py, "-c", pyHashes, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Shape []int
		Sha   string
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	got := map[string]*Dataset{}
	listAll(t, open(t, path), "/", got)
	if len(got) != len(want) || len(got) != 47 {
		t.Fatalf("%d datasets, h5py %d", len(got), len(want))
	}
	for p, w := range want {
		raw, err := got[p].Raw()
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		sum := sha256.Sum256(raw)
		if hex.EncodeToString(sum[:]) != w.Sha {
			t.Errorf("%s differs from h5py", p)
		}
	}
}
