package backendtest

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/multi"
)

// TestOverPairAntennasCPU: a simulation reduced to its pairs' antennas
// (matvis.Simulation.OverPairAntennas) has, on the CPU backend, the full
// simulation's visibilities: fresh random arrays, skies and beams
// (analytic and gridded, beam_idx mapping antennas to them), polarized
// and not, Stokes I and full-Stokes skies, both precisions, both matrix
// products and both Gram implementations (gonum's and the system
// CBLAS's), one and three chunks, pairs that use some antennas only, with
// auto-correlations, repeats and both orientations of a pair. Both runs
// write into NaN-poisoned outputs (SubsetInto's view of a result filled
// with NaN), so a visibility left unwritten fails too.
//
// The pairs product sums each pair's terms in the order the backend
// visits the sources, whatever the other antennas, so its visibilities
// agree bit for bit when both runs visit them alike. The CPU backend
// orders a chunk's sources by the grid column of its first used gridded
// beam, in sky order when it uses none (cpu.sortByColumn, "change only by
// rounding"): when the pairs' antennas use a different first gridded grid
// than the whole array, or none (only the analytic beam of BeamsGridded),
// the order differs and the pairs product gets the herk's rounding bar
// below. (Seed 1030 with the system CBLAS drew such a case for the fp64
// full-Stokes gridded run: ΔV 5e-15 of |V|, not bit for bit, about once
// in 120 random seeds.) A herk's
// sum for element (i, j) is not independent of where rows i and j lie in
// Z: gonum's complex64 dot peels one element when a row starts off a
// 16-byte boundary, and an optimised BLAS blocks rows by position, so
// the reduced run (other row indices) may round differently. Its bar is
// then rounding: max|ΔV| ≤ 1e-5 (fp32) or 1e-13 (fp64) of max|V|, the
// largest autocorrelation, which bounds every term sum Σ|Z_i||Z_j| by
// Cauchy–Schwarz; a wrong antenna, beam or pair moves visibilities by
// their own size.
func TestOverPairAntennasCPU(t *testing.T) {
	herks := []cblas.Herk{cblas.Gonum{}}
	if h := cblas.Best(); h.Name() != (cblas.Gonum{}).Name() {
		herks = append(herks, h)
	} else {
		t.Log("no system CBLAS loads here: gonum's herk only")
	}
	sh := Shape{NAnt: 14, NSrc: 700, NFreq: 2, NTime: 2}
	type tc struct {
		name   string
		sky    Sky
		beams  BeamSet
		stokes bool
		// analyticPairs puts the pairs on the antennas of BeamsGridded's
		// analytic beam: the reduced run uses no gridded beam and visits
		// the sources in another order than the whole array's.
		analyticPairs bool
		o             matvis.Options
	}
	var cases []tc
	for _, prec := range []int{1, 2} {
		for _, mp := range []matvis.MatProd{matvis.MatProdHerk, matvis.MatProdPairs} {
			base := matvis.Options{Precision: prec, MatProd: mp}
			pol := base
			pol.Polarized = true
			chunked := pol
			chunked.MinChunks = 3
			feedY := base
			feedY.Feed = beam.FeedY
			cases = append(cases,
				tc{name: "unpolarized analytic", o: base},
				tc{name: "unpolarized feed y gridded", beams: BeamsGridded, o: feedY},
				tc{name: "polarized analytic rotation sky", sky: SkyRotation, o: pol},
				tc{name: "polarized gridded 3 chunks", beams: BeamsGridded, o: chunked},
				tc{name: "full-Stokes analytic", stokes: true, o: pol},
				tc{name: "full-Stokes gridded 3 chunks", beams: BeamsGridded, stokes: true, o: chunked},
				tc{name: "full-Stokes gridded, pairs on the analytic beam", beams: BeamsGridded, stokes: true, analyticPairs: true, o: chunked},
			)
		}
	}
	for ci, c := range cases {
		hs := herks
		if c.o.MatProd == matvis.MatProdPairs {
			hs = herks[:1] // the pairs product calls no herk
		}
		for hi, h := range hs {
			name := fmt.Sprintf("%s fp%d %s %s", c.name, 32*c.o.Precision, c.o.MatProd, h.Name())
			t.Run(name, func(t *testing.T) {
				// Each subtest draws from its own seed and stream, logged
				// on failure, so that GOMATVIS_TEST_SEED and -run of the
				// one subtest reproduce it, with or without a CBLAS.
				rng := NewRNG(t, uint64(2800+2*ci+hi))
				o := c.o
				o.AntPairs = pairsOfSome(rng, sh.NAnt)
				cfg := Random(t, rng, sh, c.sky, c.beams, o)
				if c.stokes {
					cfg.Flux, cfg.Sky = nil, randomStokes(rng, sh.NSrc)
					cfg.PolBasis = randomBasis(rng, sh.NTime, sh.NSrc)
				}
				if c.analyticPairs {
					cfg.Options.AntPairs = pairsOnAnalytic(t, NewSim(t, cfg))
				}
				full := NewSim(t, cfg)
				red, ok := full.OverPairAntennas()
				if !ok || red.NAnt() >= full.NAnt() {
					t.Fatalf("pairs %v over %d antennas: not reduced (%v, %d antennas)", o.AntPairs, full.NAnt(), ok, red.NAnt())
				}
				be := cpu.NewWith(h, 0)
				want := poisonedRun(t, be, full, false)
				got := poisonedRun(t, be, full, true)
				if !slices.Equal(got.Shape, want.Shape) || got.Precision != want.Precision {
					t.Fatalf("reduced: shape %v precision %d, full: %v %d", got.Shape, got.Precision, want.Shape, want.Precision)
				}
				g, w := Vis(got), Vis(want)
				sameOrder := slices.EqualFunc(firstGriddedGrid(full), firstGriddedGrid(red), slices.Equal)
				if c.analyticPairs && (sameOrder || firstGriddedGrid(red) != nil) {
					t.Fatalf("pairs %v: the reduced run uses a gridded beam or orders the sources as the whole array does", o.AntPairs)
				}
				same := true
				for i := range w {
					if math.Float64bits(real(g[i])) != math.Float64bits(real(w[i])) || math.Float64bits(imag(g[i])) != math.Float64bits(imag(w[i])) {
						same = false
						if c.o.MatProd == matvis.MatProdPairs && sameOrder {
							t.Fatalf("%d of %d antennas (%d of %d beams): visibility %d is %v over the pairs' antennas, %v over all",
								red.NAnt(), full.NAnt(), len(red.Beams), len(full.Beams), i, g[i], w[i])
						}
					}
				}
				bar := 1e-13
				if c.o.Precision == 1 {
					bar = 1e-5
				}
				if e := RelErr(g, w); e > bar {
					t.Fatalf("%d of %d antennas (%d of %d beams): max|ΔV|/max|V| = %.3g over the pairs' antennas, bar %g",
						red.NAnt(), full.NAnt(), len(red.Beams), len(full.Beams), e, bar)
				} else if !same {
					t.Logf("%s, same source order %v: max|ΔV|/max|V| = %.3g (rounding: not bit for bit)", c.o.MatProd, sameOrder, e)
				}
				// Not all zero: the comparison compares something.
				if m := maxAbs(w); !(m > 0) {
					t.Fatalf("every visibility is %v", m)
				}
				t.Logf("%d of %d antennas, %d of %d beams, %d pairs: %d visibilities, bit for bit: %v",
					red.NAnt(), full.NAnt(), len(red.Beams), len(full.Beams), len(red.Pairs), len(w), same)
			})
		}
	}
}

