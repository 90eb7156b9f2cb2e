package matvis_test

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// complexBeam is a test beam with a complex Jones matrix that differs
// between feeds and axes: J[f][k](az, za) = (1 + f + 2k)/4 · cos(za) ·
// exp(i·(phase + f·az + k·za)).
type complexBeam struct{ phase float64 }

func (b complexBeam) String() string { return "complex test beam" }
func (b complexBeam) At(float64, beam.Mode) (beam.Response, error) {
	return b, nil
}
func (b complexBeam) jones(f, k int, az, za float64) complex128 {
	return complex((1+float64(f)+2*float64(k))/4*math.Cos(za), 0) *
		cmplx.Exp(complex(0, b.phase+float64(f)*az+float64(k)*za))
}
func (b complexBeam) Eval(az, za []float64, out []complex128) {
	n := len(az)
	for s := range az {
		for f := range 2 {
			for k := range 2 {
				out[(2*f+k)*n+s] = b.jones(f, k, az[s], za[s])
			}
		}
	}
}

// TestUseConventionsIsPyuvsimsFormula: with UseConventions, the engine
// gives pyuvsim's V(ant1, ant2)[p1][p2] = Σ J_ant1[p1]·(I/2)·J_ant2[p2]ᴴ ·
// exp(+2πiν (x_ant2 − x_ant1)·ŝ/c), summed here directly, for complex beams
// that differ between antennas, for every pyuvdata polarization.
func TestUseConventionsIsPyuvsimsFormula(t *testing.T) {
	rng := sharedtest.RNG(t, 5)
	const nant, nsrc = 4, 60
	freqs := []float64{100e6, 150e6}
	c := matvis.Config{Freqs: freqs, Beams: []beam.Beam{complexBeam{0.3}, complexBeam{-1.1}}, BeamIdx: []int{0, 1, 1, 0}}
	for range nant {
		c.Antennas = append(c.Antennas, [3]float64{rng.Float64()*60 - 30, rng.Float64()*60 - 30, rng.Float64()})
	}
	var topo []float64
	enu := make([][3]float64, nsrc)
	for s := range enu {
		z := rng.Float64()*1.2 - 0.2
		phi := rng.Float64() * 2 * math.Pi
		r := math.Sqrt(1 - z*z)
		enu[s] = [3]float64{r * math.Cos(phi), r * math.Sin(phi), z}
		c.RA, c.Dec = append(c.RA, 0), append(c.Dec, 0)
		for range freqs {
			c.Flux = append(c.Flux, 0.5+rng.Float64())
		}
	}
	for k := range 3 {
		for s := range enu {
			topo = append(topo, enu[s][k])
		}
	}
	var err error
	if c.Coords, err = matvis.NewPrecomputed(1, nsrc, topo); err != nil {
		t.Fatal(err)
	}
	obs := matvis.DefaultObservation(nant, matvis.Options{Polarized: true})
	obs.AntNums = []int{3, 0, 10, 2} // file order follows numbers, not indices
	obs.Baselines = matvis.LowerBaselines(obs.AntNums)
	if err := obs.Validate(nant, 1, len(freqs)); err != nil {
		t.Fatal(err)
	}
	orig := append([][3]float64(nil), c.Antennas...)
	obs.UseConventions(&c)
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	var worst, peak float64
	for fi, f := range freqs {
		for k, b := range obs.Baselines {
			a1, a2 := b[0], b[1]
			if obs.AntNums[a1] < obs.AntNums[a2] {
				t.Fatalf("baseline %d = %v: ant1 number %d < ant2 number %d", k, b, obs.AntNums[a1], obs.AntNums[a2])
			}
			for _, pol := range obs.Pols {
				p1, p2 := matvis.PolIndex(pol, true)
				var want complex128
				for s, v := range enu {
					if v[2] <= 0 {
						continue
					}
					az, za := matvis.AzZa(v[0], v[1])
					j1, j2 := c.Beams[c.BeamIdx[a1]].(complexBeam), c.Beams[c.BeamIdx[a2]].(complexBeam)
					var jj complex128
					for ax := range 2 {
						jj += j1.jones(p1, ax, az, za) * cmplx.Conj(j2.jones(p2, ax, az, za))
					}
					var bs float64
					for d := range 3 {
						bs += (orig[a2][d] - orig[a1][d]) * v[d]
					}
					ph := cmplx.Exp(complex(0, 2*math.Pi*f*bs/beam.SpeedOfLight))
					want += jj * complex(0.5*c.Flux[s*len(freqs)+fi], 0) * ph
				}
				got := res.At(fi, 0, k, p1, p2)
				worst = max(worst, cmplx.Abs(got-want))
				peak = max(peak, cmplx.Abs(want))
			}
		}
	}
	if worst > 1e-12*peak {
		t.Fatalf("engine vs pyuvsim's formula: max|Δ| = %.3g of peak %.3g", worst, peak)
	}
}

// TestLowerBaselines: pyuvsim's order (0,0) (1,0) (1,1) (2,0)… by number.
func TestLowerBaselines(t *testing.T) {
	got := matvis.LowerBaselines([]int{10, 0, 3})
	want := [][2]int{{1, 1}, {2, 1}, {2, 2}, {0, 1}, {0, 2}, {0, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
