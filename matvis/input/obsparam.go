package input

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/skymodel"
)

// ObsOptions adjust how a pyuvsim configuration becomes a Simulation.
type ObsOptions struct {
	// EOP holds the Earth orientation at each time, as astropy used it
	// (ReadEOPFile reads it from an IERS finals or C04 file or a per-time
	// JSON list). Nil means the IERS table embedded in gomatvis
	// (BuiltinEOP: astropy's bundled IERS-B, interpolated as astropy
	// does), warning for times outside it.
	EOP []astro.EOP
	// EOPSource names where EOP came from (e.g. "--eop FILE"), for the
	// output's history and meta.json; ignored when EOP is nil.
	EOPSource string
	// Topo, when set, replaces the computed ENU vectors (e.g. pyradiosky's).
	Topo matvis.Coordinates
	// CoordMethod is an astro method; empty means CoordinateRotationAstropy,
	// which agrees with astropy's AltAz (what pyuvsim uses).
	CoordMethod string
	// Precision is 1 or 2 (0: 2, as pyuvsim computes in float64).
	Precision int
	// Run overrides the other run options (memory budget, chunking,
	// matprod); a pyuvsim configuration has none of its own.
	Run RunOverrides
	// MatvisConventions keeps matvis's V_ij = Σ conj(Z_i)·Z_j over the
	// baselines (i = ant1, j = ant2); otherwise the Simulation gives
	// pyuvsim's V(ant1, ant2) (Observation.UseConventions), the numbers
	// its UVH5 holds.
	MatvisConventions bool
	// WholeOutput says the caller holds the whole output at once (a .npy
	// file) rather than streaming it by blocks of times as a UVH5 file is
	// written: the memory check then counts all of it.
	WholeOutput bool
	// Rotation is how a polarized sky's coherency is turned into the
	// beams' basis: empty or RotationIAU is the one derived from the IAU
	// convention (docs/stokes.md), the default; RotationPyradiosky
	// reproduces pyuvsim 1.2 (Rᵀ·C·R with pyradiosky's rigid basis).
	Rotation matvis.CoherencyRotation
	// BeamInterp is the spatial interpolation of beamfits beams, one of
	// beam.SpatialInterps; empty means az_za_simple, pyuvdata's default,
	// which pyuvsim uses.
	BeamInterp string
	// Pole is the beamfits beams' zenith treatment, one of
	// beam.PoleTreatments; empty means continued through the pole for a
	// polarized sky under the IAU rotation and pyuvdata's exact edge for a
	// Stokes-I sky or RotationPyradiosky (obsPole).
	Pole string
	// Warn receives warnings (nil: discarded).
	Warn func(string)
}

// FromObsParam reads a pyuvsim obsparam YAML, the telescope configuration
// and layout it names and its sky catalog, and returns the Simulation with
// the Observation that describes its output. Analytic beams take pyuvsim's
// diagonal Jones convention (beam.DiagonalJones); the sky is evaluated per
// channel from the catalog's spectral model.
func FromObsParam(path string, o *ObsOptions) (*matvis.Simulation, *matvis.Observation, error) {
	cfg, err := obsparam.Read(path)
	if err != nil {
		return nil, nil, err
	}
	return FromObsConfig(cfg, o)
}

