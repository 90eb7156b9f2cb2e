package cpu

import (
	"context"
	"math/rand/v2"
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
// the horizon), in fp32 and fp64, with and without
// the flush (flush.go). Each iteration runs the four cases once,
// interleaved, so a shared machine's noise falls on all alike; the
// metrics are ms per integration (whole run, its Gram and its τ/Z stages) and the
// ratios fp32/fp64 with and without the flush. Run it under different
// OPENBLAS_CORETYPE values to see the kernels' subnormal handling.
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
	total := make([]time.Duration, len(cases))
	gram := make([]time.Duration, len(cases))
	tauz := make([]time.Duration, len(cases))
	run := func(i int) {
		be := NewWith(h, 0)
		be.noFlush = cases[i].noFlush
		res, err := be.Run(context.Background(), sims[i])
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range res.Stats.Integrations {
			total[i] += d
		}
		for _, ch := range res.Stats.Chunks {
			gram[i] += ch.Stages[matvis.StageMatProd]
			tauz[i] += ch.Stages[matvis.StageTauZ]
		}
	}
	for i := range cases {
		run(i) // warm-up: thread pools, page faults
	}
	clear(total)
	clear(gram)
	clear(tauz)
	for b.Loop() {
		for i := range cases {
			run(i)
		}
	}
	n := float64(b.N)
	for i, cs := range cases {
		b.ReportMetric(total[i].Seconds()*1e3/n, "ms_"+cs.name)
		b.ReportMetric(gram[i].Seconds()*1e3/n, "ms_gram_"+cs.name)
		b.ReportMetric(tauz[i].Seconds()*1e3/n, "ms_tauz_"+cs.name)
	}
	b.ReportMetric(float64(total[0])/float64(total[1]), "x_fp32/fp64_noflush")
	b.ReportMetric(float64(total[2])/float64(total[3]), "x_fp32/fp64_flush")
	b.ReportMetric(float64(total[0])/float64(total[2]), "x_fp32_noflush/flush")
	b.Logf("%s", cblas.Describe(h))
}
