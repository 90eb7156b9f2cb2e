package gpu

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

var (
	benchFlag = flag.Bool("gpu-bench", false, "run the prodslice and dev timings")
	benchOut  = flag.String("gpu-bench-out", "", "write the timing report (markdown) here too")
)

// openGPU opens the backend on device 0, closed when t ends, or skips t on
// a machine without a CUDA device.
func openGPU(t testing.TB) *Backend {
	t.Helper()
	b, err := Open(Options{})
	gputest.Require(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// TestNoDeviceError: without a device, Open must fail with ErrNoDevice so
// that --backend auto falls back to the CPU.
func TestNoDeviceError(t *testing.T) {
	b, err := Open(Options{})
	if err == nil {
		b.Close()
		t.Skip("a device is present; the no-device path is not reachable here")
	}
	if !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Open without a usable device: %v, want ErrNoDevice", err)
	}
}

type caseSpec struct {
	pol, p1, gridded, rot bool
	gridOnly              bool    // gridded beams only (no analytic one among them)
	fluxScale             float64 // fluxes times this (0: 1)
	chunks, nant, nsrc    int
	pairs                 bool
	order                 int
}

func (c caseSpec) String() string {
	return fmt.Sprintf("pol=%v p=%d grid=%v(order %d) rot=%v chunks=%d ants=%d src=%d pairs=%v", c.pol, map[bool]int{true: 1, false: 2}[c.p1], c.gridded, c.order, c.rot, c.chunks, c.nant, c.nsrc, c.pairs)
}

func buildSim(t testing.TB, rng *rand.Rand, c caseSpec) *matvis.Simulation {
	nt := 3
	cfg := matvis.Config{Freqs: []float64{100e6, 117.5e6}}
	for a := 0; a < c.nant; a++ {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*200 - 100, rng.Float64()*200 - 100, rng.Float64() * 2})
	}
	addRandomSources(rng, &cfg, c.nsrc, c.fluxScale)
	if c.rot {
		cfg.Coords = backendtest.NewRotation(rng, nt, c.nsrc)
	} else {
		cfg.Coords = backendtest.RandomTopo(t, rng, nt, c.nsrc)
	}
	if c.gridded {
		for b := 0; b < 3; b++ {
			prec := 2
			if c.p1 && b%2 == 0 {
				prec = 1 // float32 planes too
			}
			cfg.Beams = append(cfg.Beams, newTestGrid(t, fmt.Sprintf("grid%d", b), 72, 46, 0.4+0.2*float64(b), c.order, prec, testFreqs))
		}
		if !c.gridOnly {
			cfg.Beams = append(cfg.Beams, beam.Gaussian{SigmaRad: 0.5})
		}
	} else {
		cfg.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.5}, beam.Airy{DiameterM: 14}, beam.Uniform{}, beam.ShortDipole{}, beam.Gaussian{DiameterM: 10},
			beam.DiagonalJones{Beam: beam.Airy{DiameterM: 14}}, beam.DiagonalJones{Beam: beam.Gaussian{SigmaRad: 0.4}}}
	}
	cfg.BeamIdx = make([]int, c.nant)
	for a := range cfg.BeamIdx {
		cfg.BeamIdx[a] = rng.IntN(len(cfg.Beams))
	}
	cfg.Options = matvis.Options{Precision: 2, Polarized: c.pol, MinChunks: c.chunks}
	if c.p1 {
		cfg.Options.Precision = 1
	}
	if c.pairs {
		cfg.Options.AntPairs = randomPairs(rng, c.nant, 7)
	}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// addRandomSources adds nsrc sources uniform on the sphere to cfg, each
