package casatable

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// dumpScript prints every column of a table as JSON, in casacore's
// element order (first axis fastest), complex values as [re, im].
const dumpScript = `
import sys, json, numpy as np, casacore.tables as pt
t = pt.table(sys.argv[1], ack=False)
out = {'nrows': t.nrows()}
for c in t.colnames():
    vals = []
    for r in range(t.nrows()):
        v = t.getcell(c, r)
        # python-casacore gives a string array of more than one axis as a
        # dict of its values in casacore's order and its (reversed) shape.
        v = np.asarray(v['array'] if isinstance(v, dict) else v)
        # python-casacore reverses the axes (C order, last casacore axis
        # first), so a C-order ravel is casacore's element order.
        for x in v.ravel() if v.ndim else [v.item()]:
            x = x.item() if hasattr(x, 'item') else x
            vals.append([x.real, x.imag] if isinstance(x, complex) else x)
    out[c] = vals
print(json.dumps(out))
`

// randomColumn returns a column of random type and shape and its values
// for nrow rows.
func randomColumn(rng *rand.Rand, i, nrow int, strings bool) (Column, any) {
	types := []DataType{Bool, Int, Float, Double, Complex}
	if strings {
		types = append(types, String)
	}
	c := Column{Name: fmt.Sprintf("C%d", i), Type: types[rng.IntN(len(types))]}
	if rng.IntN(2) == 1 {
		for range 1 + rng.IntN(3) {
			c.Shape = append(c.Shape, 1+rng.IntN(5))
		}
	}
	n := nrow * c.nelem()
	switch c.Type {
	case Bool:
		v := make([]bool, n)
		for j := range v {
			v[j] = rng.IntN(2) == 1
		}
		return c, v
	case Int:
		v := make([]int32, n)
		for j := range v {
			v[j] = int32(rng.Uint32())
		}
		return c, v
	case Float:
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(rng.NormFloat64() * 1e3)
		}
		return c, v
	case Double:
		v := make([]float64, n)
		for j := range v {
			v[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		}
		return c, v
	case Complex:
		v := make([]complex64, n)
		for j := range v {
			v[j] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		}
		return c, v
	default:
		v := make([]string, n)
		for j := range v {
			b := make([]byte, rng.IntN(12))
			for k := range b {
				b[k] = byte('a' + rng.IntN(26))
			}
			v[j] = string(b)
		}
		return c, v
	}
}

// put writes v[lo:hi] to column i.
func put(w *Writer, i int, v any, lo, hi int) error {
	switch v := v.(type) {
	case []bool:
		return w.PutBools(i, v[lo:hi])
	case []int32:
		return w.PutInts(i, v[lo:hi])
	case []float32:
		return w.PutFloats(i, v[lo:hi])
	case []float64:
		return w.PutDoubles(i, v[lo:hi])
	case []complex64:
		return w.PutComplex(i, v[lo:hi])
	default:
		return w.PutStrings(i, v.([]string)[lo:hi])
	}
}

// asJSON is what dumpScript prints for v.
func asJSON(v any) []any {
	var out []any
	switch v := v.(type) {
	case []bool:
		for _, x := range v {
			out = append(out, x)
		}
	case []int32:
		for _, x := range v {
			out = append(out, float64(x))
		}
	case []float32:
		for _, x := range v {
			out = append(out, float64(x))
		}
	case []float64:
		for _, x := range v {
			out = append(out, x)
		}
	case []complex64:
		for _, x := range v {
			out = append(out, []any{float64(real(x)), float64(imag(x))})
		}
	case []string:
		for _, x := range v {
			out = append(out, x)
		}
	}
	return out
}

// TestRandomRoundTrip writes tables of random columns (every type, scalar
// and array, Bools packed across calls and cells split between calls),
// in random-sized pieces, and has python-casacore read every value back.
// Odd trials have no String columns, so their values go straight into
// table.f0; even ones go through the spill files. About half the array
// columns are Tiled (their own TiledColumnStMan).
func TestRandomRoundTrip(t *testing.T) {
	needCasacore(t)
	rng := sharedtest.RNG(t, 1)
	for trial := range 8 {
		nrow := rng.IntN(40)
		ncol := 1 + rng.IntN(8)
		var desc Desc
		var vals []any
		for i := range ncol {
			c, v := randomColumn(rng, i, nrow, trial%2 == 0)
			// Half the array columns past the first go to the tiled
			// manager (one column stays in StManAipsIO, as Create needs).
			c.Tiled = i > 0 && c.Shape != nil && c.Type != String && rng.IntN(2) == 1
			desc.Columns = append(desc.Columns, c)
			vals = append(vals, v)
		}
		dir := filepath.Join(t.TempDir(), "r.tab")
		w, err := Create(dir, desc, nrow)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			n := len(asJSON(v))
			for lo := 0; lo < n; {
				hi := min(n, lo+1+rng.IntN(9))
				if err := put(w, i, v, lo, hi); err != nil {
					t.Fatal(err)
				}
				lo = hi
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(python, "-c", dumpScript, dir).Output()
		if err != nil {
			t.Fatalf("trial %d: python-casacore: %v", trial, err)
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if got["nrows"] != float64(nrow) {
			t.Fatalf("trial %d: %v rows, wrote %d", trial, got["nrows"], nrow)
		}
		for i, c := range desc.Columns {
			want, _ := json.Marshal(asJSON(vals[i]))
			have, _ := json.Marshal(got[c.Name])
			if nrow > 0 && string(want) != string(have) {
				t.Errorf("trial %d: column %s (type %d, shape %v): read %.200s…, wrote %.200s…", trial, c.Name, c.Type, c.Shape, have, want)
			}
		}
	}
}
