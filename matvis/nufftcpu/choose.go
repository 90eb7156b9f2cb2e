package nufftcpu

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// The chooser decides, per run, between the transform and the direct
// product. The cost model (run.cost, run.directCost) settles the clear
// cases: an estimate clearMargin times the other's is taken to be
// outside the model's error (its constants were measured on one machine;
// at issue 29's two shapes its estimates came within 1.3× of the runs'
// CPU times, 2026-12-01), and measuring costs time a small run cannot
// spare — the 8-antenna, 10⁵-source run of issue 29 must not run slower
// than the direct product alone. Between the
// margins, for a run of minTrialIntegrations or more, the chooser
// measures on the machine at hand: the run's first
// integration as transforms (kept when the transform is chosen) against
// the direct backend on two subsets of the sources at that integration,
// extrapolated linearly to all of them; and remembers the measurement for
// later runs of the same shape.

// clearMargin is the ratio of the model's estimates beyond which the
// chooser does not measure.
const clearMargin = 3

// minTrialIntegrations is the fewest integrations a run must have for a
// close call to be measured: the trial costs about one integration as
// transforms and a few tenths of one on the direct product, which only
// a run of several integrations (or later runs of its shape) earns back;
// a shorter one takes the lower estimate.
const minTrialIntegrations = 8

// estimates are the cost model's seconds an integration, and the run's
// integrations.
type estimates struct {
	nufft, direct float64
	nint          int
}

// measured are the trial's seconds an integration, and whether they come
// from an earlier run of the same shape.
type measured struct {
	nufft, direct float64
	cached        bool
}

// choose decides from the model's estimates e or, when they are within
// clearMargin of each other, from the measurement m (nil: not measured
// yet, and needTrial is then true, unless the run is too short to earn a
// trial back: then the lower estimate). why says what decided and on
// what numbers.
func choose(e estimates, m *measured) (nufft bool, why string, needTrial bool) {
	model := fmt.Sprintf("the transform is estimated %.3g s a time against %.3g s direct", e.nufft, e.direct)
	switch {
	case e.direct > clearMargin*e.nufft:
		return true, "chooser: cost model, " + model, false
	case e.nufft > clearMargin*e.direct:
		return false, "chooser: cost model, " + model, false
	case m == nil && e.nint < minTrialIntegrations:
		return e.nufft < e.direct, fmt.Sprintf("chooser: cost model, %s: within %d× of each other, and %d integrations are too few to measure (%d)", model, clearMargin, e.nint, minTrialIntegrations), false
	case m == nil:
		return false, "", true
	}
	src := "measured"
	if m.cached {
		src = "measured in an earlier run of this shape"
	}
	why = fmt.Sprintf("chooser: %s, the transform %.3g s a time against %.3g s direct (%s: within %d× of each other)", src, m.nufft, m.direct, model, clearMargin)
	return m.nufft <= m.direct, why, false
}

// shape is what a measurement is remembered by: what the two paths'
// costs depend on.
type shape struct {
	nant, nsrc, npairs, nfeed, precision int
	dim, terms, jobs                     int
	freq                                 float64 // the highest channel's
}

// shapeOf is r's shape.
func (r *run) shapeOf() shape {
	sim := r.sim
	return shape{sim.NAnt(), sim.NSrc(), len(sim.Pairs), sim.NFeed(), sim.Options.Precision, r.dim, r.terms, 1 + len(r.jobs), sim.Freqs[r.top]}
}

// remembered returns the measurement of an earlier run of shape s, in
// this process or in the trial cache.
func (b *Backend) remembered(s shape) *measured {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.trials[s]
	if !ok {
		if m, ok = b.diskTrial(s); !ok {
			return nil
		}
		b.keep(s, m)
	}
	m.cached = true
	return &m
}

// remember keeps m for later runs of shape s, in this process and in the
// trial cache.
func (b *Backend) remember(s shape, m measured) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keep(s, m)
	b.keepTrial(s, m)
}

// keep holds m for shape s in this process (b.mu held).
func (b *Backend) keep(s shape, m measured) {
	if b.trials == nil {
		b.trials = make(map[shape]measured)
	}
	b.trials[s] = m
}

// trial measures r's first integration as transforms (leaving it in
// r.res) and the direct product's time for one integration.
func (b *Backend) trial(ctx context.Context, r *run) (measured, error) {
	t0 := time.Now()
	if err := r.loop(ctx, 1); err != nil {
		return measured{}, err
	}
	tn := time.Since(t0).Seconds()
	td, err := b.directTrial(ctx, r.sim)
	if err != nil {
		return measured{}, err
	}
	return measured{nufft: tn, direct: td}, nil
}

