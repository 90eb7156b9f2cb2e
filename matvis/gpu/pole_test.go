package gpu

import (
	"context"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// poleSim is a small simulation whose gridded beams continue through the
// pole (beam.PoleContinued): one az_za_simple and one map_coordinates beam
// (newTestGrid's, over za 0…π and the whole circle; the first in float32
// with p1), beside an edge map_coordinates beam and an analytic one, at a
// channel on a beam channel and one between, with sources concentrated
// within 10° of zenith, where the continuation acts, and the rest uniform.
func poleSim(t testing.TB, rng *rand.Rand, pol, p1 bool, order int) *matvis.Simulation {
	t.Helper()
	const nant, nsrc, nt = 6, 300, 3
	cfg := matvis.Config{Freqs: []float64{100e6, 117.5e6}}
	for range nant {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*200 - 100, rng.Float64()*200 - 100, rng.Float64() * 2})
	}
	for range nsrc {
		cfg.RA = append(cfg.RA, rng.Float64()*2*math.Pi)
		cfg.Dec = append(cfg.Dec, math.Asin(rng.Float64()*2-1))
		for range cfg.Freqs {
			cfg.Flux = append(cfg.Flux, rng.Float64()*5+0.1)
		}
	}
	cfg.Coords = nearZenithTopo(rng, nt, nsrc)
	for b, interp := range []string{beam.SpatialAzZaSimple, beam.SpatialMapCoordinates} {
		prec := 2
		if p1 && b == 0 {
			prec = 1
		}
		g, err := newTestGrid(t, fmt.Sprintf("pole%d", b), 72, 46, 0.4+0.2*float64(b), order, prec, testFreqs).WithSpatialInterp(interp)
		if err == nil {
			g, err = g.WithPole(beam.PoleContinued)
		}
		if err != nil {
			t.Fatal(err)
		}
		cfg.Beams = append(cfg.Beams, g)
	}
	cfg.Beams = append(cfg.Beams, newTestGrid(t, "edge", 72, 46, 0.5, order, 2, testFreqs), beam.Gaussian{SigmaRad: 0.5})
	cfg.BeamIdx = make([]int, nant)
	for a := range cfg.BeamIdx {
		cfg.BeamIdx[a] = a % len(cfg.Beams)
	}
	cfg.Options = matvis.Options{Precision: 2, Polarized: pol}
	if p1 {
		cfg.Options.Precision = 1
	}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// nearZenithTopo is nt times of nsrc ENU directions, half of them within
// 10° of zenith (some within 0.1°), the rest uniform on the sphere.
func nearZenithTopo(rng *rand.Rand, nt, nsrc int) matvis.Coordinates {
	data := make([]float64, nt*3*nsrc)
	for ti := range nt {
		for s := range nsrc {
			var za float64
			switch {
			case s%8 == 0:
				za = rng.Float64() * 0.1 * math.Pi / 180
			case s%2 == 0:
				za = rng.Float64() * 10 * math.Pi / 180
			default:
				za = math.Acos(rng.Float64()*2 - 1)
			}
			az := rng.Float64() * 2 * math.Pi
			e, n, u := math.Sin(za)*math.Sin(az), math.Sin(za)*math.Cos(az), math.Cos(za)
			data[ti*3*nsrc+s], data[ti*3*nsrc+nsrc+s], data[ti*3*nsrc+2*nsrc+s] = e, n, u
		}
	}
	c, err := matvis.NewPrecomputed(nt, nsrc, data)
	if err != nil {
		panic(err)
	}
	return c
}

// TestPoleTablesHost checks, without a device, that the kernels'
// interpolation of the host's tables of beams continued through the pole
// (one more coefficient row below za = 0 for map_coordinates; the same
// table for az_za_simple), as checkTablesEval emulates grid_footprint,
// gives each beam's CPU Eval to 1e-12 at every direction above the
// horizon, za = 0 included.
func TestPoleTablesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 31))
	for _, pol := range []bool{true, false} {
		for _, order := range []int{1, 3} {
			sim := poleSim(t, rng, pol, false, order)
			r, err := sim.Beams[1].(*beam.Gridded).Prepare(sim.Freqs[0], sim.Mode)
			if err != nil {
				t.Fatal(err)
			}
			if gr := r.Grid(); order == 3 && (!gr.Pole || gr.NZa != 47 || !(gr.ZaMin < 0)) {
				t.Fatalf("order 3: the continued map_coordinates beam's grid %+v: want Pole, 47 rows, the first below za = 0", gr)
			}
			for _, f := range sim.Freqs {
				tb, err := buildBeamTables(sim, f, false)
				if err != nil {
					t.Fatal(err)
				}
				worst := checkTablesEval(t, sim, tb, f, rng)
				t.Logf("pol=%v order %d at %.1f MHz: largest |tables − Eval| = %.2e", pol, order, f/1e6, worst)
				if worst > 1e-12 {
					t.Errorf("pol=%v order %d at %g Hz: tables vs Eval %.3g, want ≤ 1e-12", pol, order, f, worst)
				}
			}
		}
	}
}

