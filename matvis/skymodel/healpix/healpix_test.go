package healpix

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPix2AngHealpy compares with healpy's pix2ang (testdata/pix2ang.txt,
// written by testdata/gen_pix2ang.py) to 1e-12 rad.
func TestPix2AngHealpy(t *testing.T) {
	f, err := os.Open("testdata/pix2ang.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	worst := 0.0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var nside, nest int
		var ipix int64
		var th, ph float64
		if _, err := fmt.Sscan(line, &nside, &nest, &ipix, &th, &ph); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		gth, gph, err := Pix2Ang(nside, ipix, nest == 1)
		if err != nil {
			t.Fatalf("nside %d pix %d: %v", nside, ipix, err)
		}
		dph := math.Abs(math.Remainder(gph-ph, 2*math.Pi))
		d := math.Max(math.Abs(gth-th), dph)
		worst = math.Max(worst, d)
		if d > 1e-12 {
			t.Errorf("nside %d nest %d pix %d: got (%.17g, %.17g), healpy (%.17g, %.17g)", nside, nest, ipix, gth, gph, th, ph)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d reference pixels", n)
	}
	t.Logf("%d pixels, worst difference %.3g rad", n, worst)
}

func TestPix2AngErrors(t *testing.T) {
	cases := []struct {
		nside int
		pix   int64
		nest  bool
	}{
		{0, 0, false}, {-4, 0, true}, {3, 0, true}, {MaxNside * 2, 0, false},
		{4, -1, false}, {4, 12 * 16, false}, {4, 12 * 16, true},
	}
	for _, c := range cases {
		if _, _, err := Pix2Ang(c.nside, c.pix, c.nest); err == nil {
			t.Errorf("Pix2Ang(%d, %d, %v): no error", c.nside, c.pix, c.nest)
		}
	}
	// RING accepts a non-power-of-two nside; its pixels tile the sphere.
	if _, _, err := Pix2Ang(3, 107, false); err != nil {
		t.Errorf("ring nside 3: %v", err)
	}
}

// TestPix2AngLargestNside checks the poles and equator stay exact at the
// largest nside, where float rounding would show.
func TestPix2AngLargestNside(t *testing.T) {
	ns := MaxNside
	th, _, err := Pix2Ang(ns, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	// 1 − cos θ = 1/(3nside²), so θ = √(2/3)/nside to relative O(θ²).
	want := math.Sqrt(2.0/3) / float64(ns)
	if math.Abs(th-want)/want > 1e-15 {
		t.Errorf("first pixel theta %g, want about %g", th, want)
	}
	// The southern corner of base pixel 8 touches the south pole.
	th2, _, _ := Pix2Ang(ns, 8*int64(ns)*int64(ns), true)
	if math.Abs(th2-(math.Pi-want)) > 1e-12 {
		t.Errorf("south-pole nested pixel theta %g, want %g", th2, math.Pi-want)
	}
}

// TestPix2AngHealpyLive asks the installed healpy (when /usr/bin/python3
// has it) about fresh random pixels, up to nside 2^20.
func TestPix2AngHealpyLive(t *testing.T) {
	const script = `
import healpy as hp, numpy as np
rng = np.random.default_rng()
for nside in [1, 4, 64, 8192, 2**17, 2**20]:
    pix = rng.integers(0, 12 * nside * nside, 40)
    for nest in (0, 1):
        th, ph = hp.pix2ang(nside, pix, nest=bool(nest))
        for p, a, b in zip(pix, th, ph):
            print(nside, nest, p, repr(float(a)), repr(float(b)))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script).Output()
	if err != nil {
		t.Skipf("healpy not available: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var nside, nest int
		var ipix int64
		var th, ph float64
		if _, err := fmt.Sscan(line, &nside, &nest, &ipix, &th, &ph); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		gth, gph, err := Pix2Ang(nside, ipix, nest == 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(gth-th) > 1e-12 || math.Abs(math.Remainder(gph-ph, 2*math.Pi)) > 1e-12 {
			t.Errorf("nside %d nest %d pix %d: (%.17g, %.17g), healpy (%.17g, %.17g)", nside, nest, ipix, gth, gph, th, ph)
		}
		n++
	}
	if n != 6*2*40 {
		t.Errorf("compared %d pixels", n)
	}
}
