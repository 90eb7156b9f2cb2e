package gpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// azzaSim is a small simulation whose gridded beams (newTestGrid's, over
// za 0…π and the whole circle) interpolate with az_za_simple, beside one
// map_coordinates beam and an analytic one, at a channel on a beam channel
// and one between (frequency interpolation before the spatial spline).
func azzaSim(t testing.TB, rng *rand.Rand, pol, p1 bool, order int) *matvis.Simulation {
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
	cfg.Coords = backendtest.RandomTopo(t, rng, nt, nsrc)
	for b := range 2 {
		prec := 2
		if p1 && b == 0 {
			prec = 1 // float32 planes too
		}
		g, err := newTestGrid(t, fmt.Sprintf("azza%d", b), 72, 46, 0.4+0.2*float64(b), order, prec, testFreqs).WithSpatialInterp(beam.SpatialAzZaSimple)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Beams = append(cfg.Beams, g)
	}
	cfg.Beams = append(cfg.Beams, newTestGrid(t, "mapcoord", 72, 46, 0.5, order, 2, testFreqs), beam.Gaussian{SigmaRad: 0.5})
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

// TestAzZaSimpleTablesHost checks, without a device, that the kernels'
// interpolation of the host's az_za_simple tables (matvis/gpu/vis_beam.cuh's
// grid_footprint: range check on the table, mirrored footprint indices,
// node-major components — as TestBeamTablesHost emulates it) gives the
// CPU's az_za_simple Eval, whose clamp it does not have, at every
// direction above the horizon: the data fill the table but its outermost
// coefficient rows and columns, so no footprint of a direction in the
// data reaches past the table.
func TestAzZaSimpleTablesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 11))
	for _, pol := range []bool{true, false} {
		for _, order := range []int{1, 3} {
			sim := azzaSim(t, rng, pol, false, order)
			for _, f := range sim.Freqs {
				tb, err := buildBeamTables(sim, f, false)
				if err != nil {
					t.Fatal(err)
				}
				worst := checkTablesEval(t, sim, tb, f, rng)
				if worst > 1e-12 {
					t.Errorf("pol=%v order %d at %g Hz: tables vs Eval %.3g, want ≤ 1e-12", pol, order, f, worst)
				}
				t.Logf("pol=%v order %d at %.1f MHz: largest |tables − Eval| = %.2e", pol, order, f/1e6, worst)
			}
		}
	}
}

// checkTablesEval returns the largest difference, over random directions
// with za in [0, π/2] and az in [0, 2π) (where the kernels' azza puts
// them), between the kernels' evaluation of tb and each gridded beam's Eval.
func checkTablesEval(t *testing.T, sim *matvis.Simulation, tb *beamTables, f float64, rng *rand.Rand) float64 {
	t.Helper()
	nc := sim.Mode.Components()
	const nd = 500
	az, za := make([]float64, nd), make([]float64, nd)
	for i := range az {
		az[i], za[i] = rng.Float64()*2*math.Pi, rng.Float64()*math.Pi/2
	}
	za[0], za[1], az[2], az[3] = 0, math.Pi/2, 0, math.Nextafter(2*math.Pi, 0)
	var worst float64
	for b, bm := range sim.Beams {
		if tb.desc[b].Kind >= 0 {
			continue // analytic
		}
		resp, err := bm.At(f, sim.Mode)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]complex128, nc*nd)
		resp.Eval(az, za, want)
		off := int(tb.desc[b].Off)
		gw := tb.geom[tb.desc[b].Geom]
		za0, zs, az0, as := gw.Za0, gw.ZScale, gw.Az0, gw.AScale
		nza, naz := int(gw.NZa), int(gw.NAz)
		ord, sq := int(gw.Order), gw.SqrtAfter == 1
		for s := range nd {
			cz, ca := (za[s]-za0)*zs, (az[s]-az0)*as
			for c := range nc {
				var got complex128
				if cz >= 0 && cz <= float64(nza-1) && ca >= 0 && ca <= float64(naz-1) {
					var iz, ia [4]int
					var wz, wa [4]float64
					hostWeights(cz, nza, ord, &iz, &wz)
					hostWeights(ca, naz, ord, &ia, &wa)
					var re, im float64
					for i := range 4 {
						for j := range 4 {
							k := 2 * (off + (iz[i]*naz+ia[j])*nc + c)
							re += wz[i] * wa[j] * tb.coef64[k]
							im += wz[i] * wa[j] * tb.coef64[k+1]
						}
					}
					if sq {
						re, im = math.Sqrt(re), 0
					}
					got = complex(re, im)
				}
				worst = max(worst, cmplx.Abs(got-want[c*nd+s]))
			}
		}
	}
	return worst
}

// TestAzZaSimpleParity: GPU against the plain-loop CPU twin for runs with
// az_za_simple beams (beside a map_coordinates beam and an analytic one),
// polarized and not, fp64 and fp32, orders 3 and 1, with the channels
// prepared on the device (the az_za_simple bases made on the host,
// hostScratch) and, forced, on the host.
func TestAzZaSimpleParity(t *testing.T) {
	parityOverShapes(t, openGPU(t), "az_za_simple", 2700, azzaSim)
}