// with a flux per channel uniform in [0.1, 5.1) Jy (times fluxScale when
// not 0).
func addRandomSources(rng *rand.Rand, cfg *matvis.Config, nsrc int, fluxScale float64) {
	for s := 0; s < nsrc; s++ {
		cfg.RA = append(cfg.RA, rng.Float64()*2*math.Pi)
		cfg.Dec = append(cfg.Dec, math.Asin(rng.Float64()*2-1))
		for range cfg.Freqs {
			fl := rng.Float64()*5 + 0.1
			if fluxScale != 0 {
				fl *= fluxScale
			}
			cfg.Flux = append(cfg.Flux, fl)
		}
	}
}

// randomPairs are k random antenna pairs of nant antennas, then an
// autocorrelation (1, 1) and a pair listed reversed (2, 0).
func randomPairs(rng *rand.Rand, nant, k int) [][2]int {
	var pairs [][2]int
	for range k {
		pairs = append(pairs, [2]int{rng.IntN(nant), rng.IntN(nant)})
	}
	return append(pairs, [2]int{1, 1}, [2]int{2, 0})
}

// checkParity runs sim on g, logs max|Δ|/max|V| of its visibilities
// against the plain-loop twin (backendtest.Plain) as "parity NAME: ..."
// followed by note(result) when note is given, and fails the test over
// backendtest.Tolerance.
func checkParity(t *testing.T, g *Backend, sim *matvis.Simulation, name string, note func(*matvis.Result) string) {
	t.Helper()
	checkParityWith(t, g, sim, backendtest.Plain(t, sim), name, note)
}

// checkParityWith is checkParity with the twin's visibilities want of sim
// computed by the caller (once for several runs of one simulation).
func checkParityWith(t *testing.T, g *Backend, sim *matvis.Simulation, want []complex128, name string, note func(*matvis.Result) string) {
	t.Helper()
	got, err := g.Run(context.Background(), sim)
	if err != nil {
		t.Fatalf("%s: gpu: %v", name, err)
	}
	if !got.Complete() {
		t.Fatalf("%s: incomplete result", name)
	}
	e, tol := backendtest.RelErr(backendtest.Vis(got), want), backendtest.Tolerance(sim.Options.Precision)
	msg := fmt.Sprintf("parity %s: max|Δ|/max|V| = %.2e", name, e)
	if note != nil {
		msg += " " + note(got)
	}
	t.Log(msg)
	if !(e <= tol) {
		t.Errorf("parity %s: %.3e over %.0e", name, e, tol)
	}
}

// TestParityRandom: GPU vs the plain-loop twin on fresh random inputs,
// chunked and not, output NaN-poisoned by each run.
func TestParityRandom(t *testing.T) {
	g := openGPU(t)
	rng := sharedtest.RNG(t, 11)
	for _, c := range []caseSpec{
		{pol: true, p1: true, gridded: true, chunks: 1, nant: 7, nsrc: 2000 + rng.IntN(2000), order: 3, rot: true},
		{pol: true, p1: false, gridded: true, chunks: 3, nant: 6, nsrc: 2000 + rng.IntN(2000), order: 3, rot: true},
		{pol: false, p1: true, gridded: false, chunks: 3, nant: 8, nsrc: 2000 + rng.IntN(2000), pairs: true},
		{pol: false, p1: false, gridded: true, chunks: 2, nant: 5, nsrc: 2000 + rng.IntN(2000), order: 1},
	} {
		checkParity(t, g, buildSim(t, rng, c), fmt.Sprintf("random %v", c),
			func(r *matvis.Result) string { return fmt.Sprintf("(%d chunk samples)", len(r.Stats.Chunks)) })
	}
}

// benchSim is the canonical prodslice/dev configuration: polarized, one
// gridded beam per antenna (a 14 m Gaussian on 360 az × 181 za), random
// antennas in a 400 m square, sources uniform on the sphere.
func benchSim(t testing.TB, nant, nsrc, ntimes, chunks, prec int) *matvis.Simulation {
	return skySim(t, nant, nsrc, ntimes, chunks, prec, uniformSky)
}

