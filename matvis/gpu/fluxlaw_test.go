package gpu

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/cudaemu"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/skymodel"
)

// powerLawDriver runs bp_power_law (beamprep_flux.cuh) on the host
// (internal/cudaemu). Input on stdin, little-endian: nsrc and nfreq
// (int64), then S_ref, α, ln f_ref (nsrc each) and ln f (nfreq), float64.
// Output: the nsrc·nfreq table and a guard element after it, float64, then
// the overflow flag (int32).
const powerLawDriver = `
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "beamprep_flux.cuh"

static std::vector<double> rd(long long n) {
  std::vector<double> v(n > 0 ? n : 1);
  if (n > 0 && fread(v.data(), 8, n, stdin) != (size_t)n) { fprintf(stderr, "short input\n"); std::exit(2); }
  return v;
}

int main() {
  long long h[2];
  if (fread(h, 8, 2, stdin) != 2) return 2;
  long long ns = h[0];
  int nf = (int)h[1];
  auto sref = rd(ns), index = rd(ns), lnref = rd(ns), lnf = rd(nf);
  // One guard element past the table: the grid's threads past its end
  // must leave it alone (the sources' arrays are padded to match).
  std::vector<double> table(ns * nf + 1, -1.0);
  sref.resize(ns + 1), index.resize(ns + 1), lnref.resize(ns + 1);
  int bad = 0;
  EMU_LAUNCH(bp_power_law, (ns * nf + 255) / 256, 256, table.data(), sref.data(), index.data(), lnref.data(), lnf.data(), ns, nf, &bad);
  fwrite(table.data(), 8, table.size(), stdout);
  fwrite(&bad, 4, 1, stdout);
  return 0;
}
`

// TestPowerLawHostEmulation runs the device's power-law table on the host
// (internal/cudaemu) for a random spectral-index sky and compares every
// channel's column with skymodel's own evaluation (StokesIAt): within four
// ulp, the overflow flag clear. Go's amd64 math.Exp (no stated bound) was
// within 2 ulp of the C library's over 2·10⁶ arguments in [−40, 40] (one
// or two in 7 %), CUDA's double exp is within 1 ulp of the exact (CUDA
// C++ Programming Guide, its mathematical functions' table), and the
// product with S_ref rounds once more. Then a source whose law overflows
// sets the flag. No device: NVRTC's compile is the device tests'.
func TestPowerLawHostEmulation(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	const ns, nf = 700, 5
	c := skymodel.Components{RA: make([]float64, ns), Dec: make([]float64, ns), Spectral: skymodel.SpectralIndex,
		RefFreq: make([]float64, ns), Index: make([]float64, ns)}
	c.Stokes[skymodel.I] = make([]float64, ns)
	for i := range ns {
		c.Stokes[skymodel.I][i], c.RefFreq[i], c.Index[i] = 20*rng.Float64(), 50e6+200e6*rng.Float64(), -4+5*rng.Float64()
	}
	c.Stokes[skymodel.I][3] = 0
	sky, err := skymodel.New(c)
	if err != nil {
		t.Fatal(err)
	}
	freqs := make([]float64, nf)
	for f := range freqs {
		freqs[f] = 40e6 + 300e6*rng.Float64()
	}
	bin := cudaemu.Build(t, powerLawDriver, cudaemu.ProgramFiles(t, kernelFiles, "beamprep.cu"))
	sref, index, lnRef, ok := sky.PowerLawI()
	if !ok {
		t.Fatal("PowerLawI: not a power law")
	}
	run := func(index, lnRef []float64) ([]float64, int32) {
		var in bytes.Buffer
		w := func(v any) { _ = binary.Write(&in, binary.LittleEndian, v) }
		w([]int64{ns, nf})
		lnf := make([]float64, nf)
		for f, v := range freqs {
			lnf[f] = math.Log(v)
		}
		w(sref)
		w(index)
		w(lnRef)
		w(lnf)
		out := cudaemu.Run(t, bin, in.Bytes())
		if len(out) != (ns*nf+1)*8+4 {
			t.Fatalf("the emulation wrote %d bytes, want %d", len(out), (ns*nf+1)*8+4)
		}
		table := make([]float64, ns*nf+1)
		for i := range table {
			table[i] = math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
		}
		if table[ns*nf] != -1 {
			t.Fatalf("the element after the table was written: %v", table[ns*nf])
		}
		return table[:ns*nf], int32(binary.LittleEndian.Uint32(out[(ns*nf+1)*8:]))
	}
	table, bad := run(index, lnRef)
	if bad != 0 {
		t.Fatalf("overflow flag %d for a sky that does not overflow", bad)
	}
	want := make([]float64, ns)
	for f, freq := range freqs {
		if err := sky.StokesIAt(freq, want); err != nil {
			t.Fatal(err)
		}
		for s := range ns {
			if got := table[s*nf+f]; !withinULP(got, want[s], 4) {
				t.Fatalf("source %d, channel %d (%g Hz): table %v, StokesIAt %v", s, f, freq, got, want[s])
			}
		}
	}
	// α = 3000 overflows wherever f > f_ref·e^(709.8/3000), 1.27·f_ref:
	// source 5's f_ref is put at half the first channel.
	hot, hotRef := append([]float64(nil), index...), append([]float64(nil), lnRef...)
	hot[5], hotRef[5] = 3000, math.Log(0.5*freqs[0])
	if _, bad := run(hot, hotRef); bad != 1 {
		t.Errorf("overflow flag %d for a law past float64's range, want 1", bad)
	}
}