// TestPoleParity: GPU against the plain-loop CPU twin for runs with beams
// continued through the pole (both interpolations, beside an edge beam and
// an analytic one), sources crowded near zenith, polarized and not, fp64
// and fp32, orders 3 and 1, the channels prepared on the device (the
// continued bases made on the host, hostScratch).
func TestPoleParity(t *testing.T) {
	parityOverShapes(t, openGPU(t), "pole", 2900, poleSim)
}

// TestPoleDevicePrep: the tables the device's channel preparation makes
// for beams continued through the pole equal the host's (Prepare) within
// 1e-12 of the largest value in fp64 and 1e-6 in fp32, at a channel on a
// beam channel and one between, polarized and not, orders 3 and 1.
func TestPoleDevicePrep(t *testing.T) {
	devicePrepOverShapes(t, openGPU(t), 2950, poleSim)
}

// TestPoleZenithTrackGPU: the bar's zenith track (backendtest.ZenithObsparam:
// the HERA beamfits, 18 s over ±9.9 min, a polarized source through zenith
// and 0.05° beside it, obsparam defaults: IAU rotation, az_za_simple
// continued through the pole) on the GPU, fp64: the visibilities equal the
// CPU's to backendtest.Tolerance(2), and the autocorrelations' third
// difference is ≤ 1e-4 of the peak, the second ≤ 1e-4 on xx, xy, yx and ≤
// 1.5e-4 on yy (its own curvature, 1.14e-4 on the CPU; see the CPU's
// TestZenithTrackSmooth in matvis).
func TestPoleZenithTrackGPU(t *testing.T) {
	g := openGPU(t)
	names := [2][2]string{{"xx", "xy"}, {"yx", "yy"}}
	for _, off := range []float64{0, 0.05} {
		cfg := backendtest.ZenithObsparam(t, off, 67, 18, backendtest.ZenithStokes)
		sim, obs, err := input.FromObsConfig(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := input.GriddedPole(sim.Beams, sim.Mode); got != beam.PoleContinued {
			t.Fatalf("offset %g°: the default zenith treatment is %q, want %q", off, got, beam.PoleContinued)
		}
		want, err := cpu.New().Run(context.Background(), sim)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Run(context.Background(), sim)
		if err != nil {
			t.Fatalf("offset %g°: gpu: %v", off, err)
		}
		e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want))
		t.Logf("offset %g°: GPU vs CPU max|Δ|/max|V| = %.2e (channel prep %s)", off, e, got.Stats.ChannelPrep)
		if !(e <= backendtest.Tolerance(2)) {
			t.Errorf("offset %g°: GPU vs CPU %.3g over %.0e", off, e, backendtest.Tolerance(2))
		}
		d2, d3 := backendtest.ZenithSmoothness(got, obs.Baselines)
		for p := range 2 {
			for q := range 2 {
				lim2 := 1e-4
				if p == 1 && q == 1 {
					lim2 = 1.5e-4
				}
				t.Logf("offset %g°: GPU %s: second difference %.2e, third %.2e of the peak", off, names[p][q], d2[p][q], d3[p][q])
				if d2[p][q] > lim2 || d3[p][q] > 1e-4 {
					t.Errorf("offset %g°: GPU %s: second difference %.3g (want ≤ %g), third %.3g (want ≤ 1e-4)", off, names[p][q], d2[p][q], lim2, d3[p][q])
				}
			}
		}
	}
}

// TestPolePrepCasesApply checks, without a device, that the channel
// preparation tests' continued cases (prepCase.pole) do continue their
// cubic beams through the pole, polarized and as power from the E-field
// with a basis, and that the bilinear beam and the half-azimuth case,
// whose azimuths do not wrap, do not (and say why), so that
// TestDevicePrepMatchesHost and TestDevicePrepStreamed test what they
// name.
func TestPolePrepCasesApply(t *testing.T) {
	for _, c := range []struct {
		pc   prepCase
		want bool
	}{
		{prepCase{pol: true, pole: true}, true},
		{prepCase{basis: true, p1: true, pole: true}, true},
		{prepCase{pol: true, pole: true, manyFreqs: true}, true},
		{prepCase{pol: true, halfAz: true, pole: true}, false},
	} {
		sim := prepSim(t, rand.New(rand.NewPCG(5, 5)), c.pc)
		for b, bm := range sim.Beams {
			g, ok := bm.(*beam.Gridded)
			if !ok {
				continue
			}
			want := c.want && g.Order() == 3 // bilinear reads no row past the pole
			if ok, why := g.PoleApplies(sim.Mode); ok != want || (!ok && why == "") {
				t.Errorf("%+v: beam %d (order %d): PoleApplies = %v (%q), want %v", c.pc, b, g.Order(), ok, why, want)
			}
		}
	}
}
