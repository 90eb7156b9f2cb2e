// Package profile runs gomatvis's synthetic profiling simulations, as
// matvis's `profile` command does, and summarises where the time and memory
// go: per-stage statistics, derived per-integration times, the memory plan
// against measured heap, the machine's ceilings (roofline) and figures.
//
// The CLI's `gomatvis profile` and `gomatvis roofline` are thin wrappers;
// notebooks call Run, Sweep and MeasureCeilings directly.
package profile

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Config is a synthetic profiling run: a random array in a 400 m square,
// sources uniform on the sphere, one 14 m Gaussian beam per antenna
// (sampled on a 360 × 181 az/za grid when Gridded), as matvis's profiler.
type Config struct {
	Preset string `json:"preset"`
	NAnt   int    `json:"nant"`
	// NBeam unique beams are assigned round-robin to the antennas (0: one
	// per antenna, as matvis's profiler).
	NBeam  int `json:"nbeam"`
	NSrc   int `json:"nsrc"`
	NTimes int `json:"ntimes"`
	NFreq  int `json:"nfreq"`
	// NChunks is the least number of source chunks (matvis's min_chunks).
	NChunks   int  `json:"nchunks"`
	Precision int  `json:"precision"`
	Polarized bool `json:"polarized"`
	Gridded   bool `json:"gridded"`
	// Stokes gives the sources Q, U and V (20 % linear, 5 % circular
	// polarization, flat spectra): a full-Stokes run (docs/stokes.md),
	// with pyradiosky's basis from the ERFA coordinates, or random basis
	// angles with precomputed ones. Needs Polarized.
	Stokes bool `json:"stokes,omitempty"`
	// NAz, NZa are the gridded beams' samples (0: 360 × 181).
	NAz int `json:"naz"`
	NZa int `json:"nza"`
	// Backend is "cpu", "nufftcpu", "gpu" or "auto" (backends.OpenWith).
	Backend string `json:"backend"`
	// Devices runs the profile over several devices as `simulate
	// --devices` does (backends.OpenDevices): "all" or ordinals "0,1"; ""
	// is one backend.
	Devices string `json:"devices,omitempty"`
	// Blocks is the number of (frequency, time) blocks a run over several
	// devices is cut into (0: multi.BlocksPerBackend per device). Each
	// block pays a run's per-channel set-up on its device, so fewer
	// blocks pay it less often and balance the devices less finely.
	Blocks int `json:"blocks,omitempty"`
	// Coords is "erfa" (matvis's ERFA method at the HERA site, as matvis's
	// profiler) or "precomputed" (random ENU unit vectors per time, no
	// astrometry cost).
	Coords string `json:"coords"`
	// Seed makes the synthetic sky and array reproducible.
	Seed uint64 `json:"seed"`
	// MaxMemory is the memory budget (0: the backend's default).
	MaxMemory int64 `json:"max_memory_bytes"`
	// Warmup runs the first integration once before the measured run.
	Warmup bool `json:"warmup"`
}

// Presets lists the preset names.
func Presets() []string { return []string{"prodslice", "dev", "custom"} }

// Preset returns a preset: "prodslice" and "dev" are matvis's canonical
// profiling configurations (peer-h200.md: polarized fp32, one gridded 14 m
// Gaussian per antenna, 1 channel at 100 MHz, ERFA coordinates);
// "custom" is dev's shape to be overridden flag by flag.
func Preset(name string) (Config, error) {
	c := Config{
		Preset: name, NFreq: 1, Precision: 1, Polarized: true, Gridded: true,
		NAz: 360, NZa: 181, Backend: "auto", Coords: "erfa", Seed: 42, Warmup: true,
	}
	switch name {
	case "prodslice":
		c.NAnt, c.NBeam, c.NSrc, c.NTimes, c.NChunks = 350, 350, 1_000_000, 4, 30
	case "dev", "custom":
		c.NAnt, c.NBeam, c.NSrc, c.NTimes, c.NChunks = 64, 64, 200_000, 8, 1
	default:
		return c, fmt.Errorf("profile: preset %q: want one of %v", name, Presets())
	}
	return c, nil
}