// firstGriddedGrid is the azimuth and zenith-angle axes of the first
// gridded beam that an antenna of sim uses, the grid by whose columns the
// CPU backend orders the sources (nil when no antenna uses one: sky
// order).
func firstGriddedGrid(sim *matvis.Simulation) [][]float64 {
	for bi, b := range sim.Beams {
		if g, ok := b.(*beam.Gridded); ok && slices.Contains(sim.BeamOf, bi) {
			return [][]float64{g.Az(), g.Za()}
		}
	}
	return nil
}

// pairsOnAnalytic is every pair, autos included, of the antennas of sim
// whose beam is not gridded; it fails t when there is none.
func pairsOnAnalytic(t *testing.T, sim *matvis.Simulation) [][2]int {
	t.Helper()
	var ants []int
	for a, bi := range sim.BeamOf {
		if _, gridded := sim.Beams[bi].(*beam.Gridded); !gridded {
			ants = append(ants, a)
		}
	}
	if len(ants) == 0 {
		t.Fatal("no antenna has the analytic beam")
	}
	var p [][2]int
	for i, a := range ants {
		for _, b := range ants[i:] {
			p = append(p, [2]int{a, b})
		}
	}
	return p
}

// pairsOfSome draws pairs among a random half of nant antennas (at least
// three), with an auto-correlation, a pair in both orientations and a
// repeat among them.
func pairsOfSome(rng *rand.Rand, nant int) [][2]int {
	ants := rng.Perm(nant)[:max(3, nant/2)]
	pick := func() int { return ants[rng.IntN(len(ants))] }
	var p [][2]int
	for range 9 {
		p = append(p, [2]int{pick(), pick()})
	}
	a, b := ants[0], ants[1]
	return append(p, [2]int{a, a}, [2]int{a, b}, [2]int{b, a}, p[0])
}

