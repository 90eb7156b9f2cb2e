package cpu

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// randomConfig draws a fresh random simulation: antennas in a 100 m
// square, sources uniform on the sphere (as ENU vectors, so about half are
// below the horizon), random fluxes, mixed analytic beams.
func randomConfig(rng *rand.Rand, nant, nsrc, nfreq, ntime int, o matvis.Options) matvis.Config {
	c := matvis.Config{Options: o}
	for range nant {
		c.Antennas = append(c.Antennas, [3]float64{rng.Float64()*100 - 50, rng.Float64()*100 - 50, rng.Float64() - 0.5})
	}
	for f := range nfreq {
		c.Freqs = append(c.Freqs, 100e6+5e6*float64(f))
	}
	topo := make([]float64, ntime*3*nsrc)
	for t := range ntime {
		for s := range nsrc {
			z := 2*rng.Float64() - 1
			phi := 2 * math.Pi * rng.Float64()
			r := math.Sqrt(1 - z*z)
			topo[(t*3+0)*nsrc+s] = r * math.Cos(phi)
			topo[(t*3+1)*nsrc+s] = r * math.Sin(phi)
			topo[(t*3+2)*nsrc+s] = z
		}
	}
	crd, _ := matvis.NewPrecomputed(ntime, nsrc, topo)
	c.Coords = crd
	c.RA = make([]float64, nsrc)
	c.Dec = make([]float64, nsrc)
	for range nsrc * nfreq {
		c.Flux = append(c.Flux, rng.Float64()*10)
	}
	c.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.4}, beam.ShortDipole{}, beam.Airy{DiameterM: 14}, beam.Uniform{}}
	for a := range nant {
		c.BeamIdx = append(c.BeamIdx, a%len(c.Beams))
	}
	return c
}

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

func vis(r *matvis.Result) []complex128 {
	if r.Precision == 1 {
		out := make([]complex128, len(r.Vis64))
		for i, v := range r.Vis64 {
			out[i] = complex128(v)
		}
		return out
	}
	return r.Vis128
}

func TestZenithSourceUniformBeam(t *testing.T) {
	for _, pol := range []bool{false, true} {
		for _, prec := range []int{1, 2} {
			crd, _ := matvis.NewPrecomputed(1, 1, []float64{0, 0, 1})
			c := matvis.Config{
				Antennas: [][3]float64{{0, 0, 0}, {14, 0, 0}, {3, -20, 1}},
				Freqs:    []float64{150e6},
				RA:       []float64{0}, Dec: []float64{0}, Flux: []float64{3.5},
				Beams:   []beam.Beam{beam.Uniform{}},
				Coords:  crd,
				Options: matvis.Options{Precision: prec, Polarized: pol},
			}
			res := mustRun(t, c, New())
			nf := 1
			if pol {
				nf = 2
			}
			for k := range 9 {
				for p := range nf {
					for q := range nf {
						v := res.At(0, 0, k, p, q)
						// x_a·ŝ = u_a for a zenith source: the phase is exp(i·2πν/c·(u_j − u_i)).
						i, j := k/3, k%3
						du := c.Antennas[j][2] - c.Antennas[i][2]
						ph := cmplx.Exp(complex(0, 2*math.Pi*150e6/beam.SpeedOfLight*du))
						// Uniform E-field components are all √½, so every feed pair, cross
						// feeds included, sees I/2.
						want := complex(3.5/2, 0) * ph
						if cmplx.Abs(v-want) > 1e-6*3.5 {
							t.Fatalf("pol=%v prec=%d pair %d feeds (%d,%d): V = %v, want %v", pol, prec, k, p, q, v, want)
						}
					}
				}
			}
		}
	}
}

func TestSwapConjugatesAndHorizon(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := randomConfig(rng, 6, 300, 2, 2, matvis.Options{Polarized: true})
	res := mustRun(t, c, New())
	sim, _ := matvis.New(c)
	nant := sim.NAnt()
	for f := range 2 {
		for tt := range 2 {
			for i := range nant {
				for j := range nant {
					for p := range 2 {
						for q := range 2 {
							a := res.At(f, tt, i*nant+j, p, q)
							b := res.At(f, tt, j*nant+i, q, p)
							if cmplx.Abs(a-cmplx.Conj(b)) > 1e-12*(1+cmplx.Abs(a)) {
								t.Fatalf("V_%d%d[%d%d] = %v, conj(V_%d%d[%d%d]) = %v", i, j, p, q, a, j, i, q, p, cmplx.Conj(b))
							}
						}
					}
				}
			}
		}
	}
	// Sources at or below the horizon contribute nothing: adding them,
	// however bright, leaves V unchanged.
	c2 := c
	topo := make([]float64, 0)
	nsrc := len(c.RA)
	extra := 50
	for tt := range 2 {
		e, n, u := make([]float64, nsrc), make([]float64, nsrc), make([]float64, nsrc)
		c.Coords.ENU(tt, e, n, u)
		for k, comp := range [][]float64{e, n, u} {
			topo = append(topo, comp...)
			for x := range extra {
				switch k {
				case 0:
					topo = append(topo, math.Cos(float64(x)))
				case 1:
					topo = append(topo, 0)
				case 2:
					topo = append(topo, -float64(x%3)*0.1) // u ≤ 0, including exactly 0
				}
			}
		}
	}
	c2.Coords, _ = matvis.NewPrecomputed(2, nsrc+extra, topo)
	c2.RA = make([]float64, nsrc+extra)
	c2.Dec = make([]float64, nsrc+extra)
	c2.Flux = append(append([]float64(nil), c.Flux...), make([]float64, 2*extra)...)
	for i := len(c.Flux); i < len(c2.Flux); i++ {
		c2.Flux[i] = 1e6
	}
	res2 := mustRun(t, c2, New())
	a, b := vis(res), vis(res2)
	for i := range a {
		if cmplx.Abs(a[i]-b[i]) > 1e-12*(1+cmplx.Abs(a[i])) {
			t.Fatalf("below-horizon sources changed V[%d]: %v → %v", i, a[i], b[i])
		}
	}
}

