package skymodel

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/h5read"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// pySkyH5 prints, for every dataset of each SkyH5 file named, its shape and values
// as h5py reads them — numbers as float64 (bit patterns as hex, so NaN
// survives JSON), strings decoded — and its "unit" attribute if any.
const pySkyH5 = `
import h5py, json, sys, numpy as np
res = {}
def visit(name, o):
    if not isinstance(o, h5py.Dataset):
        return
    e = {"shape": list(o.shape)}
    a = np.asarray(o[()]).reshape(-1)
    if o.dtype.kind in "iuf":
        e["bits"] = [np.float64(x).tobytes().hex() for x in a]
    else:
        e["strings"] = [(x.decode("utf-8") if isinstance(x, bytes) else x).rstrip("\x00") for x in a]
    if "unit" in o.attrs:
        u = o.attrs["unit"]
        e["unit"] = u.decode("utf-8") if isinstance(u, bytes) else str(u)
    out["/" + name] = e
for path in sys.argv[1:]:
    out = res[path] = {}
    with h5py.File(path, "r") as f:
        f.visititems(visit)
json.dump(res, sys.stdout)
`

// TestSkyH5DatasetsMatchH5py reads every dataset of the committed SkyH5
// files through the reader's own accessors (floats, strs, attrString) and
// compares shape, every value bit for bit and the unit attribute with
// h5py's reading of the same file.
func TestSkyH5DatasetsMatchH5py(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	files, _ := filepath.Glob("testdata/skyh5/*.skyh5")
	refs, _ := filepath.Glob(filepath.Join(refDir, "*", "sky.skyh5"))
	if len(files) < 10 || len(refs) < 2 {
		t.Fatalf("found %d SkyH5 test files and %d references", len(files), len(refs))
	}
	var paths []string
	for _, path := range append(files, refs...) {
		switch filepath.Base(path) { // damaged on purpose: h5py refuses them
		case "bad_truncated.skyh5", "heap_lengthsize_zero.skyh5", "heap_reserved_altered.skyh5":
			continue
		}
		paths = append(paths, path)
	}
	out, err := exec.Command(py, append([]string{"-c", pySkyH5}, paths...)...).Output()
	if err != nil {
		t.Fatalf("h5py: %v", err)
	}
	var want map[string]map[string]h5pyDataset
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range paths {
		checked += compareSkyH5(t, path, want[path])
	}
	if checked < 150 {
		t.Errorf("only %d datasets compared", checked)
	}
}

// h5pyDataset is one dataset as pySkyH5 prints it.
type h5pyDataset struct {
	Shape   []int
	Bits    []string
	Strings []string
	Unit    *string
}

// compareSkyH5 compares one file's datasets with h5py's and returns how
// many.
func compareSkyH5(t *testing.T, path string, want map[string]h5pyDataset) int {
	t.Helper()
	h := openH5(t, path)
	if len(h.sets) != len(want) {
		t.Errorf("%s: %d datasets, h5py %d", path, len(h.sets), len(want))
	}
	for p, w := range want {
		if shape, err := h.shape(p); err != nil || !slices.Equal(shape, w.Shape) && !(len(shape) == 0 && len(w.Shape) == 0) {
			t.Errorf("%s %s: shape %v (%v), h5py %v", path, p, shape, err, w.Shape)
		}
		if w.Bits != nil {
			v, err := h.floats(p, len(w.Bits))
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			for i, x := range v {
				if hexBits(x) != w.Bits[i] {
					t.Errorf("%s %s[%d] = %v, h5py %s", path, p, i, x, w.Bits[i])
				}
			}
		} else {
			s, err := h.strs(p)
			if err != nil || !slices.Equal(s, w.Strings) {
				t.Errorf("%s %s = %q (%v), h5py %q", path, p, s, err, w.Strings)
			}
		}
		u, ok, err := h.attrString(p, "unit")
		if err != nil || ok != (w.Unit != nil) || ok && u != *w.Unit {
			t.Errorf("%s %s unit = %q, %v, %v; h5py %v", path, p, u, ok, err, w.Unit)
		}
	}
	return len(want)
}

// hexBits is the little-endian hex of x's bits, as numpy's tobytes().hex().
func hexBits(x float64) string {
	return hex.EncodeToString(binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)))
}

// openH5 indexes the HDF5 file at path.
func openH5(t *testing.T, path string) *h5file {
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
	f, err := h5read.Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	h, err := indexH5(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSkyH5DamagedStructuresNamed: the two files FuzzReadSkyH5 found (see
// TestSkyH5HeapGuardFuzzFinds) are good_point.skyh5 with the superblock's
// size of lengths (byte 14) set to 0, and with the root group's local heap
// (at byte 680) given version 0x20 and a huge data segment size. Each is
// refused naming that structure and value.
func TestSkyH5DamagedStructuresNamed(t *testing.T) {
	for name, msg := range map[string]string{
		"heap_lengthsize_zero.skyh5":  "superblock: unsupported sizes of offsets 8 and lengths 0",
		"heap_reserved_altered.skyh5": "local heap at 680: version 32",
	} {
		_, err := ReadSkyH5File(filepath.Join("testdata", "skyh5", name))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one containing %q", name, err, msg)
		}
	}
}