// directTrial is the direct backend's time for sim's first integration
// at its highest channel: timed on n and 2n of its sources (every k-th,
// n about a sixteenth of them and at least 1024), after one untimed run
// on n (the first run's allocations and cold caches are not the run's
// cost), extrapolated linearly, so that the direct backend's fixed costs
// are not multiplied.
func (b *Backend) directTrial(ctx context.Context, sim *matvis.Simulation) (float64, error) {
	nsrc := sim.NSrc()
	n := min(nsrc, max(1024, nsrc/16))
	warm, err := trialSim(ctx, sim, n)
	if err != nil {
		return 0, fmt.Errorf("nufftcpu: the direct trial: %w", err)
	}
	if _, err := b.direct.Run(ctx, warm); err != nil {
		return 0, fmt.Errorf("nufftcpu: the direct trial: %w", err)
	}
	var t [2]float64
	for i, k := range []int{n, min(2*n, nsrc)} {
		sub, err := trialSim(ctx, sim, k)
		if err != nil {
			return 0, fmt.Errorf("nufftcpu: the direct trial: %w", err)
		}
		t0 := time.Now()
		if _, err := b.direct.Run(ctx, sub); err != nil {
			return 0, fmt.Errorf("nufftcpu: the direct trial: %w", err)
		}
		t[i] = time.Since(t0).Seconds()
	}
	if 2*n > nsrc {
		return t[1], nil
	}
	slope := max(t[1]-t[0], 0) / float64(n)
	return t[1] + slope*float64(nsrc-2*n), nil
}

// trialSim is sim's first time at its highest channel with k of its
// sources, evenly spaced in sim's order, at their ENU directions then. The
// ENU of every source (seconds for 10⁷ of them) stops on ctx's cancel.
func trialSim(ctx context.Context, sim *matvis.Simulation, k int) (*matvis.Simulation, error) {
	nsrc := sim.NSrc()
	var enu [3][]float64
	for d := range enu {
		enu[d] = make([]float64, nsrc)
	}
	if err := matvis.ENUContext(ctx, sim.Coords, 0, enu[0], enu[1], enu[2]); err != nil {
		return nil, err
	}
	top := sim.TopChannel()
	flux := make([]float64, nsrc)
	if err := sim.FluxAt(top, flux); err != nil {
		return nil, err
	}
	data := make([]float64, 3*k)
	c := matvis.Config{Antennas: sim.Antennas, Freqs: []float64{sim.Freqs[top]}, Beams: sim.Beams, BeamIdx: sim.BeamOf, Options: sim.Options}
	c.RA, c.Dec, c.Flux = make([]float64, k), make([]float64, k), make([]float64, k)
	for i := range k {
		s := i * nsrc / k
		for d := range enu {
			data[d*k+i] = enu[d][s]
		}
		c.Flux[i] = flux[s]
	}
	coords, err := matvis.NewPrecomputed(1, k, data)
	if err != nil {
		return nil, err
	}
	c.Coords = coords
	c.Options.AntPairs, c.Options.OutputTimes, c.Options.Progress = sim.Pairs, 0, nil
	return matvis.New(c)
}

// lowerBound is a plan-free estimate for sim, made before any plan: the
// transforms' part a lower bound (one 2-D transform set to every target
// at the highest channel, as if coplanar with one beam; w-terms and beam
// groups only add), so that where even it is clearMargin times the
// direct product's estimate the run goes to the direct product without
// paying for a plan's set-up (its targets' corrections, tens of
// milliseconds for 10⁵ pairs).
func (b *Backend) lowerBound(sim *matvis.Simulation) (estimates, error) {
	top := sim.TopChannel()
	omega := 2 * math.Pi * sim.Freqs[top] / beam.SpeedOfLight
	s := [][]float64{make([]float64, len(sim.Pairs)), make([]float64, len(sim.Pairs))}
	for k, p := range sim.Pairs {
		for d := range s {
			s[d][k] = omega * (sim.Antennas[p[1]][d] - sim.Antennas[p[0]][d])
		}
	}
	eps := b.eps
	if sim.Options.Precision == 1 {
		eps = max(eps, fp32Eps)
	}
	real := sim.NFeed() == 1
	grid, w, err := nufft.Shape([][]float64{{-1, 1}, {-1, 1}}, s, nufft.Options{Eps: eps, Sign: 1, MaxGrid: maxGrid, Real: real})
	if err != nil {
		return estimates{}, err
	}
	targets, transforms := len(sim.Pairs), 1
	if real {
		targets /= 2 // at best one of each pair and its reverse
	} else {
		transforms = 2 // at best the paired polarized transforms
	}
	nvis := float64(sim.NSrc()) / 2
	return estimates{
		nufft:  1e-9 * (transformCost(w, 2, grid, nvis, targets, real)*float64(transforms) + nsSource*nvis),
		direct: 1e-9 * directCost(sim.NAnt(), sim.NSrc(), sim.NFeed()),
		nint:   sim.NFreq() * sim.NTime(),
	}, nil
}