// TestVariantsAgree checks chunked vs unchunked, pairs vs herk, gonum vs
// system BLAS, fp32 vs fp64 on fresh random inputs.
func TestVariantsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 3))
	for _, pol := range []bool{false, true} {
		base := randomConfig(rng, 7, 500, 2, 2, matvis.Options{Polarized: pol})
		ref := vis(mustRun(t, base, NewWith(cblas.Gonum{}, 1)))
		variants := []struct {
			name string
			edit func(*matvis.Config)
			be   *Backend
			tol  float64
		}{
			{"chunked 7", func(c *matvis.Config) { c.Options.MinChunks = 7 }, New(), 1e-12},
			{"chunked 500", func(c *matvis.Config) { c.Options.MinChunks = 500 }, New(), 1e-12},
			{"system blas", func(c *matvis.Config) {}, New(), 1e-12},
			{"pairs", func(c *matvis.Config) { c.Options.MatProd = matvis.MatProdPairs }, New(), 1e-12},
			{"fp32", func(c *matvis.Config) { c.Options.Precision = 1 }, New(), 1e-5},
			{"fp32 pairs chunked", func(c *matvis.Config) {
				c.Options.Precision, c.Options.MatProd, c.Options.MinChunks = 1, matvis.MatProdPairs, 3
			}, New(), 1e-5},
		}
		for _, v := range variants {
			c := base
			v.edit(&c)
			got := vis(mustRun(t, c, v.be))
			if e := relErr(got, ref); !(e <= v.tol) {
				t.Errorf("pol=%v %s: max|ΔV|/max|V| = %g > %g", pol, v.name, e, v.tol)
			}
		}
	}
}

func TestAntPairsSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := randomConfig(rng, 5, 200, 1, 1, matvis.Options{Polarized: true})
	full := mustRun(t, base, New())
	pairs := [][2]int{{3, 1}, {2, 2}, {1, 3}, {0, 4}}
	for _, mp := range []matvis.MatProd{matvis.MatProdHerk, matvis.MatProdPairs} {
		c := base
		c.Options.AntPairs = pairs
		c.Options.MatProd = mp
		sub := mustRun(t, c, New())
		for k, p := range pairs {
			for a := range 2 {
				for b := range 2 {
					want := full.At(0, 0, p[0]*5+p[1], a, b)
					if got := sub.At(0, 0, k, a, b); cmplx.Abs(got-want) > 1e-12*(1+cmplx.Abs(want)) {
						t.Fatalf("%s pair %v: %v, want %v", mp, p, got, want)
					}
				}
			}
		}
	}
}

// TestAgainstPlainLoop compares the whole pipeline with a direct sum of the
// visibility equation (conventions §1), no matrices.
func TestAgainstPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 9))
	for _, pol := range []bool{false, true} {
		c := randomConfig(rng, 4, 120, 2, 1, matvis.Options{Polarized: pol})
		res := mustRun(t, c, New())
		sim, _ := matvis.New(c)
		nsrc, nf := sim.NSrc(), sim.NFeed()
		e, n, u := make([]float64, nsrc), make([]float64, nsrc), make([]float64, nsrc)
		c.Coords.ENU(0, e, n, u)
		for fi, freq := range c.Freqs {
			resp := make([][]complex128, len(c.Beams))
			for b, bm := range c.Beams {
				r, _ := bm.At(freq, sim.Mode)
				resp[b] = make([]complex128, nsrc*nf*nf)
				az, za := make([]float64, nsrc), make([]float64, nsrc)
				for s := range nsrc {
					az[s], za[s] = matvis.AzZa(e[s], n[s])
				}
				r.Eval(az, za, resp[b])
			}
			for k, pr := range sim.Pairs {
				i, j := pr[0], pr[1]
				for p := range nf {
					for q := range nf {
						var want complex128
						for s := range nsrc {
							if u[s] <= 0 {
								continue
							}
							flux := c.Flux[s*len(c.Freqs)+fi]
							ph := func(a int) complex128 {
								x := c.Antennas[a]
								return cmplx.Exp(complex(0, 2*math.Pi*freq/beam.SpeedOfLight*(x[0]*e[s]+x[1]*n[s]+x[2]*u[s])))
							}
							for ax := range nf {
								zi := resp[sim.BeamOf[i]][(q*nf+ax)*nsrc+s] * ph(i)
								zj := resp[sim.BeamOf[j]][(p*nf+ax)*nsrc+s] * ph(j)
								want += complex(0.5*flux, 0) * cmplx.Conj(zi) * zj
							}
						}
						got := res.At(fi, 0, k, p, q)
						if cmplx.Abs(got-want) > 1e-10*(1+cmplx.Abs(want)) {
							t.Fatalf("pol=%v f=%d pair (%d,%d) feeds (%d,%d): %v, want %v", pol, fi, i, j, p, q, got, want)
						}
					}
				}
			}
		}
	}
}

func TestCancelKeepsFinishedWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomConfig(rng, 4, 100, 3, 3, matvis.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	c.Options.Progress = func(p matvis.Progress) {
		if p.Done == 4 {
			cancel()
		}
	}
	sim, _ := matvis.New(c)
	res, err := New().Run(ctx, sim)
	if err == nil {
		t.Fatal("no error after cancel")
	}
	full := mustRun(t, func() matvis.Config { c.Options.Progress = nil; return c }(), New())
	n := 0
	for i, d := range res.Done {
		if !d {
			continue
		}
		n++
		f, tt := i/3, i%3
		for k := range 16 {
			if res.At(f, tt, k, 0, 0) != full.At(f, tt, k, 0, 0) {
				t.Fatalf("finished integration (%d,%d) differs", f, tt)
			}
		}
	}
	if n != 4 {
		t.Fatalf("%d integrations marked done, want 4", n)
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
	c := randomConfig(rng, 3, 100, 1, 1, matvis.Options{})
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
		base := randomConfig(rng, 7, 3000, 2, 2, matvis.Options{Polarized: pol})
		base.Freqs = []float64{100e6, 200e6}
		base.Beams = []beam.Beam{g3, g1, beam.Airy{DiameterM: 14}}
		for a := range base.BeamIdx {
			base.BeamIdx[a] = a % 3
		}
		plain := base
		plain.Beams = []beam.Beam{hidden{g3}, hidden{g1}, beam.Airy{DiameterM: 14}}
		ref := vis(mustRun(t, plain, NewWith(cblas.Gonum{}, 1)))
		for _, chunks := range []int{1, 4} {
			for _, workers := range []int{1, 3} {
				c := base
				c.Options.MinChunks = chunks
				got := vis(mustRun(t, c, NewWith(cblas.Gonum{}, workers)))
				e := relErr(got, ref)
				t.Logf("pol=%v chunks %d workers %d: max|ΔV|/max|V| = %.3g", pol, chunks, workers, e)
				if !(e <= 1e-12) {
					t.Errorf("pol=%v chunks %d workers %d: max|ΔV|/max|V| = %g > 1e-12", pol, chunks, workers, e)
				}
			}
		}
	}
}

// powerLaw is a Spectrum with S = S0·(f/f0)^α per source.
type powerLaw struct {
	s0, alpha []float64
	f0        float64
}

func (p powerLaw) StokesIAt(f float64, dst []float64) error {
	for s := range dst {
		dst[s] = p.s0[s] * math.Pow(f/p.f0, p.alpha[s])
	}
	return nil
}

// TestSkySpectrumEqualsTable: a sky given as a spectral model, evaluated
// channel by channel, gives exactly the visibilities of the same fluxes
// written out as a table; a model that turns NaN at some channel is an
// error naming that channel.
func TestSkySpectrumEqualsTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 11))
	for _, pol := range []bool{false, true} {
		c := randomConfig(rng, 5, 300, 3, 2, matvis.Options{Polarized: pol, MinChunks: 2})
		nf := len(c.Freqs)
		pl := powerLaw{f0: 100e6}
		for range c.RA {
			pl.s0 = append(pl.s0, 0.1+rng.Float64()*10)
			pl.alpha = append(pl.alpha, -2+rng.Float64()*2)
		}
		for s := range c.RA {
			for fi, f := range c.Freqs {
				c.Flux[s*nf+fi] = pl.s0[s] * math.Pow(f/pl.f0, pl.alpha[s])
			}
		}
		want := vis(mustRun(t, c, New()))
		c.Flux, c.Sky = nil, pl
		got := vis(mustRun(t, c, New()))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("polarized=%v: V[%d] = %v from the spectrum, %v from the table", pol, i, got[i], want[i])
			}
		}
		pl.s0[7] = math.NaN()
		sim, err := matvis.New(c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New().Run(context.Background(), sim)
		if err == nil || !strings.Contains(err.Error(), "source 7") || !strings.Contains(err.Error(), "freqs[0]") {
			t.Fatalf("NaN flux from the spectrum: error %v, want one naming source 7 at freqs[0]", err)
		}
	}
}
