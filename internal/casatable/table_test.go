package casatable

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// python is the interpreter with python-casacore (Debian's python3-casacore
// installs into the system Python).
const python = "/usr/bin/python3"

// needCasacore skips a test when python-casacore is absent; scripts/test.sh
// installs it.
func needCasacore(t *testing.T) {
	t.Helper()
	sharedtest.Python(t, "casacore.tables", "python3-casacore")
}

// sampleDesc has a column of every type, scalar and array, with keywords
// like an MS's.
func sampleDesc() Desc {
	units := Record{}.Set("QuantumUnits", []string{"m", "m", "m"}).
		Set("MEASINFO", Record{}.Set("type", "uvw").Set("Ref", "ITRF"))
	return Desc{
		Columns: []Column{
			{Name: "B", Comment: "bools", Type: Bool},
			{Name: "I", Type: Int},
			{Name: "F", Type: Float},
			{Name: "D", Type: Double, Keywords: Record{}.Set("QuantumUnits", []string{"s"})},
			{Name: "C", Type: Complex},
			{Name: "S", Type: String},
			{Name: "UVW", Type: Double, Shape: []int{3}, Keywords: units},
			{Name: "DATA", Type: Complex, Shape: []int{2, 3}},
			{Name: "FLAG", Type: Bool, Shape: []int{2, 3}},
			{Name: "W", Type: Float, Shape: []int{2}},
			{Name: "N", Type: Int, Shape: []int{2, 2}},
			{Name: "SA", Type: String, Shape: []int{2}},
		},
		Keywords: Record{}.Set("VERSION", 2.0).Set("COUNT", int32(7)).Set("NAME", "x"),
		Info:     Info{Type: "Test", Readme: "a test table\n"},
	}
}

// writeSample writes nrow rows whose values are simple functions of the
// row, so that the reader's script can recompute them.
func writeSample(t *testing.T, dir string, nrow int) {
	t.Helper()
	w, err := Create(dir, sampleDesc(), nrow)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < nrow; r++ {
		f := float64(r)
		check := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		check(w.PutBools(0, []bool{r%2 == 1}))
		check(w.PutInts(1, []int32{int32(-r)}))
		check(w.PutFloats(2, []float32{float32(f) / 4}))
		check(w.PutDoubles(3, []float64{f * 1e9}))
		check(w.PutComplex(4, []complex64{complex(float32(f), -float32(f))}))
		check(w.PutStrings(5, []string{strings.Repeat("s", r)}))
		check(w.PutDoubles(6, []float64{f, f + 0.5, -f}))
		check(w.PutComplex(7, []complex64{complex(float32(f), 0), 1, 2, 3, 4, complex(0, float32(f))}))
		check(w.PutBools(8, []bool{true, false, false, false, false, r%3 == 0}))
		check(w.PutFloats(9, []float32{1, float32(f)}))
		check(w.PutInts(10, []int32{0, 1, 2, int32(r)}))
		check(w.PutStrings(11, []string{"a", ""}))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCasacoreReads: python-casacore reads every column, keyword and the
// info of a table written here, with the values written.
func TestCasacoreReads(t *testing.T) {
	needCasacore(t)
	dir := filepath.Join(t.TempDir(), "t.tab")
	writeSample(t, dir, 5)
	script := `
import sys, numpy as np, casacore.tables as pt
t = pt.table(sys.argv[1], ack=False)
n = t.nrows(); assert n == 5, n
kw = t.getkeywords()
assert kw == {'VERSION': 2.0, 'COUNT': 7, 'NAME': 'x'}, kw
assert t.info()['type'] == 'Test', t.info()
ck = t.getcolkeywords('UVW')
assert list(ck['QuantumUnits']) == ['m','m','m'] and ck['MEASINFO'] == {'type':'uvw','Ref':'ITRF'}, ck
for r in range(n):
    f = float(r)
    assert t.getcell('B', r) == (r % 2 == 1)
    assert t.getcell('I', r) == -r
    assert t.getcell('F', r) == np.float32(f/4)
    assert t.getcell('D', r) == f*1e9
    assert t.getcell('C', r) == complex(f, -f)
    assert t.getcell('S', r) == 's'*r
    assert (t.getcell('UVW', r) == [f, f+0.5, -f]).all()
    d = t.getcell('DATA', r)  # python order: [3, 2]
    assert d.shape == (3, 2), d.shape
    assert d[0,0] == f and d[0,1] == 1 and d[1,0] == 2 and d[2,1] == complex(0, f), d
    fl = t.getcell('FLAG', r)
    assert fl[0,0] and not fl[0,1] and fl[2,1] == (r % 3 == 0), fl
    assert (t.getcell('W', r) == [1, f]).all()
    assert (t.getcell('N', r) == [[0,1],[2,r]]).all()
    assert list(t.getcell('SA', r)) == ['a', '']
print('ok')
`
	out, err := exec.Command(python, "-c", script, dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("python-casacore: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".spill0")); !os.IsNotExist(err) {
		t.Errorf("a spill file is left: %v", err)
	}
}
