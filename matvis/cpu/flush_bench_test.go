package cpu

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/interleave"

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
	c := deepSidelobeConfig(b, rand.New(rand.NewPCG(8, 3)), 64, 20_000, 1, matvis.Options{Polarized: true})
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
	total := interleave.New(len(cases))
	gram := interleave.New(len(cases))
	tauz := interleave.New(len(cases))
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
		total.Add(i, res.Stats.Integrations[0])
		gram.Add(i, g)
		tauz.Add(i, tz)
	}
	for i := range cases {
		run(i) // warm-up: thread pools, page faults
	}
	for i := range cases {
		total[i], gram[i], tauz[i] = nil, nil, nil
	}
	for b.Loop() {
		for _, i := range total.Order() {
			run(i)
		}
	}
	for i, cs := range cases {
		b.ReportMetric(total.MedianMs(i), "ms_"+cs.name)
		b.ReportMetric(gram.MedianMs(i), "ms_gram_"+cs.name)
		b.ReportMetric(tauz.MedianMs(i), "ms_tauz_"+cs.name)
	}
	b.ReportMetric(total.Ratio(0, 1), "x_fp32/fp64_noflush")
	b.ReportMetric(total.Ratio(2, 3), "x_fp32/fp64_flush")
	b.ReportMetric(total.Ratio(0, 2), "x_fp32_noflush/flush")
	b.ReportMetric(gram.Ratio(0, 1), "x_gram_fp32/fp64_noflush")
	b.ReportMetric(gram.Ratio(2, 3), "x_gram_fp32/fp64_flush")
	b.ReportMetric(tauz.Ratio(2, 0), "x_tauz_fp32_flush/noflush")
	b.Logf("%s", cblas.Describe(h))
}

// BenchmarkBuildZFlush is the flush's cost: buildZ (beams, τ, Z; fp32, the
// deep-sidelobe dev shape of BenchmarkDeepSidelobeSky) with and without the
// scaling and flushing, interleaved; the metrics are the median ms of each
// and the median same-iteration ratio.
func BenchmarkBuildZFlush(b *testing.B) {
	c := deepSidelobeConfig(b, rand.New(rand.NewPCG(8, 3)), 64, 20_000, 1, matvis.Options{Polarized: true, Precision: 1})
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	clear(c.BeamIdx)
	ins := []zInputs{
		newZInputs(b, c, &Backend{herk: cblas.Gonum{}, workers: runtime.GOMAXPROCS(0), noFlush: true}),
		newZInputs(b, c, &Backend{herk: cblas.Gonum{}, workers: runtime.GOMAXPROCS(0)}),
	}
	t := interleave.New(len(ins))
	for _, in := range ins {
		in.build(b) // warm-up: buffers
	}
	for b.Loop() {
		for _, i := range t.Order() {
			t0 := time.Now()
			ins[i].build(b)
			t.Add(i, time.Since(t0))
		}
	}
	b.ReportMetric(t.MedianMs(0), "ms_noflush")
	b.ReportMetric(t.MedianMs(1), "ms_flush")
	b.ReportMetric(t.Ratio(1, 0), "x_flush/noflush")
}
