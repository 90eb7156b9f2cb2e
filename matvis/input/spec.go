package input

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis"
	"path/filepath"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// SpecOptions adjust how a spec becomes a Simulation.
type SpecOptions struct {
	// Topo, when set, replaces the spec's coordinate method with these
	// precomputed ENU vectors (the CLI's --topo).
	Topo matvis.Coordinates
	// CoordMethod, when set, overrides the spec's coord_method.
	CoordMethod string
	// Rotation is how a polarized sky's coherency is turned into the
	// beams' basis (empty or RotationIAU: derived from the IAU convention,
	// docs/stokes.md; RotationPyradiosky: pyuvsim 1.2's).
	Rotation matvis.CoherencyRotation
	// Precision, when set (1 or 2), overrides the spec's precision.
	Precision int
	// Run overrides the spec's options section (memory budget, chunking,
	// matprod).
	Run RunOverrides
	// BeamInterp, when set, is the spatial interpolation of beamfits
	// beams, one of beam.SpatialInterps; empty keeps map_coordinates,
	// matvis's, which a spec reproduces.
	BeamInterp string
	// Pole, when set, is the zenith treatment of beamfits beams (one of
	// beam.PoleTreatments); empty keeps matvis's exact edge, which the
	// spec references reproduce.
	Pole string
	// Warn receives warnings (nil: discarded).
	Warn func(string)
}

// FromSpecFile reads, validates and converts the spec at path.
func FromSpecFile(path string, o *SpecOptions) (*matvis.Simulation, error) {
	s, err := simspec.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return FromSpec(s, o)
}

// FromSpec converts a validated spec into a Simulation.
func FromSpec(s *simspec.Spec, o *SpecOptions) (*matvis.Simulation, error) {
	c, err := specConfig(s, o)
	if err != nil {
		return nil, err
	}
	return matvis.New(c)
}

// FromSpecObservation converts a validated spec into a Simulation whose
// output is the Observation's baselines in pyuvsim's convention, as a UVH5
// file holds them: antennas named ANT0…, every baseline with ant1 ≥ ant2
// (or the spec's antpairs as (ant1, ant2)), xx, yy, xy, yx when polarized
// (else the use_feed's own), the spec's site, EOP and telescope name.
func FromSpecObservation(s *simspec.Spec, o *SpecOptions) (*matvis.Simulation, *matvis.Observation, error) {
	c, err := specConfig(s, o)
	if err != nil {
		return nil, nil, err
	}
	obs := matvis.DefaultObservation(len(c.Antennas), c.Options)
	if s.LayoutCSV != "" {
		ants, err := specLayout(s)
		if err != nil {
			return nil, nil, err
		}
		obs.AntNames, obs.AntNums = nil, nil
		for _, a := range ants {
			obs.AntNames = append(obs.AntNames, a.Name)
			obs.AntNums = append(obs.AntNums, a.Number)
		}
		obs.Baselines = matvis.LowerBaselines(obs.AntNums)
	}
	if s.Telescope.Name != "" {
		obs.TelescopeName = s.Telescope.Name
	}
	if s.Name != "" {
		obs.History = fmt.Sprintf("Simulated with gomatvis from the spec %q.", s.Name)
	}
	if ps, ok := c.Sky.(matvis.PolarizedSpectrum); ok && ps.Polarized() {
		if obs.History != "" {
			obs.History += " "
		}
		obs.History += matvis.RotationNote(o.rotation())
	}
	if note := beamInterpNote(c.Beams); note != "" {
		if obs.History != "" {
			obs.History += " "
		}
		obs.History += note
	}
	obs.Site = astro.Site{LatDeg: s.Telescope.LatDeg, LonDeg: s.Telescope.LonDeg, HeightM: s.Telescope.HeightM}
	for _, e := range s.EOP {
		obs.EOP = append(obs.EOP, astro.EOP{UT1MinusUTCSec: e.UT1MinusUTCSec, XpArcsec: e.XpArcsec, YpArcsec: e.YpArcsec})
	}
	if c.Options.AntPairs != nil {
		obs.Baselines = c.Options.AntPairs
	}
	obs.UseConventions(&c)
	if err := obs.Validate(len(c.Antennas), len(c.Times), len(c.Freqs)); err != nil {
		return nil, nil, err
	}
	sim, err := matvis.New(c)
	if err != nil {
		return nil, nil, err
	}
	if o != nil {
		warnZeroBeams(sim, o.Warn)
	}
	if o != nil && o.Pole != "" {
		// Named only when asked: the default is matvis's own treatment.
		if note := beamPoleNote(sim.Beams, sim.Mode); note != "" {
			obs.History += " " + note
		}
	}
	return sim, obs, nil
}

// rotation is o's Rotation (nil: the default).
func (o *SpecOptions) rotation() matvis.CoherencyRotation {
	if o == nil {
		return ""
	}
	return o.Rotation
}

