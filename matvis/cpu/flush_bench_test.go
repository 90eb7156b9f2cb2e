package cpu

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// BenchmarkDeepSidelobeSky is finding 8's end-to-end check: the dev shape
// (64 antennas, polarized, so a 128-row Gram; 20 000 sources, one chunk)
// on a deep-sidelobe sky (every source above the horizon, uniform on the
// hemisphere, seen by dev's 14 m Gaussian at 100 MHz, σ = 0.129 rad: the
// 39 % of sources beyond za = 67° are over 1e-18 down the beam, 7e-33 at
// the horizon), in fp32 and fp64, with and without the flush (flush.go).
// Each iteration runs the four cases once, interleaved (forwards and
// backwards in turn), so a shared machine's noise falls on all alike; the
// metrics are median ms per integration (whole, its Gram and its τ/Z
// stages) and the medians over iterations of same-iteration ratios. Run it
// under different OPENBLAS_CORETYPE values to see the kernels' subnormal
// handling.
func BenchmarkDeepSidelobeSky(b *testing.B) {
	c := deepSidelobeConfig(rand.New(rand.NewPCG(8, 3)), 64, 20_000, 1, matvis.Options{Polarized: true})
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	clear(c.BeamIdx)
	h := cblas.Best()
	cases := []struct {
		name    string
		prec    int
		noFlush bool
	}{{"fp32_noflush", 1, true}, {"fp64_noflush", 2, true}, {"fp32_flush", 1, false}, {"fp64_flush", 2, false}}
	sims := make([]*matvis.Simulation, len(cases))
	for i, cs := range cases {
		ci := c
		ci.Options.Precision = cs.prec
		sim, err := matvis.New(ci)
		if err != nil {
			b.Fatal(err)
		}
		sims[i] = sim
	}
	total := make(interleaved, len(cases))
	gram := make(interleaved, len(cases))
	tauz := make(interleaved, len(cases))
	run := func(i int) {
		be := NewWith(h, 0)
		be.noFlush = cases[i].noFlush
		res, err := be.Run(context.Background(), sims[i])
		if err != nil {
			b.Fatal(err)
		}
		var g, tz time.Duration
		for _, ch := range res.Stats.Chunks {
			g += ch.Stages[matvis.StageMatProd]
			tz += ch.Stages[matvis.StageTauZ]
		}
		total.add(i, res.Stats.Integrations[0])
		gram.add(i, g)
		tauz.add(i, tz)
	}
	for i := range cases {
		run(i) // warm-up: thread pools, page faults
	}
	for i := range cases {
		total[i], gram[i], tauz[i] = nil, nil, nil
	}
	for b.Loop() {
		for _, i := range total.order() {
			run(i)
		}
	}
	for i, cs := range cases {
		b.ReportMetric(total.medianMs(i), "ms_"+cs.name)
		b.ReportMetric(gram.medianMs(i), "ms_gram_"+cs.name)
		b.ReportMetric(tauz.medianMs(i), "ms_tauz_"+cs.name)
	}
	b.ReportMetric(total.ratio(0, 1), "x_fp32/fp64_noflush")
	b.ReportMetric(total.ratio(2, 3), "x_fp32/fp64_flush")
	b.ReportMetric(total.ratio(0, 2), "x_fp32_noflush/flush")
	b.ReportMetric(gram.ratio(0, 1), "x_gram_fp32/fp64_noflush")
	b.ReportMetric(gram.ratio(2, 3), "x_gram_fp32/fp64_flush")
	b.ReportMetric(tauz.ratio(2, 0), "x_tauz_fp32_flush/noflush")
	b.Logf("%s", cblas.Describe(h))
}

// BenchmarkBuildZFlush is the flush's cost: buildZ (beams, τ, Z; fp32, the
// deep-sidelobe dev shape of BenchmarkDeepSidelobeSky) with and without the
// scaling and flushing, interleaved; the metrics are the median ms of each
// and the median same-iteration ratio.
func BenchmarkBuildZFlush(b *testing.B) {
	c := deepSidelobeConfig(rand.New(rand.NewPCG(8, 3)), 64, 20_000, 1, matvis.Options{Polarized: true, Precision: 1})
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	clear(c.BeamIdx)
	ins := []zInputs{
		newZInputs(b, c, &Backend{herk: cblas.Gonum{}, workers: runtime.GOMAXPROCS(0), noFlush: true}),
		newZInputs(b, c, &Backend{herk: cblas.Gonum{}, workers: runtime.GOMAXPROCS(0)}),
	}
	t := make(interleaved, len(ins))
	for _, in := range ins {
		in.build(b) // warm-up: buffers
	}
	for b.Loop() {
		for _, i := range t.order() {
			t0 := time.Now()
			ins[i].build(b)
			t.add(i, time.Since(t0))
		}
	}
	b.ReportMetric(t.medianMs(0), "ms_noflush")
	b.ReportMetric(t.medianMs(1), "ms_flush")
	b.ReportMetric(t.ratio(1, 0), "x_flush/noflush")
}

// interleaved (as in package cblas's benchmarks) holds the per-iteration
// times of benchmark cases run one after another in every iteration;
// medians and same-iteration ratios resist the bursts of a shared machine
// better than totals.
type interleaved [][]time.Duration

// order is the order in which to run the cases in the next iteration:
// forwards and backwards in turn, since whichever case ran second in an
// iteration was measured up to 30 % slower on the shared machine.
func (s interleaved) order() []int {
	o := make([]int, len(s))
	for i := range o {
		o[i] = i
	}
	if len(s[0])%2 == 1 {
		slices.Reverse(o)
	}
	return o
}

// add records case i's time in the current iteration.
func (s interleaved) add(i int, d time.Duration) { s[i] = append(s[i], d) }

// medianMs is case i's median time in ms.
func (s interleaved) medianMs(i int) float64 {
	v := slices.Clone(s[i])
	slices.Sort(v)
	return v[len(v)/2].Seconds() * 1e3
}

// ratio is the median over iterations of case i's time over case ref's.
func (s interleaved) ratio(i, ref int) float64 {
	r := make([]float64, len(s[i]))
	for j := range r {
		r[j] = float64(s[i][j]) / float64(s[ref][j])
	}
	slices.Sort(r)
	return r[len(r)/2]
}