// Name is the configuration's name for titles: the preset's name, with
// the counts that differ from the preset's listed (a dev run with
// --nsrc 20000 is "dev, nsrc 20000", not "dev").
func (c Config) Name() string {
	base, err := Preset(c.Preset)
	if err != nil {
		return c.Preset
	}
	name := c.Preset
	for _, f := range []struct {
		key       string
		got, want int
	}{
		{"nant", c.NAnt, base.NAnt}, {"nbeam", c.NBeam, base.NBeam}, {"nsrc", c.NSrc, base.NSrc},
		{"ntimes", c.NTimes, base.NTimes}, {"nfreq", c.NFreq, base.NFreq}, {"nchunks", c.NChunks, base.NChunks},
		{"precision", c.Precision, base.Precision},
	} {
		if f.got != f.want {
			name += fmt.Sprintf(", %s %d", f.key, f.got)
		}
	}
	if c.Polarized != base.Polarized {
		name += fmt.Sprintf(", polarized %v", c.Polarized)
	}
	if c.Coords != base.Coords {
		name += ", coords " + c.Coords
	}
	return name
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.NAnt < 1 || c.NSrc < 1 || c.NTimes < 1 || c.NFreq < 1:
		return fmt.Errorf("profile: nant = %d, nsrc = %d, ntimes = %d, nfreq = %d: all must be at least 1", c.NAnt, c.NSrc, c.NTimes, c.NFreq)
	case c.NAnt > maxCount || c.NSrc > maxCount || c.NTimes > maxCount || c.NFreq > maxCount:
		return fmt.Errorf("profile: nant = %d, nsrc = %d, ntimes = %d, nfreq = %d: each must be at most %d", c.NAnt, c.NSrc, c.NTimes, c.NFreq, maxCount)
	case c.Blocks < 0:
		return fmt.Errorf("profile: blocks = %d: must not be negative", c.Blocks)
	case c.MaxMemory < 0:
		return fmt.Errorf("profile: max_memory = %d: must not be negative", c.MaxMemory)
	case c.NBeam < 0 || c.NBeam > c.NAnt:
		return fmt.Errorf("profile: nbeam = %d: must be within [0, nant = %d]", c.NBeam, c.NAnt)
	case c.NChunks < 0 || c.NChunks > c.NSrc:
		return fmt.Errorf("profile: nchunks = %d: must be within [0, nsrc = %d]", c.NChunks, c.NSrc)
	case c.Precision != 1 && c.Precision != 2:
		return fmt.Errorf("profile: precision = %d: must be 1 or 2", c.Precision)
	case c.Coords != "erfa" && c.Coords != "precomputed":
		return fmt.Errorf("profile: coords = %q: want erfa or precomputed", c.Coords)
	case c.Gridded && (c.NAz < 0 || c.NZa < 0 || (c.NAz > 0 && c.NAz < 2) || (c.NZa > 0 && c.NZa < 2)):
		return fmt.Errorf("profile: gridded beam grid %d × %d: need at least 2 × 2", c.NAz, c.NZa)
	}
	return nil
}

// maxCount bounds each count of a configuration, so that products of
// counts cannot overflow before memory is checked.
const maxCount = 1 << 31

// MemoryTerms is the host memory a run of the configuration needs: the
// synthetic inputs Build makes (sources, fluxes, the random ENU vectors of
// the precomputed coordinates or the ERFA rotation's cached vectors, the
// gridded beam) and what matvis.New checks for the simulation.
func (c Config) MemoryTerms() []matvis.MemoryTerm {
	nsrc, nt := int64(c.NSrc), int64(c.NTimes)
	naz, nza := c.grid()
	beamBytes := int64(0)
	if c.Gridded {
		beamBytes = int64(naz) * int64(nza) * int64(c.NFreq) * 4 * 16
	}
	nf := 1
	if c.Polarized {
		nf = 2
	}
	mc := matvis.MemoryConfig{NAnt: c.NAnt, NBeam: c.nbeam(), NSrc: c.NSrc, NFeed: nf, Precision: c.Precision,
		MinChunks: max(c.NChunks, 1), NFreq: c.NFreq, NTime: c.NTimes, Stokes: c.Stokes}
	return append([]matvis.MemoryTerm{
		{Name: "profile_sources", Bytes: nsrc * int64(2+c.NFreq) * 8},
		{Name: "profile_enu", Bytes: nt * 3 * nsrc * 8},
		{Name: "profile_beam_grid", Bytes: beamBytes},
	}, mc.HostRequired()...)
}

