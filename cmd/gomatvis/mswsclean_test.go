package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docsWSClean is the WSClean command of docs/ms.md's "Imaging it with
// WSClean" (`OPENBLAS_NUM_THREADS=1 wsclean ARGS -name img run.ms`): its
// arguments but -name and the MS, with -pol's value replaced by pol. The
// test runs the command the reader is given, not a copy of it.
func docsWSClean(t *testing.T, pol string) []string {
	t.Helper()
	const prefix = "OPENBLAS_NUM_THREADS=1 wsclean "
	for _, line := range strings.Split(string(mustRead(t, filepath.Join("..", "..", "docs", "ms.md"))), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, prefix))
		if len(f) < 3 || f[len(f)-1] != "run.ms" || f[len(f)-3] != "-name" {
			t.Fatalf("docs/ms.md: %q does not end in -name NAME run.ms", line)
		}
		f = f[:len(f)-3]
		i := slices.Index(f, "-pol")
		if i < 0 || i+1 >= len(f) {
			t.Fatalf("docs/ms.md: %q names no -pol", line)
		}
		f[i+1] = pol
		return f
	}
	t.Fatalf("docs/ms.md has no line %q…", prefix)
	return nil
}

// oneSourceMS runs `gomatvis simulate` of the example array (19 HERA
// dishes, 9 channels, 6 times over 50 minutes) on a sky of one
// unpolarized point source of flux jy at (ra, dec) degrees with a
// uniform beam, to OUT.ms phased to centre (RA,DEC in degrees): four
// correlations when polarized (the beam's Jones diagonal, as pyuvsim's),
// else XX alone (the example's use_feed x).
func oneSourceMS(t *testing.T, dir string, ra, dec, jy float64, centre string, polarized bool) string {
	t.Helper()
	spec := writeSpec(t, dir, func(m map[string]any) {
		nf := len(m["freqs_hz"].([]any))
		flux := make([]float64, nf)
		for i := range flux {
			flux[i] = jy
		}
		m["sources"] = map[string]any{"ra_rad": []float64{ra * math.Pi / 180}, "dec_rad": []float64{dec * math.Pi / 180}, "flux_jy": [][]float64{flux}}
		m["beams"] = []map[string]any{{"type": "uniform", "jones": "diagonal"}}
		m["polarized"] = polarized
	}, "")
	out := filepath.Join(dir, "run.ms")
	if code, _, stderr := runCLI(t, "simulate", spec, "-o", out, "-q", "--backend", "cpu", "--phase-center", centre); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out
}

// wscleanDirty images an MS by docs/ms.md's WSClean command with -pol pol
// and returns the dirty image's size and pixels.
func wscleanDirty(t *testing.T, ms, pol string) (int, []float32) {
	t.Helper()
	name := filepath.Join(filepath.Dir(ms), "img")
	cmd := exec.Command("wsclean", append(docsWSClean(t, pol), "-name", name, ms)...)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wsclean: %v\n%s", err, b)
	}
	return readFITSPlane(t, name+"-dirty.fits")
}

// TestCLIMSWSClean is issue 38's two WSClean checks on the CLI's own
// `-o run.ms` (not ms.WriteUVH5), imaged by the command docs/ms.md gives:
//
//   - one point source of 4 Jy at the phase centre (--phase-center on it,
//     2°–13° from zenith over the run) gives a dirty peak at the centre
//     pixel equal to its apparent flux within 1 %: with a unit beam every
//     phased visibility is XX = YY = I/2 (the pyuvsim/matvis convention,
//     C = ½[[I+Q, …]]), and WSClean's Stokes I is (XX + YY)/2, so the
//     natural-weighted dirty peak is I/2 = 2 Jy; so is -pol xx's of an MS
//     of XX alone (a run that is not polarized), whose -pol I WSClean
//     refuses ("Can not form requested polarization");
//   - a source 0.08 east and 0.05 north of the centre (direction cosines
//     on the ICRS tangent plane) peaks at its own pixel within one: x =
//     n/2 − l/cell, y = n/2 + m/cell (RA increases to the left); a sign
//     error in UVW or DATA would mirror it through the centre.
func TestCLIMSWSClean(t *testing.T) {
	if _, err := exec.LookPath("wsclean"); err != nil {
		t.Skip("SKIP: wsclean is not installed (apt-get install wsclean; scripts/test.sh installs it)")
	}
	const ra0, dec0 = 290.0, -30.0
	centre := fmt.Sprintf("%g,%g", ra0, dec0)
	cell := 0.5 * math.Pi / 180
	for _, c := range []struct {
		name      string
		polarized bool
		pol       string
	}{{"flux at the centre, XX XY YX YY", true, "I"}, {"flux at the centre, XX", false, "xx"}} {
		t.Run(c.name, func(t *testing.T) {
			const jy = 4.0
			n, pix := wscleanDirty(t, oneSourceMS(t, t.TempDir(), ra0, dec0, jy, centre, c.polarized), c.pol)
			v, x, y := peakPixel(pix, n)
			t.Logf("-pol %s: peak %.5f Jy at (%d, %d); centre (%d, %d); apparent flux %g Jy", c.pol, v, x, y, n/2, n/2, jy/2)
			if x != n/2 || y != n/2 {
				t.Errorf("peak at (%d, %d), want the centre pixel (%d, %d)", x, y, n/2, n/2)
			}
			if math.Abs(float64(v)-jy/2) > 0.01*jy/2 {
				t.Errorf("peak %v Jy, want %v Jy within 1%%", v, jy/2)
			}
		})
	}
	for _, lm := range [][2]float64{{0.08, 0.05}, {-0.06, 0.1}} {
		t.Run("position l="+strconv.FormatFloat(lm[0], 'g', -1, 64)+",m="+strconv.FormatFloat(lm[1], 'g', -1, 64), func(t *testing.T) {
			ra, dec := offsetRADec(ra0, dec0, lm[0], lm[1])
			n, pix := wscleanDirty(t, oneSourceMS(t, t.TempDir(), ra, dec, 2, centre, true), "I")
			_, x, y := peakPixel(pix, n)
			wx, wy := float64(n/2)-lm[0]/cell, float64(n/2)+lm[1]/cell
			t.Logf("source at RA %.4f°, Dec %.4f°: peak at (%d, %d); its pixel (%.2f, %.2f)", ra, dec, x, y, wx, wy)
			if math.Abs(float64(x)-wx) > 1 || math.Abs(float64(y)-wy) > 1 {
				t.Errorf("peak at (%d, %d), want the source's pixel (%.2f, %.2f) within 1", x, y, wx, wy)
			}
		})
	}
}

// offsetRADec is the direction (degrees) at direction cosines (l east,
// m north) from (ra0, dec0) degrees: the SIN projection's inverse.
func offsetRADec(ra0, dec0, l, m float64) (ra, dec float64) {
	d := math.Pi / 180
	n := math.Sqrt(1 - l*l - m*m)
	s0, c0 := math.Sincos(dec0 * d)
	dec = math.Asin(m*c0 + n*s0)
	ra = ra0*d + math.Atan2(l, n*c0-m*s0)
	return ra / d, dec / d
}

// peakPixel is an n × n image's largest pixel and its (x, y), 0-based.
func peakPixel(pix []float32, n int) (v float32, x, y int) {
	v = float32(math.Inf(-1))
	for i, p := range pix {
		if p > v {
			v, x, y = p, i%n, i/n
		}
	}
	return v, x, y
}