// withinULP says whether got is within k float64 steps of want.
func withinULP(got, want float64, k int) bool {
	lo, hi := want, want
	for range k {
		lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
	}
	return got >= lo && got <= hi
}

// TestPowerLawSkyOnDevice (device): a run whose sky is a power law
// (skymodel) makes its flux table on the device, and its visibilities
// equal, within the rounding of one ulp of each flux, those of the same
// run given the host's evaluation of the sky as a flux table (StokesIAt
// per channel) — on the direct path and the transform, float64 and
// float32 — and a law that overflows at the second channel fails as the
// host's evaluation does, naming the source and the channel.
func TestPowerLawSkyOnDevice(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	for _, tc := range []struct {
		mode NUFFTMode
		prec int
	}{{NUFFTOff, 2}, {NUFFTOn, 2}, {NUFFTOff, 1}, {NUFFTOn, 1}} {
		g := nufftGPU(t, tc.mode, 0)
		const nsrc = 3000
		freqs := []float64{100e6, 117.5e6, 160e6}
		cfg, c := powerLawConfig(t, rng, 8, nsrc, 2, freqs, tc.prec)
		sky := cfg.Sky.(*skymodel.Sky)
		onDevice := backendtest.MustRun(t, g, backendtest.NewSim(t, cfg))
		if !hasTerm(onDevice, termFluxTable) {
			t.Fatalf("%v fp%d: the power-law sky's run made no flux table on the device", tc.mode, 32*tc.prec)
		}
		table := cfg
		table.Sky, table.Flux = nil, make([]float64, nsrc*len(freqs))
		col := make([]float64, nsrc)
		for f, v := range freqs {
			if err := sky.StokesIAt(v, col); err != nil {
				t.Fatal(err)
			}
			for s := range nsrc {
				table.Flux[s*len(freqs)+f] = col[s]
			}
		}
		host := backendtest.MustRun(t, g, backendtest.NewSim(t, table))
		tol := 1e-13
		if tc.prec == 1 {
			tol = 1e-5
		}
		if tc.mode == NUFFTOn && tc.prec == 2 {
			tol = 10 * 10 * nufftEpsDouble
		}
		e := backendtest.RelErr(backendtest.Vis(onDevice), backendtest.Vis(host))
		t.Logf("%v fp%d: device-made table against the host's: max|ΔV|/max|V| = %.3g", tc.mode, 32*tc.prec, e)
		if !(e <= tol) {
			t.Errorf("%v fp%d: the device-made table's visibilities %.3g of the host table's, over %.0e", tc.mode, 32*tc.prec, e, tol)
		}
		// Source 11's law overflows from the second channel on: 5000·ln 1.175 > 709.8.
		c.Index[11], c.RefFreq[11] = 5000, 100e6
		hot, err := skymodel.New(c)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sky = hot
		_, err = g.Run(context.Background(), backendtest.NewSim(t, cfg))
		if err == nil || !strings.Contains(err.Error(), "source 11") || !strings.Contains(err.Error(), "freqs[1]") {
			t.Errorf("%v fp%d: an overflowing law: error %v, want one naming source 11 at freqs[1]", tc.mode, 32*tc.prec, err)
		}
	}
}