// CheckMemory refuses, with the numbers, a configuration whose run cannot
// fit in MaxMemory (capped by the available memory) or, without it, in
// the available memory.
func (c Config) CheckMemory() error {
	if err := matvis.CheckHostBudget(c.MemoryTerms(), c.MaxMemory, 0); err != nil {
		return fmt.Errorf("profile: %d antennas, %d sources, %d times, %d channels: %w", c.NAnt, c.NSrc, c.NTimes, c.NFreq, err)
	}
	return nil
}

func (c Config) nbeam() int {
	if c.NBeam == 0 {
		return c.NAnt
	}
	return c.NBeam
}

func (c Config) grid() (naz, nza int) {
	naz, nza = c.NAz, c.NZa
	if naz == 0 {
		naz = 360
	}
	if nza == 0 {
		nza = 181
	}
	return naz, nza
}

// Freqs are the channels: 100 MHz for one, else evenly from 100 to 200 MHz.
func (c Config) Freqs() []float64 {
	f := make([]float64, c.NFreq)
	for i := range f {
		f[i] = 100e6
		if c.NFreq > 1 {
			f[i] += 100e6 * float64(i) / float64(c.NFreq-1)
		}
	}
	return f
}

// HERA is the array centre used for ERFA coordinates (HERA's site).
func HERA() astro.Site {
	return astro.Site{LatDeg: -30.72152612068925, LonDeg: 21.42830382686301, HeightM: 1051.69}
}

// Build makes the synthetic simulation.
func Build(c Config) (*matvis.Simulation, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.CheckMemory(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6d61747669730a))
	mc := matvis.Config{Freqs: c.Freqs()}
	for range c.NAnt {
		mc.Antennas = append(mc.Antennas, [3]float64{rng.Float64()*400 - 200, rng.Float64()*400 - 200, 0})
	}
	mc.RA = make([]float64, c.NSrc)
	mc.Dec = make([]float64, c.NSrc)
	mc.Flux = make([]float64, c.NSrc*c.NFreq)
	for s := range c.NSrc {
		mc.RA[s] = 2 * math.Pi * rng.Float64()
		mc.Dec[s] = math.Asin(2*rng.Float64() - 1)
	}
	for i := range mc.Flux {
		mc.Flux[i] = 0.5 + rng.Float64()
	}
	// Times 10.7 s apart (HERA's integration) from 2022-10-01.
	for k := range c.NTimes {
		mc.Times = append(mc.Times, 2459853.5+float64(k)*10.7/86400)
	}
	switch c.Coords {
	case "erfa":
		rot, err := astro.New(astro.Config{Method: astro.MethodERFA, Site: HERA(), TimesJD: mc.Times}, mc.RA, mc.Dec)
		if err != nil {
			return nil, fmt.Errorf("profile: coordinates: %w", err)
		}
		mc.Coords = rot
	default:
		topo := make([]float64, c.NTimes*3*c.NSrc)
		for t := range c.NTimes {
			for s := range c.NSrc {
				z := 2*rng.Float64() - 1
				phi := 2 * math.Pi * rng.Float64()
				r := math.Sqrt(1 - z*z)
				base := t * 3 * c.NSrc
				topo[base+s], topo[base+c.NSrc+s], topo[base+2*c.NSrc+s] = r*math.Cos(phi), r*math.Sin(phi), z
			}
		}
		crd, err := matvis.NewPrecomputed(c.NTimes, c.NSrc, topo)
		if err != nil {
			return nil, fmt.Errorf("profile: coordinates: %w", err)
		}
		mc.Coords = crd
	}
	beams, err := c.beams(mc.Freqs)
	if err != nil {
		return nil, err
	}
	mc.Beams = beams
	mc.BeamIdx = make([]int, c.NAnt)
	for a := range mc.BeamIdx {
		mc.BeamIdx[a] = a % len(beams)
	}
	mc.Options = matvis.Options{
		Precision: c.Precision, Polarized: c.Polarized, MinChunks: max(c.NChunks, 1), MaxMemory: c.MaxMemory,
	}
	if c.Stokes {
		if err := c.stokesSky(&mc, rng); err != nil {
			return nil, err
		}
	}
	sim, err := matvis.New(mc)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	return sim, nil
}