// The precision gate's skies: fluxes uniform in [0.1, 1.1] Jy; one source
// in 20 011 at 10⁴ Jy among sources log-uniform in [10⁻³, 1] Jy; every
// source log-uniform in [10⁻³, 10⁻²] Jy.
const (
	uniformSky  = "uniform"
	brightFaint = "bright-plus-faint"
	allFaint    = "all-faint"
)

func skyFlux(rng *rand.Rand, sky string, s int) float64 {
	logU := func(lo, hi float64) float64 { return math.Exp(math.Log(lo) + rng.Float64()*math.Log(hi/lo)) }
	switch sky {
	case brightFaint:
		if s%20011 == 0 {
			return 1e4
		}
		return logU(1e-3, 1)
	case allFaint:
		return logU(1e-3, 1e-2)
	}
	return rng.Float64() + 0.1
}

// skySim is benchSim with the sky's fluxes drawn as sky says.
func skySim(t testing.TB, nant, nsrc, ntimes, chunks, prec int, sky string) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(uint64(nant), uint64(nsrc)))
	cfg := matvis.Config{Freqs: []float64{100e6}}
	for a := 0; a < nant; a++ {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*400 - 200, rng.Float64()*400 - 200, 0})
	}
	sigma := beam.Gaussian{DiameterM: 14}.Sigma(100e6)
	proto := newTestGrid(t, "gauss14", 360, 181, sigma, 3, prec, []float64{100e6})
	for a := 0; a < nant; a++ {
		// Distinct beam values sharing the raw grid: each is prepared and
		// uploaded on its own, as separate beams would be.
		b, err := proto.WithOrder(3)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Beams = append(cfg.Beams, b)
	}
	cfg.RA = make([]float64, nsrc)
	cfg.Dec = make([]float64, nsrc)
	cfg.Flux = make([]float64, nsrc)
	for s := range cfg.Flux {
		cfg.Flux[s] = skyFlux(rng, sky, s)
	}
	cfg.Coords = backendtest.NewRotation(rng, ntimes, nsrc)
	cfg.Options = matvis.Options{Precision: prec, Polarized: true, MinChunks: chunks}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// integrationGPUTimes sums the stage times of each integration's chunks.
func integrationGPUTimes(res *matvis.Result) (perInt []float64, perChunk [matvis.NumStages][]float64, chunkTotal []float64) {
	m := map[[2]int]float64{}
	var keys [][2]int
	for _, c := range res.Stats.Chunks {
		k := [2]int{c.Freq, c.Time}
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] += c.Stages.Total().Seconds()
		for s := range c.Stages {
			perChunk[s] = append(perChunk[s], c.Stages[s].Seconds()*1e3)
		}
		chunkTotal = append(chunkTotal, c.Stages.Total().Seconds()*1e3)
	}
	for _, k := range keys {
		perInt = append(perInt, m[k])
	}
	return
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// TestPrecisionGate (with -gpu-bench): GPU fp32 against GPU fp64 at the
// dev and prodslice sizes (one time) on the three skies, ≤ 1e-5 of the
// peak: the run's own choices (auto), the fused kernel forced with either
// split (dev), and the tensor-core product forced.
func TestPrecisionGate(t *testing.T) {
	if !*benchFlag {
		t.Skip("dev/prodslice precision gate: run with -gpu-bench")
	}
	g := openGPU(t)
	defer func(o Options) { g.opts = o }(g.opts)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	type variant struct {
		name     string
		mode     FusedMode
		f16      bool
		strategy gram.Strategy
	}
	sizes := []struct {
		name             string
		nant, nsrc, nchk int
		variants         []variant
	}{
		{"dev", 64, 200000, 1, []variant{{"auto", FusedAuto, true, ""}, {"fused TF32", FusedOn, false, ""},
			{"fused FP16", FusedOn, true, ""}, {"tc-f16", FusedOff, true, gram.TCF16}}},
		{"prodslice", 350, 1000000, 30, []variant{{"auto", FusedAuto, true, ""}, {"tc-f16", FusedOff, true, gram.TCF16}}},
	}
	if info := g.c.Info(); info.Major == 9 && info.Minor == 0 {
		for i := range sizes {
			sizes[i].variants = append(sizes[i].variants, variant{"tc-f16-wg", FusedOff, true, gram.TCF16WG})
		}
	}
	for _, size := range sizes {
		for _, sky := range []string{uniformSky, brightFaint, allFaint} {
			g.opts.Fused, g.opts.Strategy, g.tune.fusedF16 = FusedAuto, "", true
			r2, err := g.Run(context.Background(), skySim(t, size.nant, size.nsrc, 1, size.nchk, 2, sky))
			if err != nil {
				t.Fatal(err)
			}
			s1 := skySim(t, size.nant, size.nsrc, 1, size.nchk, 1, sky)
			for _, v := range size.variants {
				g.opts.Fused, g.opts.Strategy, g.tune.fusedF16 = v.mode, v.strategy, v.f16
				r1, err := g.Run(context.Background(), s1)
				if err != nil {
					t.Fatal(err)
				}
				e := backendtest.RelErr(backendtest.Vis(r1), backendtest.Vis(r2))
				t.Logf("precision gate (%s, %s sky, GPU fp32 %s vs GPU fp64): max|Δ|/max|V| = %.2e (fp32: %s)", size.name, sky, v.name, e, r1.Stats.MatProdImpl)
				if !(e <= 1e-5) {
					t.Errorf("%s, %s sky, %s: fp32 vs fp64 %.3e over 1e-5", size.name, sky, v.name, e)
				}
			}
		}
	}
}