// powerLawConfig is a random power-law sky of nsrc sources (S_ref
// 0.1–5.1 Jy at 150 MHz, α in [−3, 0]) seen by nant antennas on one Airy
// beam at freqs and ntime times, in precision prec, with the sky's
// components (its arrays shared).
func powerLawConfig(t *testing.T, rng *rand.Rand, nant, nsrc, ntime int, freqs []float64, prec int) (matvis.Config, skymodel.Components) {
	t.Helper()
	c := skymodel.Components{RA: make([]float64, nsrc), Dec: make([]float64, nsrc), Spectral: skymodel.SpectralIndex,
		RefFreq: make([]float64, nsrc), Index: make([]float64, nsrc)}
	c.Stokes[skymodel.I] = make([]float64, nsrc)
	for i := range nsrc {
		c.RA[i], c.Dec[i] = 2*math.Pi*rng.Float64(), math.Asin(2*rng.Float64()-1)
		c.Stokes[skymodel.I][i], c.RefFreq[i], c.Index[i] = 0.1+5*rng.Float64(), 150e6, -3+3*rng.Float64()
	}
	sky, err := skymodel.New(c)
	if err != nil {
		t.Fatal(err)
	}
	cfg := matvis.Config{Freqs: freqs, RA: c.RA, Dec: c.Dec, Sky: sky, Beams: []beam.Beam{beam.Airy{DiameterM: 14}},
		BeamIdx: make([]int, nant), Options: matvis.Options{Precision: prec}}
	for range nant {
		cfg.Antennas = append(cfg.Antennas, [3]float64{140*rng.Float64() - 70, 140*rng.Float64() - 70, 0})
	}
	cfg.Coords = backendtest.NewRotation(rng, ntime, nsrc)
	return cfg, c
}

// hasTerm says whether res's memory plan has a term named name.
func hasTerm(res *matvis.Result, name string) bool {
	for _, m := range res.Plan.Terms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// TestPowerLawEligibility: only a power law whose every S_ref is finite
// and non-negative and whose α and ln f_ref are finite goes to the device
// (where an overflow is the one failure the kernel flags); a negative or
// non-finite parameter, a sky of another kind, another source count or a
// flux table leave the run to the host's evaluation and its errors.
func TestPowerLawEligibility(t *testing.T) {
	good := func() skymodel.Components {
		c := skymodel.Components{RA: make([]float64, 3), Dec: make([]float64, 3), Spectral: skymodel.SpectralIndex,
			RefFreq: []float64{1e8, 1.5e8, 2e8}, Index: []float64{-0.8, 0, 1.2}}
		c.Stokes[skymodel.I] = []float64{1, 0, 2.5}
		return c
	}
	simOf := func(t *testing.T, c skymodel.Components, edit func(sref, index, lnRef []float64)) *matvis.Simulation {
		t.Helper()
		sky, err := skymodel.New(c)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			sref, index, lnRef, _ := sky.PowerLawI()
			edit(sref, index, lnRef) // after New's checks, as a sky read otherwise could hold
		}
		cfg := matvis.Config{Freqs: []float64{1e8}, RA: c.RA, Dec: c.Dec, Sky: sky, Antennas: [][3]float64{{0, 0, 0}},
			Beams: []beam.Beam{beam.Airy{DiameterM: 14}}, BeamIdx: []int{0}, Coords: precomputedZenith(t, 3)}
		sim, err := matvis.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sim
	}
	if pl, ok := powerLawOf(simOf(t, good(), nil), 3); !ok || len(pl.sref) != 3 || pl.lnRef[2] != math.Log(2e8) {
		t.Fatalf("a valid power law: ok %v, %+v", ok, pl)
	}
	if _, ok := powerLawOf(simOf(t, good(), nil), 4); ok {
		t.Error("a law of 3 sources taken for a run of 4")
	}
	for name, edit := range map[string]func(sref, index, lnRef []float64){
		"negative S_ref": func(s, _, _ []float64) { s[1] = -1 },
		"NaN S_ref":      func(s, _, _ []float64) { s[2] = math.NaN() },
		"infinite S_ref": func(s, _, _ []float64) { s[0] = math.Inf(1) },
		"NaN α":          func(_, a, _ []float64) { a[1] = math.NaN() },
		"infinite α":     func(_, a, _ []float64) { a[2] = math.Inf(-1) },
		"NaN ln f_ref":   func(_, _, l []float64) { l[0] = math.NaN() },
		"infinite ln f":  func(_, _, l []float64) { l[1] = math.Inf(1) },
	} {
		if _, ok := powerLawOf(simOf(t, good(), edit), 3); ok {
			t.Errorf("%s: taken to the device", name)
		}
	}
	flat := good()
	flat.Spectral, flat.Index = skymodel.Flat, nil
	if _, ok := powerLawOf(simOf(t, flat, nil), 3); ok {
		t.Error("a flat-spectrum sky taken for a power law")
	}
}

