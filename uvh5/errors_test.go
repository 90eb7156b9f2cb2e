package uvh5

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/h5write"
)

func TestValidateNamesField(t *testing.T) {
	cases := []struct {
		field  string
		mutate func(h *Header)
	}{
		{"TelescopeName", func(h *Header) { h.TelescopeName = "" }},
		{"Instrument", func(h *Header) { h.Instrument = "" }},
		{"TelescopeFrame", func(h *Header) { h.TelescopeFrame = "galactic" }},
		{"Latitude", func(h *Header) { h.Latitude = 91 }},
		{"Latitude/Longitude/Altitude", func(h *Header) { h.Altitude = math.NaN() }},
		{"AntennaNames", func(h *Header) { h.AntennaNames = h.AntennaNames[1:] }},
		{"AntennaPositions", func(h *Header) { h.AntennaPositions[2][1] = math.Inf(1) }},
		{"AntennaNumbers", func(h *Header) { h.AntennaNumbers[1] = h.AntennaNumbers[0] }},
		{"AntennaNumbers", func(h *Header) { h.AntennaNumbers[1] = 1 << 31 }},
		{"AntennaNames", func(h *Header) { h.AntennaNames[1] = h.AntennaNames[0] }},
		{"UVW", func(h *Header) { h.UVW[3][2] = 2e8 }},
		{"Ant2", func(h *Header) { h.Ant2 = h.Ant2[:3] }},
		{"UVW", func(h *Header) { h.UVW = append(h.UVW, [3]float64{}) }},
		{"LSTs", func(h *Header) { h.LSTs = nil }},
		{"Times", func(h *Header) { h.Times[4] = math.NaN() }},
		{"Ant1/Ant2", func(h *Header) { h.Ant1[7] = 999 }},
		{"IntegrationTime", func(h *Header) { h.IntegrationTime[0] = 0 }},
		{"PhaseCenterAppRA", func(h *Header) { h.PhaseCenterAppRA = []float64{1} }},
		{"Freqs", func(h *Header) { h.Freqs, h.ChannelWidth = nil, nil }},
		{"ChannelWidth", func(h *Header) { h.ChannelWidth = h.ChannelWidth[:1] }},
		{"FlexSpwIDArray", func(h *Header) { h.FlexSpwIDArray = []int64{0, 0, 7} }},
		{"Pols", func(h *Header) { h.Pols = []int64{-5, -5} }},
		{"Pols", func(h *Header) { h.Pols = []int64{9} }},
		{"VisUnits", func(h *Header) { h.VisUnits = "mJy" }},
		{"XOrientation", func(h *Header) { h.XOrientation = "up" }},
		// Strings h5py and pyuvdata cannot decode as UTF-8.
		{"AntennaNames", func(h *Header) { h.AntennaNames[2] = "H\xe9" }},
		{"TelescopeName", func(h *Header) { h.TelescopeName = "\xffHERA" }},
		{"History", func(h *Header) { h.History = "made\xc3" }},
		{"PhaseCenterName", func(h *Header) { h.PhaseCenterName = "z\x80" }},
	}
	for _, c := range cases {
		h := testHeader(rand.New(rand.NewPCG(1, 1)), 4, 2, 3)
		if err := h.Validate(); err != nil {
			t.Fatalf("base header invalid: %v", err)
		}
		c.mutate(h)
		err := h.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: got %v", c.field, err)
		}
		// Create refuses it too, naming the file, and leaves nothing behind.
		dir := t.TempDir()
		path := filepath.Join(dir, "x.uvh5")
		if _, err := Create(path, h); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: Create error %v", c.field, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: Create left %d files", c.field, len(ents))
		}
	}
}

func TestWriterRefusesBadBlocksAndGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	h := testHeader(rng, 3, 2, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "gap.uvh5")
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	row := h.Nfreqs() * h.Npols()
	vis := make([]complex128, 2*row)
	bad := []struct {
		name string
		err  error
	}{
		{"partial row", w.WriteBlock(0, vis[:row+1], nil, nil)},
		{"past the end", w.WriteBlock(h.Nblts()-1, vis, nil, nil)},
		{"negative", w.WriteBlock(-1, vis, nil, nil)},
		{"flags length", w.WriteBlock(0, vis, make([]bool, 3), nil)},
		{"nsamples length", w.WriteBlock(0, vis, nil, make([]float32, 5))},
	}
	for _, b := range bad {
		if b.err == nil {
			t.Errorf("%s accepted", b.name)
		}
	}
	if err := w.WriteBlock(0, vis, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(4, vis, nil, nil); err != nil {
		t.Fatal(err)
	}
	err = w.Close()
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "[2, 4)") {
		t.Fatalf("Close with gap: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("incomplete file left %d entries", len(ents))
	}
	if err := w.WriteBlock(0, vis, nil, nil); !errors.Is(err, ErrFinished) {
		t.Fatalf("write after Close: %v", err)
	}
}

func TestAbortRemovesTempAndKeepsOldFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	h := testHeader(rng, 2, 1, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "keep.uvh5")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("second Abort: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("old file replaced by %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d entries after Abort", len(ents))
	}
	// WriteFile replaces it atomically.
	vis, _, _ := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	if err := WriteFile(path, h, vis); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || len(f.Vis) != len(vis) || f.Vis[2] != vis[2] || f.Nsamples[0] != 1 || f.Flags[0] {
		t.Fatalf("WriteFile result: %v", err)
	}
	if err := WriteFile(path, h, vis[1:]); err == nil {
		t.Fatal("WriteFile accepted a short vis")
	}
}

// TestReadBadFiles: garbage, truncations and wrong types give errors that
// name the file (and the field where one is at fault), never panics.
func TestReadBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.uvh5")
	rng := rand.New(rand.NewPCG(11, 12))
	h := testHeader(rng, 3, 2, 2)
	vis, _, _ := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	if err := WriteFile(good, h, vis); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		path, field string
	}{
		{write("empty.uvh5", nil), "HDF5"},
		{write("garbage.uvh5", bytes.Repeat([]byte("not hdf5 "), 100)), "HDF5"},
		{write("truncated-sb.uvh5", data[:40]), "HDF5"},
		{write("truncated-half.uvh5", data[:len(data)/2]), ""},
		{write("truncated-end.uvh5", data[:len(data)-1]), ""},
		{wrongType(t, dir), "/Header/Nblts"},
		{filepath.Join(dir, "missing.uvh5"), ""},
	}
	for _, c := range cases {
		f, err := ReadFile(c.path)
		if err == nil || f != nil {
			t.Errorf("%s: no error", c.path)
			continue
		}
		if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %q does not name the file and %q", c.path, err, c.field)
		}
	}
}