func TestBenchCanonical(t *testing.T) {
	if !*benchFlag {
		t.Skip("prodslice/dev timings: run with -gpu-bench")
	}
	g := openGPU(t)
	var out strings.Builder
	info := g.Device()
	fmt.Fprintf(&out, "Device: %s (sm_%d%d, %d SMs), driver %d; %s\n\n", info.Name, info.Major, info.Minor, info.SMs, info.DriverVersion, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	type config struct {
		name                   string
		nant, nsrc, nt, chunks int
		target                 float64
		fused                  FusedMode
	}
	// dev-cublas first: its Gram product (the cuBLAS strategy chosen for
	// dev's shape) is what dev's fused chunk is compared with.
	configs := []config{{name: "dev-cublas", nant: 64, nsrc: 200000, nt: 8, chunks: 1, target: 0.004, fused: FusedOff},
		{name: "dev", nant: 64, nsrc: 200000, nt: 8, chunks: 1, target: 0.004}, {name: "prodslice", nant: 350, nsrc: 1000000, nt: 4, chunks: 30, target: 0.095}}
	defer func(o Options) { g.opts = o }(g.opts)
	cublasGram := map[string]float64{} // per preset, the cuBLAS Gram product's median per chunk (ms)
	cublasImpl := map[string]string{}
	for _, cf := range configs {
		g.opts.Fused = cf.fused
		sim := benchSim(t, cf.nant, cf.nsrc, cf.nt, cf.chunks, 1)
		t0 := time.Now()
		if _, err := g.Run(context.Background(), sim); err != nil { // warm-up: compile, strategy, caches
			t.Fatal(err)
		}
		warm := time.Since(t0)
		res, err := g.Run(context.Background(), sim)
		if err != nil {
			t.Fatal(err)
		}
		perInt, perChunk, chunkTot := integrationGPUTimes(res)
		med := median(perInt)
		mp := median(perChunk[matvis.StageMatProd])
		ct := median(chunkTot)
		fmt.Fprintf(&out, "**%s** (%d ants, %d gridded beams 360×181, %d sources, %d times, %d chunks, polarized fp32): GPU time per integration median **%.4f s** (target ≤ %.3f s: %s); steady wall per integration %.4f s; setup %.2f s (first run incl. compile and strategy choice %.2f s)\n\n",
			cf.name, cf.nant, cf.nant, cf.nsrc, cf.nt, res.Plan.NChunks, med, cf.target, map[bool]string{true: "met", false: "MISSED"}[med <= cf.target],
			median(durS(res.Stats.Integrations)), res.Stats.Setup.Seconds(), warm.Seconds())
		fmt.Fprintf(&out, "Gram strategy: %s\n\n", res.Stats.MatProdImpl)
		fmt.Fprintf(&out, "| stage (per chunk, ms, median) | %s |\n| --- | --- |\n", cf.name)
		for s := matvis.Stage(0); s < matvis.NumStages; s++ {
			fmt.Fprintf(&out, "| %s | %.3f |\n", s, median(perChunk[s]))
		}
		fmt.Fprintf(&out, "| chunk total | %.3f |\n| chunk total / matprod | %.2f |\n\n", ct, ct/mp)
		// Per integration: each stage summed over the integration's chunks.
		sums := map[[2]int]*matvis.StageTimes{}
		for _, c := range res.Stats.Chunks {
			k := [2]int{c.Freq, c.Time}
			if sums[k] == nil {
				sums[k] = &matvis.StageTimes{}
			}
			for i := range c.Stages {
				sums[k][i] += c.Stages[i]
			}
		}
		fmt.Fprintf(&out, "| stage (per integration, ms, median) | %s |\n| --- | --- |\n", cf.name)
		for st := matvis.Stage(0); st < matvis.NumStages; st++ {
			var v []float64
			for _, x := range sums {
				v = append(v, x[st].Seconds()*1e3)
			}
			fmt.Fprintf(&out, "| %s | %.3f |\n", st, median(v))
		}
		fmt.Fprintln(&out)
		// The chunk's wall on the device (fused kernels and Gram products,
		// no coordinates or output) over its Gram products.
		var walls []float64
		for _, c := range res.Stats.Chunks {
			if gp := c.Stages[matvis.StageMatProd]; gp > 0 {
				walls = append(walls, float64(c.Stages[matvis.StageTauZ]+c.Stages[matvis.StageBeam]+gp)/float64(gp))
			}
		}
		preset, _, _ := strings.Cut(cf.name, "-")
		vsGram := ""
		if !res.Stats.MatProdImpl.Fused {
			cublasGram[preset], cublasImpl[preset] = mp, res.Stats.MatProdImpl.String()
		} else if gp, ok := cublasGram[preset]; ok {
			// The fused kernel contains the product: its chunk total is
			// compared with the cuBLAS product alone at the same shape,
			// timed in this run.
			vsGram = fmt.Sprintf(" fused-vs-cuBLAS-gram %.3f/%.3f = %.2f", ct, gp, ct/gp)
			fmt.Fprintf(&out, "Fused chunk total %.3f ms vs the cuBLAS Gram product alone at this shape (%s, this run) %.3f ms: **%.2f×**\n\n", ct, cublasImpl[preset], gp, ct/gp)
		}
		fmt.Fprintf(&out, "SUMMARY %-20s per-int %.4f s  chunk: tau_z %.3f matprod %.3f total %.3f ratio %.2f wall/gram %.2f%s  setup %.2f s\n\n",
			cf.name, med, median(perChunk[matvis.StageTauZ]), mp, ct, ct/mp, median(walls), vsGram, res.Stats.Setup.Seconds())
		t.Logf("%s: GPU time per integration %.4f s (target %.3f)", cf.name, med, cf.target)
		if med > cf.target {
			t.Errorf("%s: %.4f s per integration over the %.3f s target", cf.name, med, cf.target)
		}
	}
	fmt.Print(out.String())
	if *benchOut != "" {
		if err := os.WriteFile(*benchOut, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func durS(d []time.Duration) []float64 {
	o := make([]float64, len(d))
	for i, x := range d {
		o[i] = x.Seconds()
	}
	return o
}