// specConfig is the Config of a validated spec.
func specConfig(s *simspec.Spec, o *SpecOptions) (matvis.Config, error) {
	if o == nil {
		o = &SpecOptions{}
	}
	c := matvis.Config{Freqs: s.FreqsHz, Times: s.TimesJD}
	if err := specSources(s, &c); err != nil {
		return matvis.Config{}, err
	}
	if err := specAntennas(s, &c); err != nil {
		return matvis.Config{}, err
	}
	prec := s.Precision
	if o.Precision != 0 {
		prec = o.Precision
	}
	if err := specBeams(s, o, prec, &c); err != nil {
		return matvis.Config{}, err
	}
	bcrsEvery, err := specRunOptions(s, o, prec, &c)
	if err != nil {
		return matvis.Config{}, err
	}
	method := s.CoordMethod
	if o.CoordMethod != "" {
		method = o.CoordMethod
	}
	if method == "" || method == simspec.CoordPrecomputed && o.Topo != nil {
		// Precomputed vectors come with no astrometry of their own: a
		// polarized sky's basis is then astropy's.
		method = simspec.CoordAstropy
	}
	if ps, ok := c.Sky.(matvis.PolarizedSpectrum); ok && ps.Polarized() {
		mk := func(ra, dec []float64) (matvis.Coordinates, error) {
			return specCoordinates(s, ra, dec, method, bcrsEvery, nil)
		}
		if c.PolBasis, err = matvis.NewPolBasis(o.Rotation, mk, c.RA, c.Dec); err != nil {
			return matvis.Config{}, err
		}
	}
	if o.Topo != nil {
		c.Coords = o.Topo
		return c, nil
	}
	if method == simspec.CoordPrecomputed {
		return matvis.Config{}, fmt.Errorf("matvis: coord_method %q needs precomputed ENU vectors (--topo FILE.npy)", method)
	}
	if c.Coords, err = specCoordinates(s, c.RA, c.Dec, method, bcrsEvery, o.Warn); err != nil {
		return matvis.Config{}, err
	}
	return c, nil
}

// specBeams builds the spec's beams (with the run's spatial interpolation
// and zenith treatment) into c, and the beam of each antenna when no
// layout file gives it.
func specBeams(s *simspec.Spec, o *SpecOptions, prec int, c *matvis.Config) error {
	order := 3
	if s.BeamSplineOpts != nil {
		order = s.BeamSplineOpts.Order
	}
	for i, b := range s.Beams {
		bm, err := specBeam(b, s.Dir, order, prec)
		if err == nil {
			bm, err = withSpatialInterp(bm, o.BeamInterp)
		}
		if err == nil {
			bm, err = withPole(bm, o.Pole)
		}
		if err != nil {
			return fmt.Errorf("matvis: beams[%d]: %w", i, err)
		}
		c.Beams = append(c.Beams, bm)
	}
	if s.LayoutCSV == "" {
		c.BeamIdx = s.BeamIdx
	}
	return nil
}

// specRunOptions sets c's options from the spec's (precision, polarization,
// feed, pairs, its options section) and the run's overrides and rotation;
// it returns the spec's BCRS update interval.
func specRunOptions(s *simspec.Spec, o *SpecOptions, prec int, c *matvis.Config) (bcrsEvery float64, err error) {
	feed, err := beam.ParseFeed(s.UseFeed)
	if err != nil {
		return 0, fmt.Errorf("matvis: use_feed: %w", err)
	}
	c.Options = matvis.Options{Precision: prec, Polarized: s.Polarized, Feed: feed}
	if s.AntPairs != nil {
		c.Options.AntPairs = make([][2]int, len(s.AntPairs))
		for k, p := range s.AntPairs {
			c.Options.AntPairs[k] = [2]int{p[0], p[1]}
		}
	}
	if so := s.Options; so != nil {
		c.Options.MaxMemory = int64(so.MaxMemoryBytes)
		c.Options.MinChunks = so.MinChunks
		c.Options.SourceBuffer = so.SourceBuffer
		c.Options.MemoryBuffer = so.MemoryBuffer
		c.Options.MatProd = matvis.MatProd(so.MatProd)
		bcrsEvery = so.UpdateBCRSEveryS
	}
	o.Run.apply(&c.Options)
	c.Options.Rotation = o.Rotation
	return bcrsEvery, nil
}

// specBeam builds one spec beam.
func specBeam(b simspec.Beam, dir string, order, precision int) (beam.Beam, error) {
	bm, err := specBeamKind(b, dir, order, precision)
	if err != nil || b.Jones != simspec.JonesDiagonal {
		return bm, err
	}
	d := beam.DiagonalJones{Beam: bm}
	return d, d.Validate()
}

// specBeamKind builds a spec beam of its type: an analytic type of
// beam.AnalyticTypes, or a beamfits file.
func specBeamKind(b simspec.Beam, dir string, order, precision int) (beam.Beam, error) {
	if t, ok := beam.LookupAnalytic(b.Type); ok {
		return t.New(beam.Shape{SigmaRad: b.SigmaRad, DiameterM: b.DiameterM})
	}
	switch b.Type {
	case "beamfits":
		p := b.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return loadBeamFITS(p, order, precision)
	}
	return nil, fmt.Errorf("type %q: unknown beam type", b.Type)
}
