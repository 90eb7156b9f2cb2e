package imaging

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSpeedAgainstWSClean times Dirty (with FromMS) and WSClean's dirty
// image of one MS side by side: a 350-antenna hexagon, GOMATVIS_SPEED_CHANS
// channels (default 64) × GOMATVIS_SPEED_TIMES times (default 10), at
// GOMATVIS_SPEED_N² pixels (default 2048), the cell a third of the finest
// fringe or, with GOMATVIS_SPEED_FIELD_DEG, the image reaching that far
// from the centre. It runs only when
// GOMATVIS_IMAGING_SPEED=1 (minutes on 2 cores) and reports; it asserts
// only that the two images agree.
func TestSpeedAgainstWSClean(t *testing.T) {
	if os.Getenv("GOMATVIS_IMAGING_SPEED") != "1" {
		t.Skip("set GOMATVIS_IMAGING_SPEED=1 to time gomatvis image against WSClean")
	}
	wscleanOrSkip(t)
	env := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return v
		}
		return def
	}
	nch, nt, n := env("GOMATVIS_SPEED_CHANS", 64), env("GOMATVIS_SPEED_TIMES", 10), env("GOMATVIS_SPEED_N", 2048)
	enu := hexLayout(11)[:350]
	var freqs []float64
	for i := range nch {
		freqs = append(freqs, 100e6+float64(i)*100e6/float64(nch))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hera350.ms")
	t0 := time.Now()
	simulateMS(t, path, enu, wideField, nt, freqs)
	t.Logf("MS of %d antennas × %d channels × %d times written in %.1f s", len(enu), nch, nt, time.Since(t0).Seconds())
	// A third of the finest fringe at the top channel.
	var maxB float64
	for _, a := range enu {
		for _, b := range enu {
			maxB = max(maxB, math.Hypot(a[0]-b[0], a[1]-b[1]))
		}
	}
	cell := 1 / (3 * maxB * freqs[nch-1] / SpeedOfLight)
	if f := env("GOMATVIS_SPEED_FIELD_DEG", 0); f > 0 {
		// A field reaching f degrees from the centre instead: at 2048²
		// the third-of-a-fringe cell spans the whole sky, whose 3-D
		// grid (3200 × 1296 × 80 points at 8 channels) is over
		// nufft's 2^28-point limit.
		cell = 2 * math.Sin(float64(f)*math.Pi/180) / float64(n)
	}
	deg := cell * 180 / math.Pi
	g := Geometry{N: n, Cell: deg * math.Pi / 180}
	t1 := time.Now()
	v, _, err := FromMS(path, "I")
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	im, err := Dirty(v, g, Weighting{Mode: Natural}, Options{Eps: 1e-6, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t3 := time.Now()
	t.Logf("gomatvis: read %.1f s, image %.1f s (2 workers), %d×%d of %.4g°", t2.Sub(t1).Seconds(), t3.Sub(t2).Seconds(), n, n, deg)
	args := []string{"-j", "2", "-name", filepath.Join(dir, "ws"), "-size", strconv.Itoa(n), strconv.Itoa(n),
		"-scale", strconv.FormatFloat(deg, 'g', -1, 64), "-pol", "I", "-niter", "0", "-no-update-model-required",
		"-use-wgridder", "-wgridder-accuracy", "1e-6", "-no-small-inversion", "-padding", "1", "-weight", "natural", path}
	cmd := exec.Command("wsclean", args...)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	t4 := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wsclean: %v\n%s", err, b)
	}
	t.Logf("WSClean (-j 2, w-gridder 1e-6): %.1f s", time.Since(t4).Seconds())
	ws := readFITS(t, filepath.Join(dir, "ws-dirty.fits"))
	inside, all, peak := compare(im, ws, 0.5)
	t.Logf("max|ours − WSClean| = %.3g of the peak %.4g within 30°, %.3g over the image", inside/peak, peak, all/peak)
	if inside > 1e-3*peak {
		t.Errorf("max|ours − WSClean| within 30° = %.3g of the peak, over 1e-3", inside/peak)
	}
}
