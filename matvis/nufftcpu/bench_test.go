package nufftcpu

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

var benchFlag = flag.Bool("nufft-bench", false, "run TestBenchSideBySide (slow: seconds to minutes)")
var benchSrc = flag.Int("nufft-bench-src", 200000, "sources of TestBenchSideBySide")
var benchReps = flag.Int("nufft-bench-reps", 3, "runs of each backend in TestBenchSideBySide")
var benchNoDirect = flag.Bool("nufft-bench-nodirect", false, "time only this backend in TestBenchSideBySide")
var benchAnt = flag.Int("nufft-bench-ant", 350, "antennas of TestBenchSideBySide")
var benchForceJA = flag.Bool("nufft-bench-ja", false, "force the Jacobi–Anger w-terms in TestBenchSideBySide")
var benchPol = flag.Bool("nufft-bench-pol", false, "polarized TestBenchSideBySide")
var benchForce = flag.Bool("nufft-bench-force", false, "the chooser off (Backend.Force) in TestBenchSideBySide")
var benchGroups = flag.Int("nufft-bench-groups", 1, "beam groups of TestBenchSideBySide (antennas in turn, Gaussian beams of 14, 13, … m)")
var benchEps = flag.Float64("nufft-bench-eps", 1e-12, "the transform's ε in TestBenchSideBySide")
var benchDZ = flag.Float64("nufft-bench-dz", 0, "standard deviation (m) of the antennas' vertical jitter in TestBenchSideBySide (0: coplanar)")

// hexArray returns the n antennas nearest the centre of a hexagonal
// lattice of spacing d metres, each moved by a Gaussian jitter of sigma
// metres east and north and sigmaZ up: a HERA-like layout off the lattice.
func hexArray(rng *rand.Rand, n int, d, sigma, sigmaZ float64) [][3]float64 {
	var pts [][3]float64
	r := int(math.Ceil(math.Sqrt(float64(n)))) + 2
	for i := -r; i <= r; i++ {
		for j := -r; j <= r; j++ {
			pts = append(pts, [3]float64{d * (float64(i) + 0.5*float64(j)), d * math.Sqrt(3) / 2 * float64(j), 0})
		}
	}
	slices.SortFunc(pts, func(a, b [3]float64) int {
		return int(math.Copysign(1, math.Hypot(a[0], a[1])-math.Hypot(b[0], b[1])))
	})
	pts = pts[:n]
	for a := range pts {
		pts[a][0] += sigma * rng.NormFloat64()
		pts[a][1] += sigma * rng.NormFloat64()
		pts[a][2] += sigmaZ * rng.NormFloat64()
	}
	return pts
}

// TestBenchSideBySide times the direct CPU backend and this one on 350
// jittered hex antennas (14.6 m spacing, 3 cm jitter), one Gaussian 14 m
// beam (or -nufft-bench-groups groups), 150 MHz, one time, all pairs, fp64, sources uniform on the sphere
// (about half above the horizon), ε -nufft-bench-eps; -nufft-bench-reps runs each (3),
// alternating between the backends, medians of Stats.Total.
// Run with -nufft-bench.
func TestBenchSideBySide(t *testing.T) {
	if !*benchFlag {
		t.Skip("needs -nufft-bench")
	}
	sim := benchSim(t)
	nsrc := sim.NSrc()
	be, err := New(*benchEps, 0)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = *benchForce
	if *benchForceJA {
		be.Force, be.W = true, WJacobiAnger
	}
	direct := cpu.New()
	var nres, dres *matvis.Result
	var nd, dd []time.Duration
	var ncpu, dcpu []time.Duration
	for range *benchReps {
		time.Sleep(300 * time.Millisecond)
		c0 := cpuTime()
		nres = backendtest.MustRun(t, be, sim)
		nd = append(nd, nres.Stats.Total)
		ncpu = append(ncpu, cpuTime()-c0)
		if !*benchNoDirect {
			// OpenBLAS's threads spin a while after a call: a pause
			// keeps that out of the other backend's times.
			time.Sleep(300 * time.Millisecond)
			c0 = cpuTime()
			dres = backendtest.MustRun(t, direct, sim)
			dd = append(dd, dres.Stats.Total)
			dcpu = append(dcpu, cpuTime()-c0)
		}
	}
	slices.Sort(ncpu)
	slices.Sort(dcpu)
	t.Logf("process CPU time per run (both use 2 threads; less disturbed by other load than wall time): nufft median %v [min %v], direct median %v", ncpu[len(ncpu)/2], ncpu[0], func() any {
		if len(dcpu) == 0 {
			return "-"
		}
		return fmt.Sprintf("%v [min %v]", dcpu[len(dcpu)/2], dcpu[0])
	}())
	if *benchNoDirect {
		dres, dd = nres, nd
	}
	slices.Sort(nd)
	slices.Sort(dd)
	med := func(d []time.Duration) time.Duration { return d[len(d)/2] }
	e := backendtest.RelErr(backendtest.Vis(nres), backendtest.Vis(dres))
	st := nres.Stats.Chunks[0].Stages
	t.Logf("why: %s", nres.Stats.MatProdImpl.Why)
	t.Logf("polarized %v, %d sources (%d visible), %d pairs; %s", *benchPol, nsrc, nres.Stats.Chunks[0].NVisible, len(sim.Pairs), nres.Stats.MatProdImpl.Strategy)
	t.Logf("direct (%s): median %v [min %v, max %v]", dres.Stats.MatProdImpl.Strategy, med(dd), dd[0], dd[len(dd)-1])
	t.Logf("nufft: median %v [min %v, max %v] (last run: set-up %v, integration %v; stages: coords %v, beam %v, spread %v, fft+interp %v)",
		med(nd), nd[0], nd[len(nd)-1], nres.Stats.Setup, nres.Stats.Integrations[0], st[matvis.StageCoords], st[matvis.StageBeam], st[matvis.StageTauZ], st[matvis.StageMatProd])
	t.Logf("speed-up: medians %.2f x, minima %.2f x; max|dV|/max|V| = %.3g", med(dd).Seconds()/med(nd).Seconds(), dd[0].Seconds()/nd[0].Seconds(), e)
	if bar := max(1e-10, 10**benchEps); !(e <= bar) {
		t.Errorf("max|dV|/max|V| = %.3g > %g", e, bar)
	}
}

// benchSim is TestBenchSideBySide's simulation (see there), from the
// -nufft-bench-* flags.
func benchSim(t *testing.T) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(350, 2))
	c := hexConfigUp(t, rng, *benchAnt, *benchSrc, *benchDZ)
	c.Options.Polarized = *benchPol
	if g := *benchGroups; g > 1 {
		c.BeamIdx = make([]int, len(c.Antennas))
		for a := range c.BeamIdx {
			c.BeamIdx[a] = a % g
		}
		for k := 1; k < g; k++ {
			c.Beams = append(c.Beams, beam.Gaussian{DiameterM: 14 - float64(k)})
		}
	}
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
