package cpu

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

func mustRun(t *testing.T, c matvis.Config, b *Backend) *matvis.Result {
	t.Helper()
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() {
		t.Fatal("result not complete")
	}
	return res
}

// TestBLASVariantsAgree checks the CPU's own choices, which the backend
// suite does not see: gonum's herk on one worker against the system BLAS
// and against several workers, herk and pairs, on fresh random inputs.
func TestBLASVariantsAgree(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	for _, pol := range []bool{false, true} {
		for _, mp := range []matvis.MatProd{matvis.MatProdHerk, matvis.MatProdPairs} {
			c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 7, NSrc: 500, NFreq: 2, NTime: 2}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic,
				matvis.Options{Polarized: pol, MatProd: mp, MinChunks: 3})
			ref := backendtest.Vis(mustRun(t, c, NewWith(cblas.Gonum{}, 1)))
			for _, v := range []struct {
				name string
				be   *Backend
			}{{"system blas", New()}, {"gonum, 3 workers", NewWith(cblas.Gonum{}, 3)}} {
				got := backendtest.Vis(mustRun(t, c, v.be))
				if e := backendtest.RelErr(got, ref); !(e <= 1e-12) {
					t.Errorf("polarized %v %s %s: max|ΔV|/max|V| = %g > 1e-12", pol, mp, v.name, e)
				}
			}
		}
	}
}

// nanBeam answers NaN for sources west of the meridian.
type nanBeam struct{}

func (nanBeam) String() string { return "nan-beam" }
func (nanBeam) At(float64, beam.Mode) (beam.Response, error) {
	return nanResponse{}, nil
}

type nanResponse struct{}

func (nanResponse) Eval(az, za []float64, out []complex128) {
	for s := range az {
		out[s] = 1
		if az[s] > math.Pi/2 && az[s] < 3*math.Pi/2 {
			out[s] = cmplx.NaN()
		}
	}
}

func TestNonFiniteBeamIsAnError(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 3, NSrc: 100, NFreq: 1, NTime: 1}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{})
	c.Beams, c.BeamIdx = []beam.Beam{nanBeam{}}, nil
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New().Run(context.Background(), sim)
	if err == nil || !strings.Contains(err.Error(), "nan-beam") || !strings.Contains(err.Error(), "non-finite") {
		t.Fatalf("error %v", err)
	}
}

// hidden wraps a beam so that its responses are plain beam.Response values:
// the backend then evaluates them with Eval in sky order, without
// located directions or column ordering.
type hidden struct{ beam.Beam }

func (h hidden) At(f float64, m beam.Mode) (beam.Response, error) {
	r, err := h.Beam.At(f, m)
	if err != nil {
		return nil, err
	}
	return struct{ beam.Response }{r}, nil
}

// TestGriddedFastPathAgrees: gridded beams of two grid geometries (cubic
// and bilinear) beside an analytic one, in one and several chunks and on
// one and several workers, give the visibilities of the same beams
// evaluated by plain Eval calls in sky order, up to rounding.
func TestGriddedFastPathAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	g3, err := beam.NewGriddedFromAnalytic(beam.Gaussian{SigmaRad: 0.4}, []float64{100e6, 200e6}, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := g3.WithOrder(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []bool{false, true} {
		base := backendtest.Random(t, rng, backendtest.Shape{NAnt: 7, NSrc: 3000, NFreq: 2, NTime: 2}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Polarized: pol})
		base.Freqs = []float64{100e6, 200e6}
		base.Beams = []beam.Beam{g3, g1, beam.Airy{DiameterM: 14}}
		for a := range base.BeamIdx {
			base.BeamIdx[a] = a % 3
		}
		plain := base
		plain.Beams = []beam.Beam{hidden{g3}, hidden{g1}, beam.Airy{DiameterM: 14}}
		ref := backendtest.Vis(mustRun(t, plain, NewWith(cblas.Gonum{}, 1)))
		for _, chunks := range []int{1, 4} {
			for _, workers := range []int{1, 3} {
				c := base
				c.Options.MinChunks = chunks
				got := backendtest.Vis(mustRun(t, c, NewWith(cblas.Gonum{}, workers)))
				e := backendtest.RelErr(got, ref)
				t.Logf("pol=%v chunks %d workers %d: max|ΔV|/max|V| = %.3g", pol, chunks, workers, e)
				if !(e <= 1e-12) {
					t.Errorf("pol=%v chunks %d workers %d: max|ΔV|/max|V| = %g > 1e-12", pol, chunks, workers, e)
				}
			}
		}
	}
}

// TestStokesPoisonedZ runs the full-Stokes plain-loop comparison with Z
// buffers filled with NaN before each chunk writes them: every entry of
// both Gram operands (zero columns of the other sign included) must be
// written, or the comparison sees NaN.
func TestStokesPoisonedZ(t *testing.T) {
	be := New()
	be.poisonZ = true
	backendtest.StokesPlainLoop(t, be)
}
