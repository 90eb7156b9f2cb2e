package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// simInput is what simulate runs: a simspec (JSON, or the embedded
// example) or a pyuvsim obsparam YAML with the files it names.
type simInput struct {
	path string
	spec *simspec.Spec
	cfg  *obsparam.Config
}

// isObsParam says whether path names a pyuvsim obsparam file.
func isObsParam(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// loadInput reads a spec, the example or an obsparam file.
func loadInput(path string) (*simInput, error) {
	in := &simInput{path: path}
	var err error
	if isObsParam(path) {
		in.cfg, err = obsparam.Read(path)
	} else {
		in.spec, err = loadSpec(path)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// name names the simulation in summaries.
func (in *simInput) name() string {
	if in.cfg != nil {
		return filepath.Base(in.path)
	}
	return specName(in.spec)
}

// defaultOutput is where an obsparam's filing section puts the output
// ("" for a spec, which needs -o).
func (in *simInput) defaultOutput() string {
	if in.cfg == nil {
		return ""
	}
	return in.cfg.OutputPath()
}

// files are the input files, which no output may replace.
func (in *simInput) files() []string {
	if in.spec != nil {
		return specInputs(in.path, in.spec)
	}
	t := in.cfg.Telescope
	files := []string{in.cfg.Path, t.ConfigFile, t.LayoutFile, in.cfg.Sources.Catalog}
	for _, b := range t.Beams {
		if b.Type == "beamfits" {
			files = append(files, b.Path)
		}
	}
	return files
}

// times are the simulation's UTC Julian dates.
func (in *simInput) times() []float64 {
	if in.cfg != nil {
		return in.cfg.TimesJD
	}
	return in.spec.TimesJD
}

// buildOptions are simulate's flags that shape the Simulation.
type buildOptions struct {
	uvh5        bool
	topo        matvis.Coordinates
	coordMethod string
	eopPath     string
	// rotation is a polarized sky's coherency rotation (--stokes-rotation).
	rotation matvis.CoherencyRotation
	warn     func(string)
}

// build makes the Simulation, and for UVH5 output the Observation that
// lays it out in pyuvsim's conventions.
func (in *simInput) build(o buildOptions) (*matvis.Simulation, *matvis.Observation, error) {
	var eop []astro.EOP
	if o.eopPath != "" {
		var err error
		if eop, err = matvis.ReadEOPFile(o.eopPath, in.times()); err != nil {
			return nil, nil, fmt.Errorf("--eop: %w", err)
		}
	}
	if in.cfg != nil {
		return matvis.FromObsConfig(in.cfg, &matvis.ObsOptions{
			EOP: eop, Topo: o.topo, CoordMethod: o.coordMethod, MatvisConventions: !o.uvh5, Rotation: o.rotation, Warn: o.warn,
		})
	}
	if eop != nil {
		in.spec.EOP = make([]simspec.EOP, len(eop))
		for i, e := range eop {
			in.spec.EOP[i] = simspec.EOP{UT1MinusUTCSec: e.UT1MinusUTCSec, XpArcsec: e.XpArcsec, YpArcsec: e.YpArcsec}
		}
	}
	so := &matvis.SpecOptions{Topo: o.topo, CoordMethod: o.coordMethod, Rotation: o.rotation, Warn: o.warn}
	if o.uvh5 {
		return matvis.FromSpecObservation(in.spec, so)
	}
	sim, err := matvis.FromSpec(in.spec, so)
	return sim, nil, err
}