// poisonedRun runs sim (reduced to its pairs' antennas when reduce is
// set) on be into a result of sim filled with NaN beforehand, and returns
// that result.
func poisonedRun(t *testing.T, be matvis.Backend, sim *matvis.Simulation, reduce bool) *matvis.Result {
	t.Helper()
	whole := matvis.NewResult(sim)
	nan := math.NaN()
	for i := range whole.Vis128 {
		whole.Vis128[i] = complex(nan, nan)
	}
	for i := range whole.Vis64 {
		whole.Vis64[i] = complex64(complex(nan, nan))
	}
	run, err := sim.SubsetInto(matvis.Block{F0: 0, F1: sim.NFreq(), T0: 0, T1: sim.NTime()}, whole)
	if err != nil {
		t.Fatal(err)
	}
	if reduce {
		run, _ = run.OverPairAntennas()
	}
	res, err := be.Run(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	checkResultShape(t, sim, res)
	if err := whole.PutBlock(matvis.Block{F0: 0, F1: sim.NFreq(), T0: 0, T1: sim.NTime()}, res); err != nil {
		t.Fatal(err)
	}
	if !whole.Complete() {
		t.Fatal("the whole result is not complete")
	}
	// The run wrote into whole's memory (the view SubsetInto made), so
	// the poison is gone from whole itself, not from a copy.
	if len(res.Vis128) > 0 && &res.Vis128[0] != &whole.Vis128[0] || len(res.Vis64) > 0 && &res.Vis64[0] != &whole.Vis64[0] {
		t.Fatal("the run's result does not lie in the poisoned output")
	}
	for i, v := range Vis(whole) {
		if cmplx.IsNaN(v) {
			t.Fatalf("visibility %d left unwritten (NaN)", i)
		}
	}
	return whole
}

func maxAbs(v []complex128) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, cmplx.Abs(x))
	}
	return m
}

// reducing is a backend that runs each simulation over its pairs'
// antennas, as the GPU backend's Run does, and counts the runs reduced.
type reducing struct {
	matvis.Backend
	reduced *int
}

func (r reducing) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	red, ok := sim.OverPairAntennas()
	if ok {
		*r.reduced++
	}
	return r.Backend.Run(ctx, red)
}

// TestOverPairAntennasMulti: a run over several backends that reduce
// their blocks (the GPU backend's path in matvis/multi: SubsetInto, then
// Run reduces) assembles the full simulation's result — blocks of single
// channels and of times, which SubsetInto lays into the shared result,
// and blocks it copies — bit for bit as one CPU run over all antennas
// (the pairs product: no herk whose rounding depends on row positions).
func TestOverPairAntennasMulti(t *testing.T) {
	rng := NewRNG(t, 29)
	sh := Shape{NAnt: 20, NSrc: 500, NFreq: 3, NTime: 4}
	for _, blocks := range []int{2, 3, 5, 12} {
		for _, pol := range []bool{false, true} {
			o := matvis.Options{Polarized: pol, MatProd: matvis.MatProdPairs, AntPairs: pairsOfSome(rng, sh.NAnt)}
			full := NewSim(t, Random(t, rng, sh, SkyRotation, BeamsGridded, o))
			want := MustRun(t, cpu.New(), full)
			var n [2]int
			m, err := multi.New([]matvis.Backend{reducing{cpu.New(), &n[0]}, reducing{cpu.New(), &n[1]}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m.Blocks = blocks
			got, err := m.Run(context.Background(), full)
			if err != nil {
				t.Fatal(err)
			}
			checkResultShape(t, full, got)
			if n[0]+n[1] != blocks {
				t.Errorf("%d blocks, %d runs reduced", blocks, n[0]+n[1])
			}
			g, w := Vis(got), Vis(want)
			for k := range w {
				if g[k] != w[k] || cmplx.IsNaN(g[k]) {
					t.Fatalf("%d blocks, polarized %v: visibility %d is %v, one run over all antennas gives %v", blocks, pol, k, g[k], w[k])
				}
			}
		}
	}
}
