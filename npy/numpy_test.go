package npy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// numpyRead is a Python program that loads each .npy file named on its
// command line with numpy and prints, as JSON, its descr, shape, Fortran
// order, data offset and values (floats as float.hex, exact; int64 as
// decimal strings).
const numpyRead = `
import json, sys
import numpy as np
out = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        major, minor = np.lib.format.read_magic(f)
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        offset = f.tell()
    a = np.load(path, allow_pickle=False)
    flat = a.ravel()
    if a.dtype.kind == "c":
        re = [float(x).hex() for x in flat.real]
        im = [float(x).hex() for x in flat.imag]
    elif a.dtype.kind == "f":
        re, im = [float(x).hex() for x in flat], None
    else:
        re, im = [str(int(x)) for x in flat], None
    out.append({"version": [major, minor], "descr": a.dtype.str, "shape": list(a.shape),
                "fortran": fortran, "offset": offset, "re": re, "im": im})
print(json.dumps(out))
`

// numpyPython is the first of PATH's python3 and /usr/bin/python3 that
// imports numpy, or "".
func numpyPython() string {
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if py, err := exec.LookPath(name); err == nil && exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	return ""
}

// TestWriteReadByNumpy writes fresh random arrays of every dtype and
// several shapes (special values included) and checks them as numpy reads
// them: dtype, shape, C order, a 64-byte-aligned data offset and every
// value bit for bit. It skips, loudly, only where python3 with numpy is
// missing.
func TestWriteReadByNumpy(t *testing.T) {
	py := numpyPython()
	if py == "" {
		t.Skip("SKIP: no python3 with numpy (PATH's python3, /usr/bin/python3): the npy writer is not checked against numpy")
	}
	t.Logf("numpy through %s", py)
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	cases := numpyCases(rng)
	got := readByNumpy(t, py, cases)
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for i, c := range cases {
		g := got[i]
		name := fmt.Sprintf("%s %v", c.descr, c.shape)
		if g.Descr != c.descr || fmt.Sprint(g.Shape) != fmt.Sprint(c.shape) || g.Fortran || g.Offset%64 != 0 || g.Version[0] != 1 {
			t.Errorf("%s: numpy sees descr %s, shape %v, fortran %v, data at %d, version %v", name, g.Descr, g.Shape, g.Fortran, g.Offset, g.Version)
			continue
		}
		if c.ints != nil {
			for k, s := range g.Re {
				if v, err := strconv.ParseInt(s, 10, 64); err != nil || v != c.ints[k] {
					t.Errorf("%s: value %d = %s in numpy, want %d", name, k, s, c.ints[k])
				}
			}
			continue
		}
		if len(g.Re) != len(c.re) || (c.im != nil) != (g.Im != nil) {
			t.Errorf("%s: numpy read %d values (imaginary parts %v), want %d", name, len(g.Re), g.Im != nil, len(c.re))
			continue
		}
		for k := range c.re {
			re, err1 := strconv.ParseFloat(g.Re[k], 64)
			if err1 != nil || !same(re, c.re[k]) {
				t.Errorf("%s: value %d real part %s in numpy, want %x", name, k, g.Re[k], c.re[k])
			}
			if c.im != nil {
				im, err2 := strconv.ParseFloat(g.Im[k], 64)
				if err2 != nil || !same(im, c.im[k]) {
					t.Errorf("%s: value %d imaginary part %s in numpy, want %x", name, k, g.Im[k], c.im[k])
				}
			}
		}
	}
}

// numpyCase is one array written and read back by numpy: re, im are its
// values as float64 (ints for int64).
type numpyCase struct {
	shape  []int
	data   any
	descr  string
	re, im []float64
	ints   []int64
}

// numpyCases are every dtype the writer takes over several shapes, with
// special values (infinities, NaN, −0, extremes) and random magnitudes.
func numpyCases(rng *rand.Rand) []numpyCase {
	f := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20)) }
	special := []float64{math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64}
	var cases []numpyCase
	for _, shape := range [][]int{{7}, {2, 3}, {3, 1, 4}, {0}, {1}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		re, im := make([]float64, n), make([]float64, n)
		for i := range n {
			re[i], im[i] = f(), f()
			if i < len(special) && n > 6 {
				re[i] = special[i]
			}
		}
		c128, c64 := make([]complex128, n), make([]complex64, n)
		f64, f32 := make([]float64, n), make([]float32, n)
		r32, i32 := make([]float64, n), make([]float64, n)
		ints := make([]int64, n)
		for i := range n {
			c128[i], f64[i] = complex(re[i], im[i]), re[i]
			c64[i], f32[i] = complex(float32(re[i]), float32(im[i])), float32(re[i])
			r32[i], i32[i] = float64(float32(re[i])), float64(float32(im[i]))
			ints[i] = int64(rng.Uint64())
		}
		if n > 2 {
			ints[0], ints[1] = math.MinInt64, math.MaxInt64
		}
		cases = append(cases,
			numpyCase{shape, c128, "<c16", re, im, nil}, numpyCase{shape, c64, "<c8", r32, i32, nil},
			numpyCase{shape, f64, "<f8", re, nil, nil}, numpyCase{shape, f32, "<f4", r32, nil, nil},
			numpyCase{shape, ints, "<i8", nil, nil, ints})
	}
	return cases
}

// numpyView is what numpy reports of one array.
type numpyView struct {
	Version []int    `json:"version"`
	Descr   string   `json:"descr"`
	Shape   []int    `json:"shape"`
	Fortran bool     `json:"fortran"`
	Offset  int      `json:"offset"`
	Re      []string `json:"re"`
	Im      []string `json:"im"`
}

// readByNumpy writes the cases with Write and has numpy read them all.
func readByNumpy(t *testing.T, py string, cases []numpyCase) []numpyView {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, c := range cases {
		var b bytes.Buffer
		if err := Write(&b, c.shape, c.data); err != nil {
			t.Fatalf("%T %v: %v", c.data, c.shape, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("a%d.npy", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	cmd := exec.Command(py, append([]string{"-c", numpyRead}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy could not read the files: %v\n%s", err, stderr.String())
	}
	var got []numpyView
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != len(cases) {
		t.Fatalf("numpy read %d arrays, want %d", len(got), len(cases))
	}
	return got
}