// beams are nbeam 14 m Gaussians, each its own object as in matvis's
// profiler (so the raw beam-grid term counts every one), gridded when asked.
// The grid is sampled once and shared: the beams are identical and
// immutable, but the memory model still counts each list entry.
func (c Config) beams(freqs []float64) ([]beam.Beam, error) {
	g := beam.Gaussian{DiameterM: 14}
	var b beam.Beam = g
	if c.Gridded {
		naz, nza := c.grid()
		gr, err := beam.NewGriddedFromAnalytic(g, freqs, naz, nza)
		if err != nil {
			return nil, fmt.Errorf("profile: gridded beam: %w", err)
		}
		if c.Precision == 1 {
			if gr, err = gr.WithPrecision(1); err != nil {
				return nil, fmt.Errorf("profile: gridded beam: %w", err)
			}
		}
		b = gr
	}
	out := make([]beam.Beam, c.nbeam())
	for i := range out {
		out[i] = b
	}
	return out, nil
}

// flatStokes is a synthetic full-Stokes sky with flat spectra.
type flatStokes struct{ s [4][]float64 }

func (f flatStokes) StokesAt(_ float64, k int, dst []float64) error {
	copy(dst, f.s[k])
	return nil
}
func (f flatStokes) StokesIAt(freq float64, dst []float64) error { return f.StokesAt(freq, 0, dst) }
func (f flatStokes) Polarized() bool                             { return true }

// randomBasis is a PolBasis of random angles (precomputed coordinates
// have no astrometry to take a basis from; the cost is what is profiled).
type randomBasis struct {
	nt int
	x  []float64
}

func (b randomBasis) NSources() int { return len(b.x) }
func (b randomBasis) NTimes() int   { return b.nt }
func (b randomBasis) Basis(ti int, c, s []float64) error {
	for i, x := range b.x {
		s[i], c[i] = math.Sincos(x + float64(ti))
	}
	return nil
}

// stokesSky replaces mc's fluxes (first channel) by a full-Stokes sky and
// sets its basis.
func (c Config) stokesSky(mc *matvis.Config, rng *rand.Rand) error {
	if !c.Polarized {
		return fmt.Errorf("profile: stokes needs a polarized run")
	}
	var sky flatStokes
	for k := range sky.s {
		sky.s[k] = make([]float64, c.NSrc)
	}
	for s := range c.NSrc {
		i := mc.Flux[s*c.NFreq]
		chi := math.Pi * rng.Float64()
		sky.s[0][s], sky.s[1][s], sky.s[2][s], sky.s[3][s] = i, 0.2*i*math.Cos(2*chi), 0.2*i*math.Sin(2*chi), 0.05*i
	}
	mc.Flux, mc.Sky = nil, sky
	if c.Coords != "erfa" {
		b := randomBasis{nt: c.NTimes, x: make([]float64, c.NSrc)}
		for i := range b.x {
			b.x[i] = 2 * math.Pi * rng.Float64()
		}
		mc.PolBasis = b
		return nil
	}
	mk := func(ra, dec []float64) (matvis.Coordinates, error) {
		return astro.New(astro.Config{Method: astro.MethodERFA, Site: HERA(), TimesJD: mc.Times}, ra, dec)
	}
	var err error
	if mc.PolBasis, err = matvis.NewPolBasis("", mk, mc.RA, mc.Dec); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}