// precomputedZenith is n sources at the zenith, one time.
func precomputedZenith(t *testing.T, n int) *matvis.Precomputed {
	t.Helper()
	enu := make([]float64, 3*n)
	for i := range n {
		enu[2*n+i] = 1 // (ntimes, 3, nsrc): up
	}
	p, err := matvis.NewPrecomputed(1, n, enu)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWarm (device): a warmed backend holds its handles before any run;
// its first run takes them (its set-up's "handles" step makes none) and
// gives what a cold backend's run gives, bit for bit on the same path
// (within the suite's tolerance where the timed choices differ); a closed
// backend refuses to warm.
func TestWarm(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	sim := backendtest.NewSim(t, backendtest.Random(t, rng, backendtest.Shape{NAnt: 6, NSrc: 400, NFreq: 2, NTime: 2},
		backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{}))
	cold := openGPU(t)
	want := backendtest.MustRun(t, cold, sim)
	warm := openGPU(t)
	if err := warm.Warm(); err != nil {
		t.Fatal(err)
	}
	if warm.keep.g == nil || warm.keep.blas == nil || warm.keep.s == 0 {
		t.Fatal("Warm made no handles")
	}
	g := warm.keep.g
	got := backendtest.MustRun(t, warm, sim)
	if warm.keep.g != g {
		t.Error("the first run after Warm made its own Gram product")
	}
	w, v := backendtest.Vis(want), backendtest.Vis(got)
	if want.Stats.MatProdImpl.String() != got.Stats.MatProdImpl.String() { // timed choices may differ
		if e := backendtest.RelErr(v, w); !(e <= backendtest.Tolerance(want.Precision)) {
			t.Fatalf("after Warm (%v) against cold (%v): max|ΔV|/max|V| = %g", got.Stats.MatProdImpl, want.Stats.MatProdImpl, e)
		}
	} else {
		for i := range w {
			if w[i] != v[i] {
				t.Fatalf("V[%d] = %v after Warm, %v cold", i, v[i], w[i])
			}
		}
	}
	warm.Close()
	if err := warm.Warm(); err == nil {
		t.Error("a closed backend warmed")
	}
}

// TestKeptFluxAcrossBlocks (device): the blocks of times of a power-law
// sky's run, one after another on one backend, take the table the first
// made (the same device buffer) and each equals, bit for bit, the same
// block on a fresh backend; a block of other channels, or another sky,
// makes a new one; Close frees it.
func TestKeptFluxAcrossBlocks(t *testing.T) {
	rng := sharedtest.RNG(t, 4)
	mk := func() *matvis.Simulation {
		cfg, _ := powerLawConfig(t, rng, 7, 2500, 3, []float64{100e6, 130e6, 160e6}, 2)
		return backendtest.NewSim(t, cfg)
	}
	sim := mk()
	g := nufftGPU(t, NUFFTOff, 0)
	var first cuda.DevicePtr
	for i, b := range []matvis.Block{{F0: 0, F1: 3, T0: 0, T1: 1}, {F0: 0, F1: 3, T0: 1, T1: 2}, {F0: 0, F1: 3, T0: 2, T1: 3}, {F0: 1, F1: 2, T0: 0, T1: 3}} {
		sub, err := sim.Subset(b)
		if err != nil {
			t.Fatal(err)
		}
		got := backendtest.MustRun(t, g, sub)
		k := g.keep.flux
		if k == nil {
			t.Fatalf("block %v: no flux table kept", b)
		}
		switch {
		case i == 0:
			first = k.table
		case i < 3 && k.table != first:
			t.Errorf("block %v: a new table, not the first block's", b)
		case i == 3 && (len(k.freqs) != 1 || k.freqs[0] != 130e6):
			t.Errorf("block %v: the kept table is of channels %v", b, k.freqs)
		}
		want := backendtest.MustRun(t, nufftGPU(t, NUFFTOff, 0), sub)
		w, v := backendtest.Vis(want), backendtest.Vis(got)
		for j := range w {
			if w[j] != v[j] {
				t.Fatalf("block %v: V[%d] = %v on the kept table, %v on a fresh backend", b, j, v[j], w[j])
			}
		}
	}
	other := mk()
	backendtest.MustRun(t, g, other)
	if k := g.keep.flux; k == nil || !k.holds(skyPowerLawOf(t, other), other.Freqs) {
		t.Error("another sky's run did not replace the kept table")
	}
	g.Close()
	if g.keep.flux != nil {
		t.Error("Close left the kept flux table")
	}
}

// skyPowerLawOf is sim's power law, which it must have.
func skyPowerLawOf(t *testing.T, sim *matvis.Simulation) skyPowerLaw {
	t.Helper()
	pl, ok := powerLawOf(sim, sim.NSrc())
	if !ok {
		t.Fatal("not a power-law sky")
	}
	return pl
}

// TestKeptFluxHolds (host): a kept table is a run's only for the very
// arrays of its law (equal values in other arrays are another sky, whose
// slices may change) and equal channels.
func TestKeptFluxHolds(t *testing.T) {
	law := skyPowerLaw{sref: []float64{1, 2}, index: []float64{-1, 0}, lnRef: []float64{18, 19}}
	k := &keptFlux{law: law, freqs: []float64{1e8, 2e8}}
	copyOf := skyPowerLaw{sref: slices.Clone(law.sref), index: law.index, lnRef: law.lnRef}
	for _, tc := range []struct {
		name  string
		k     *keptFlux
		law   skyPowerLaw
		freqs []float64
		want  bool
	}{
		{"the same arrays and channels", k, law, []float64{1e8, 2e8}, true},
		{"none kept", nil, law, []float64{1e8, 2e8}, false},
		{"equal values in another S_ref", k, copyOf, []float64{1e8, 2e8}, false},
		{"another α", k, skyPowerLaw{law.sref, slices.Clone(law.index), law.lnRef}, []float64{1e8, 2e8}, false},
		{"another ln f_ref", k, skyPowerLaw{law.sref, law.index, slices.Clone(law.lnRef)}, []float64{1e8, 2e8}, false},
		{"a shorter view of S_ref", k, skyPowerLaw{law.sref[:1], law.index, law.lnRef}, []float64{1e8, 2e8}, false},
		{"another channel", k, law, []float64{1e8, 2.5e8}, false},
		{"fewer channels", k, law, []float64{1e8}, false},
	} {
		if got := tc.k.holds(tc.law, tc.freqs); got != tc.want {
			t.Errorf("%s: holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}