// TestAzZaSimpleDevicePrep: the tables the device's channel preparation
// makes for az_za_simple beams (bases from the host's not-a-knot solve, a
// weighted sum per channel on the device) equal the host's (Prepare)
// within 1e-12 of the largest value in fp64 and 1e-6 in fp32, at a channel
// on a beam channel and one between, polarized and not, orders 3 and 1.
func TestAzZaSimpleDevicePrep(t *testing.T) {
	devicePrepOverShapes(t, openGPU(t), 2750, azzaSim)
}

// shapeSim builds a simulation of random beams of one kind, polarized or
// not, fp32 (p1) or fp64, of spline order order.
type shapeSim func(t testing.TB, rng *rand.Rand, pol, p1 bool, order int) *matvis.Simulation

// parityOverShapes runs checkParity (GPU against the plain-loop CPU twin)
// on build's simulations, polarized and not, fp64 and fp32, orders 3 and
// 1 (the i-th with seed seed + i), requiring the channels to be prepared
// on the device.
func parityOverShapes(t *testing.T, g *Backend, kind string, seed uint64, build shapeSim) {
	i := 0
	for _, pol := range []bool{true, false} {
		for _, p1 := range []bool{false, true} {
			for _, order := range []int{3, 1} {
				i++
				rng := rand.New(rand.NewPCG(uint64(i)+seed, 9))
				sim := build(t, rng, pol, p1, order)
				name := fmt.Sprintf("%s pol=%v p1=%v order %d", kind, pol, p1, order)
				checkParity(t, g, sim, name, func(res *matvis.Result) string {
					if res.Stats.ChannelPrep != "device" {
						t.Errorf("%s: channel preparation %q, want device", name, res.Stats.ChannelPrep)
					}
					return "channel prep " + res.Stats.ChannelPrep
				})
			}
		}
	}
}

// devicePrepOverShapes checks, for build's simulations over the same
// shapes and seeds as parityOverShapes, that the device prepares every
// channel's tables as the host does (checkPrepChannel).
func devicePrepOverShapes(t *testing.T, g *Backend, seed uint64, build shapeSim) {
	i := 0
	for _, pol := range []bool{true, false} {
		for _, p1 := range []bool{false, true} {
			for _, order := range []int{3, 1} {
				i++
				t.Run(fmt.Sprintf("pol=%v p1=%v order %d", pol, p1, order), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(i)+seed, 9))
					sim := build(t, rng, pol, p1, order)
					r, err := newRun(context.Background(), g, sim)
					if err != nil {
						t.Fatal(err)
					}
					defer r.close()
					if r.bp == nil {
						t.Fatalf("the run prepares on the host: %s", r.res.Stats.ChannelPrep)
					}
					for fi, f := range sim.Freqs {
						checkPrepChannel(t, r, fi, f)
					}
				})
			}
		}
	}
}

// TestAzZaSimpleGPURefuses: az_za_simple beams whose data do not cover
// every direction above the horizon (za short of 90°, or azimuths that do
// not wrap) are refused by the GPU's table layout, naming the reason;
// map_coordinates beams on the same grids are not (their kernels and CPU
// agree everywhere: 0 outside the grid on both).
func TestAzZaSimpleGPURefuses(t *testing.T) {
	for _, c := range []struct {
		name    string
		naz     int
		zaTop   float64
		wrap    bool
		wantErr string
	}{
		{"za to 80°", 36, 80, true, "not covering 0 … π/2"},
		{"half azimuth", 19, 180, false, "does not wrap"},
		{"whole sky", 36, 180, true, ""},
	} {
		spec := beam.GridSpec{Name: c.name, Type: beam.Power, FreqsHz: []float64{1e8}, Pols: []int{beam.PolXX}, NAxesVec: 1}
		for j := range c.naz {
			if c.wrap {
				spec.AzRad = append(spec.AzRad, 2*math.Pi*float64(j)/float64(c.naz))
			} else {
				spec.AzRad = append(spec.AzRad, math.Pi*float64(j)/float64(c.naz-1))
			}
		}
		for i := range 10 {
			spec.ZaRad = append(spec.ZaRad, c.zaTop*math.Pi/180*float64(i)/9)
		}
		data := make([]complex128, len(spec.AzRad)*len(spec.ZaRad))
		for i := range data {
			data[i] = 1
		}
		g, err := beam.NewGridded(spec, data)
		if err != nil {
			t.Fatal(err)
		}
		s, err := g.WithSpatialInterp(beam.SpatialAzZaSimple)
		if err != nil {
			t.Fatal(err)
		}
		for _, bm := range []*beam.Gridded{s, g} {
			r, err := bm.Prepare(1e8, beam.Mode{})
			if err != nil {
				t.Fatal(err)
			}
			grid := r.Grid()
			err = clampAgrees(grid)
			want := c.wantErr
			if bm == g {
				want = "" // map_coordinates
			}
			if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
				t.Errorf("%s, %s: error %v, want %q", c.name, bm.SpatialInterp(), err, want)
			}
		}
	}
}