// FromObsConfig is FromObsParam for a configuration already read.
func FromObsConfig(cfg *obsparam.Config, o *ObsOptions) (*matvis.Simulation, *matvis.Observation, error) {
	if o == nil {
		o = &ObsOptions{}
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	for _, w := range cfg.Warnings {
		warn(w)
	}
	o, eopSource, err := withObsEOP(cfg, o, warn)
	if err != nil {
		return nil, nil, err
	}
	sky, err := readObsSky(cfg)
	if err != nil {
		return nil, nil, err
	}
	c, err := obsConfig(cfg, o, sky)
	if err != nil {
		return nil, nil, err
	}
	obs, err := newObsObservation(cfg, o.EOP)
	if err != nil {
		return nil, nil, err
	}
	obs.EOPSource = eopSource
	obs.History += " Earth orientation (UT1 − UTC, polar motion): " + eopSource + "."
	if note := beamInterpNote(c.Beams); note != "" {
		obs.History += " " + note
	}
	if c.Coords, err = obsCoords(cfg, sky, o); err != nil {
		return nil, nil, err
	}
	if sky.Polarized() {
		obs.History += " " + matvis.RotationNote(o.Rotation)
		// The neighbours' warnings repeat the positions' own.
		quiet := *o
		quiet.Warn = nil
		mk := func(ra, dec []float64) (matvis.Coordinates, error) { return obsAstro(cfg, &quiet, ra, dec) }
		if c.PolBasis, err = matvis.NewPolBasis(o.Rotation, mk, sky.RA(), sky.Dec()); err != nil {
			return nil, nil, fmt.Errorf("matvis: %s: %w", cfg.Sources.Catalog, err)
		}
	}
	obsOutputConventions(&c, obs, o)
	sim, err := matvis.New(c)
	if err != nil {
		return nil, nil, err
	}
	warnZeroBeams(sim, warn)
	if note := beamPoleNote(sim.Beams, sim.Mode); note != "" {
		obs.History += " " + note
	}
	return sim, obs, nil
}

// withObsEOP is o with the Earth orientation of the configuration's
// times: the caller's (ObsOptions.EOP) or the embedded IERS tables'; the
// second result names which.
func withObsEOP(cfg *obsparam.Config, o *ObsOptions, warn func(string)) (*ObsOptions, string, error) {
	if o.EOP != nil {
		if o.EOPSource == "" {
			return o, "given by the caller (ObsOptions.EOP)", nil
		}
		return o, o.EOPSource, nil
	}
	eop, err := BuiltinEOP(cfg.TimesJD, warn)
	if err != nil {
		return nil, "", fmt.Errorf("matvis: %s: Earth orientation: %w", cfg.Path, err)
	}
	withEOP := *o
	withEOP.EOP = eop
	return &withEOP, BuiltinEOPSource, nil
}

// obsConfig is the Config of the configuration's channels, times, sky,
// antennas and beams (each with the run's spatial interpolation and
// zenith treatment), with the run's precision, rotation and overrides.
func obsConfig(cfg *obsparam.Config, o *ObsOptions, sky *skymodel.Sky) (matvis.Config, error) {
	tel := cfg.Telescope
	c := matvis.Config{Freqs: cfg.Freqs, Times: cfg.TimesJD, RA: sky.RA(), Dec: sky.Dec(), Sky: sky}
	for _, a := range tel.Antennas {
		c.Antennas = append(c.Antennas, a.ENU)
	}
	prec := o.Precision
	if prec == 0 {
		prec = 2
	}
	for i, b := range tel.Beams {
		bm, err := obsBeam(b, tel.SplineOrder, tel.FreqInterpKind, prec)
		if err == nil {
			bm, err = withSpatialInterp(bm, o.beamInterp())
		}
		if err == nil {
			bm, err = withPole(bm, obsPole(o.Pole, sky.Polarized(), o.Rotation))
		}
		if err != nil {
			return c, fmt.Errorf("matvis: %s: beam_paths[%d]: %w", tel.ConfigFile, tel.BeamIDs[i], err)
		}
		c.Beams = append(c.Beams, bm)
	}
	c.BeamIdx = tel.BeamIndex()
	c.Options.Precision = prec
	c.Options.Rotation = o.Rotation
	o.Run.apply(&c.Options)
	return c, nil
}

// obsOutputConventions sets the pairs, feeds and positions of the output's
// conventions: matvis's (every pair the configuration asks, in its
// polarization) or pyuvsim's (Observation.UseConventions).
func obsOutputConventions(c *matvis.Config, obs *matvis.Observation, o *ObsOptions) {
	if o.MatvisConventions {
		obs.ENU = append([][3]float64(nil), c.Antennas...)
		c.Options.AntPairs = obs.Baselines
		c.Options.Polarized = obs.NeedsPolarized()
		if !c.Options.Polarized && obs.Pols[0] == matvis.PolYY {
			c.Options.Feed = beam.FeedY
		}
		return
	}
	obs.UseConventions(c)
	if o.WholeOutput {
		c.Options.OutputTimes = 0
	}
}

// readObsSky reads the catalog and applies the sources section's cuts.
func readObsSky(cfg *obsparam.Config) (*skymodel.Sky, error) {
	src := cfg.Sources
	sky, err := skymodel.ReadFileOptions(src.Catalog, skymodel.ReadOptions{Filetype: src.Filetype, GLEAMSpectralType: src.SpectralType})
	if err != nil {
		return nil, fmt.Errorf("matvis: sources.catalog: %w", err)
	}
	if sky, err = selectSky(sky, src.MinFlux, src.MaxFlux, src.NonNegative); err != nil {
		return nil, fmt.Errorf("matvis: %s: sources min_flux/max_flux/non_negative: %w", cfg.Path, err)
	}
	return sky, nil
}

// obsBeam builds one beam of a telescope configuration: analytic beams
// with pyuvsim's diagonal Jones matrices where their type has one (all but
// the short dipole), beamfits beams as matvis reads them
// with the configuration's freq_interp_kind.
func obsBeam(b simspec.Beam, order int, freqKind string, precision int) (beam.Beam, error) {
	if t, ok := beam.LookupAnalytic(b.Type); ok && t.Diagonal {
		b.Jones = simspec.JonesDiagonal
	}
	if order == 0 {
		order = 3
	}
	bm, err := specBeam(b, "", order, precision)
	if err != nil {
		return nil, err
	}
	return withFreqInterp(bm, freqKind)
}

// beamInterp is the spatial interpolation of the configuration's beamfits
// beams: BeamInterp, by default pyuvsim's az_za_simple.
func (o *ObsOptions) beamInterp() string {
	if o.BeamInterp == "" {
		return beam.SpatialAzZaSimple
	}
	return o.BeamInterp
}

// obsCoords builds the ENU vectors of the catalog at the configuration's
// times and site.
func obsCoords(cfg *obsparam.Config, sky *skymodel.Sky, o *ObsOptions) (matvis.Coordinates, error) {
	if o.Topo != nil {
		return o.Topo, nil
	}
	return obsAstro(cfg, o, sky.RA(), sky.Dec())
}

// obsAstro is the configuration's astrometry of sources at ra, dec.
func obsAstro(cfg *obsparam.Config, o *ObsOptions, ra, dec []float64) (matvis.Coordinates, error) {
	method := o.CoordMethod
	if method == "" {
		method = string(astro.MethodAstropy)
	}
	t := cfg.Telescope
	r, err := astro.New(astro.Config{
		Method:  astro.Method(method),
		Site:    astro.Site{LatDeg: t.LatDeg, LonDeg: t.LonDeg, HeightM: t.AltM},
		TimesJD: cfg.TimesJD,
		EOP:     o.EOP,
		Warn:    o.Warn,
	}, ra, dec)
	if err != nil {
		return nil, fmt.Errorf("matvis: coordinates (%s): %w", method, err)
	}
	return r, nil
}

// newObsObservation describes the configuration's output.
func newObsObservation(cfg *obsparam.Config, eop []astro.EOP) (*matvis.Observation, error) {
	t := cfg.Telescope
	obs := &matvis.Observation{
		TelescopeName:   t.Name,
		Site:            astro.Site{LatDeg: t.LatDeg, LonDeg: t.LonDeg, HeightM: t.AltM},
		Pols:            cfg.Pols,
		EOP:             eop,
		IntegrationTime: cfg.IntegrationTime,
		ChannelWidth:    cfg.ChannelWidth,
		History:         fmt.Sprintf("Simulated with gomatvis from %s (telescope config %s, layout %s, catalog %s).", cfg.Path, t.ConfigFile, t.LayoutFile, cfg.Sources.Catalog),
	}
	index := map[int]int{}
	for i, a := range t.Antennas {
		obs.AntNames = append(obs.AntNames, a.Name)
		obs.AntNums = append(obs.AntNums, a.Number)
		index[a.Number] = i
	}
	for _, p := range cfg.AntPairs() {
		i, ok1 := index[p[0]]
		j, ok2 := index[p[1]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("matvis: %s: baseline %v names an antenna number not in the layout", cfg.Path, p)
		}
		obs.Baselines = append(obs.Baselines, [2]int{i, j})
	}
	if err := obs.Validate(len(t.Antennas), len(cfg.TimesJD), len(cfg.Freqs)); err != nil {
		return nil, fmt.Errorf("matvis: %s: %w", cfg.Path, err)
	}
	return obs, nil
}
