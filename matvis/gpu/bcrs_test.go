package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// erfaSim is a small simulation whose coordinates are astro's ERFA method
// (an astro.BCRSRotation: the BCRS step runs on the device) or, with
// method MethodAstropy, uploaded ENU vectors.
func erfaSim(t *testing.T, method astro.Method, every float64, prec, nsrc int) (*matvis.Simulation, astro.Rotation) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(nsrc), uint64(every)+uint64(prec)))
	times := make([]float64, 6)
	for i := range times {
		times[i] = 2459845.25 + float64(i)*40/86400
	}
	cfg := matvis.Config{Freqs: []float64{100e6, 120e6}}
	for a := 0; a < 6; a++ {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*200 - 100, rng.Float64()*200 - 100, 0})
	}
	for s := 0; s < nsrc; s++ {
		cfg.RA = append(cfg.RA, rng.Float64()*2*math.Pi)
		cfg.Dec = append(cfg.Dec, math.Asin(rng.Float64()*2-1))
		cfg.Flux = append(cfg.Flux, rng.Float64()+0.1, rng.Float64()+0.1)
	}
	rot, err := astro.New(astro.Config{Method: method, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1051.7},
		TimesJD: times, EOP: make([]astro.EOP, len(times)), UpdateBCRSEvery: every}, cfg.RA, cfg.Dec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Coords = rot
	cfg.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}, beam.Airy{DiameterM: 14}}
	cfg.BeamIdx = []int{0, 1, 0, 1, 0, 1}
	cfg.Options = matvis.Options{Precision: prec, Polarized: true, MinChunks: 2}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim, rot
}

// TestDeviceBCRS: with the ERFA method the device does the BCRS step from
// the ECI vectors; its ENU vectors must equal astro's ENU to 1e-14 per
// component (absolute) at every time, for refreshes at every time and
// every 60 s (times 40 s apart, so some times reuse a refresh).
func TestDeviceBCRS(t *testing.T) {
	g := openGPU(t)
	for _, every := range []float64{0, 60} {
		sim, rot := erfaSim(t, astro.MethodERFA, every, 2, 20000)
		if _, ok := rot.(astro.BCRSRotation); !ok {
			t.Fatal("the ERFA rotation is not an astro.BCRSRotation")
		}
		worst := deviceBCRSWorst(t, g, sim, rot, every)
		t.Logf("device BCRS step, update_bcrs_every %v s: max |ENU_gpu − ENU_astro| = %.3g over %d sources × %d times", every, worst, rot.NSources(), rot.NTimes())
	}
}

// deviceBCRSWorst opens a run of sim on g and returns the largest
// |ENU_gpu − ENU_astro| component over every source and time, failing t
// at the first over 1e-14.
func deviceBCRSWorst(t *testing.T, g *Backend, sim *matvis.Simulation, rot astro.Rotation, every float64) float64 {
	t.Helper()
	g.mu.Lock()
	r, err := newRun(context.Background(), g, sim)
	g.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if r.bcrs == nil {
		t.Fatal("the run does not use the device BCRS step")
	}
	n := rot.NSources()
	we, wn, wu := make([]float64, n), make([]float64, n), make([]float64, n)
	worst := 0.0
	for ti := 0; ti < rot.NTimes(); ti++ {
		if err := rot.ENU(ti, we, wn, wu); err != nil {
			t.Fatal(err)
		}
		e, nn, u, err := r.deviceENU(ti)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < n; s++ {
			d := max(math.Abs(e[s]-we[s]), math.Abs(nn[s]-wn[s]), math.Abs(u[s]-wu[s]))
			if !(d <= 1e-14) {
				t.Fatalf("every %v, time %d, source %d: device ENU (%v %v %v) vs astro (%v %v %v): %.3g", every, ti, s, e[s], nn[s], u[s], we[s], wn[s], wu[s], d)
			}
			worst = max(worst, d)
		}
	}
	return worst
}

// TestParityERFA: the GPU against the plain-loop twin with astro's
// coordinates: the ERFA method (device BCRS step) at both precisions and refresh intervals,
// and the Astropy method (uploaded ENU vectors).
func TestParityERFA(t *testing.T) {
	g := openGPU(t)
	cases := []struct {
		m     astro.Method
		every float64
		prec  int
	}{{astro.MethodERFA, 0, 2}, {astro.MethodERFA, 60, 2}, {astro.MethodERFA, 0, 1}, {astro.MethodAstropy, 0, 2}}
	for _, c := range cases {
		name := fmt.Sprintf("%s every=%v p=%d", c.m, c.every, c.prec)
		sim, _ := erfaSim(t, c.m, c.every, c.prec, 3000)
		checkParity(t, g, sim, name, nil)
	}
}