// wrongType writes an otherwise plausible file whose Nblts is a string.
func wrongType(t *testing.T, dir string) string {
	p := filepath.Join(dir, "wrongtype.uvh5")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, _ := h5write.Create(fh)
	g, _ := f.Root().Group("Header")
	for _, n := range []string{"Nants_data", "Nants_telescope", "Nbls"} {
		g.Scalar(n, int64(3))
	}
	g.String("Nblts", "84")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadOldShapes makes a pyuvdata-2-style file with h5py (data with the
// spectral-window axis, freq_array (1, Nfreqs), scalar channel_width) from
// a reference and reads it; its phase center catalog is the JSON-string
// form of pyuvdata 2.2-2.3.
func TestReadOldShapes(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	py := needPython(t)
	old := filepath.Join(t.TempDir(), "old.uvh5")
	script := `
import h5py, numpy as np, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    for name in ("visdata", "flags", "nsamples"):
        a = f["Data/" + name][()]
        del f["Data/" + name]
        f["Data/" + name] = a[:, None, :, :]
    fr = f["Header/freq_array"][()]
    cw = f["Header/channel_width"][()]
    del f["Header/freq_array"], f["Header/channel_width"]
    f["Header/freq_array"] = fr[None, :]
    f["Header/channel_width"] = cw[0]
    del f["Header/phase_center_catalog"]
    g = f["Header"].create_group("phase_center_catalog")
    g["drift"] = np.bytes_('{"cat_id": 0, "cat_type": "unprojected", "cat_lon": 0.0, "cat_lat": 1.5707963267948966, "cat_frame": "altaz"}')
`
	if out, err := exec.Command(py, "-c", script, referenceFiles(t)[0], old).CombinedOutput(); err != nil {
		t.Fatalf("making old-shape file: %v\n%s", err, out)
	}
	ref, err := ReadFile(referenceFiles(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	if !f.OldShapes || len(f.Vis) != len(ref.Vis) || f.Vis[17] != ref.Vis[17] || len(f.Header.ChannelWidth) != 3 ||
		f.Header.ChannelWidth[2] != ref.Header.ChannelWidth[2] || f.Header.Freqs[1] != ref.Header.Freqs[1] {
		t.Fatalf("old shapes read as %+v", f.Header)
	}
	if len(f.Catalog) != 1 || f.Catalog[0].Name != "drift" || f.Catalog[0].Type != "unprojected" || f.Header.PhaseCenterName != "drift" {
		t.Fatalf("JSON catalog read as %+v", f.Catalog)
	}
}

// TestReadHugeDeclaredSizes: a small file (made with h5py from a reference)
// declaring Nblts = 10^9 with unwritten, lazily allocated datasets of that
// length must fail without allocating anything near the declared sizes.
func TestReadHugeDeclaredSizes(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	py := needPython(t)
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.uvh5")
	script := `
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
N = 10**9
with h5py.File(sys.argv[2], "r+") as f:
    h = f["Header"]
    del h["Nblts"]
    h["Nblts"] = N
    for name in list(h):
        d = h[name]
        if isinstance(d, h5py.Dataset) and d.shape is not None and len(d.shape) >= 1 and d.shape[0] == 84:
            shape, dtype = (N,) + d.shape[1:], d.dtype
            del h[name]
            h.create_dataset(name, shape=shape, dtype=dtype, chunks=(1024,) + shape[1:])
    for name in ("visdata", "flags", "nsamples"):
        d = f["Data/" + name]
        dtype = d.dtype
        del f["Data/" + name]
        f.create_dataset("Data/" + name, shape=(N, 3, 4), dtype=dtype, chunks=(64, 3, 4))
`
	if out, err := exec.Command(py, "-c", script, referenceFiles(t)[0], huge).CombinedOutput(); err != nil {
		t.Fatalf("making file: %v\n%s", err, out)
	}
	st, err := os.Stat(huge)
	if err != nil || st.Size() > 1<<20 {
		t.Fatalf("test file %v bytes: %v", st.Size(), err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = ReadFile(huge)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), huge) || !strings.Contains(err.Error(), "/Header/ant_1_array") {
		t.Fatalf("error %v", err)
	}
	t.Logf("%v (allocated %d bytes)", err, after.TotalAlloc-before.TotalAlloc)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("allocated %d bytes for a %d-byte file", got, st.Size())
	}
}

// TestReadWrongTypes replaces one dataset of a reference with a wrongly
// typed or shaped one (with h5py) and expects an error naming it.
func TestReadWrongTypes(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	py := needPython(t)
	cases := []struct{ field, expr string }{
		{"/Data/visdata", "np.zeros((84, 3, 4))"},
		{"/Data/flags", "np.zeros((84, 3, 4), dtype='f4')"},
		{"/Data/nsamples", "np.ones((84, 3, 2), dtype='f4')"},
		{"/Header/antenna_names", "np.arange(7)"},
		{"/Header/latitude", "np.bytes_('south')"},
		{"/Header/freq_array", "np.array([1e8, np.nan, 1.5e8])"},
		{"/Header/uvw_array", "np.zeros((84, 2))"},
		{"/Header/telescope_name", "np.zeros(3)"},
	}
	// One Python run makes every file: arguments are reference, then
	// (path, field, expression) triples.
	script := `
import h5py, numpy as np, shutil, sys
args = sys.argv[2:]
for k in range(0, len(args), 3):
    path, field, expr = args[k:k + 3]
    shutil.copy(sys.argv[1], path)
    with h5py.File(path, "r+") as f:
        del f[field]
        f[field] = eval(expr)
`
	dir := t.TempDir()
	args := []string{"-c", script, referenceFiles(t)[0]}
	for i, c := range cases {
		args = append(args, filepath.Join(dir, itoa(i)+".uvh5"), c.field, c.expr)
	}
	if out, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("making files: %v\n%s", err, out)
	}
	for i, c := range cases {
		p := filepath.Join(dir, itoa(i)+".uvh5")
		_, err := ReadFile(p)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.File != p {
			t.Errorf("%s = %s: error %v", c.field, c.expr, err)
		}
	}
}
