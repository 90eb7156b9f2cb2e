package main

import (
	"context"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
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

// loadInput reads a spec, the example or an obsparam file (with the
// telescope config and layout it names), returning at once when ctx is
// cancelled.
func loadInput(ctx context.Context, path string) (*simInput, error) {
	return untilCancelled(ctx, "reading "+path, func() (*simInput, error) {
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
	})
}

// name names the simulation in summaries.
func (in *simInput) name() string {
	if in.cfg != nil {
		return filepath.Base(in.path)
	}
	return specName(in.spec)
}

// defaultOutput is where an obsparam's filing section puts the output
// ("" for a spec, which needs -o). Its outdir is created when missing, as
// pyuvsim's write_uvdata does (it was refused as "not writable").
func (in *simInput) defaultOutput() (string, error) {
	if in.cfg == nil {
		return "", nil
	}
	if dir := in.cfg.Filing.OutDir; dir != "" {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return "", fmt.Errorf("%s: filing.outdir %s: creating it (as pyuvsim does): %w", in.path, dir, err)
		}
	}
	return in.cfg.OutputPath(), nil
}

// files are the input files, which no output may replace.
func (in *simInput) files() []string {
	var files []string
	for _, f := range in.namedFiles() {
		files = append(files, f.path)
	}
	return files
}

// namedFiles are the input files with what each is to the run, for the
// refusal of an output that would replace one.
func (in *simInput) namedFiles() []namedInput {
	if in.spec != nil {
		return specFiles(in.path, in.spec)
	}
	return obsparamFiles(in.cfg)
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
	// uvh5 says the output is UVH5 (else .npy, held whole).
	uvh5 bool
	topo matvis.Coordinates
	// topoPath is the --topo file topo was read from, for messages.
	topoPath    string
	coordMethod string
	eopPath     string
	// rotation is a polarized sky's coherency rotation (--stokes-rotation).
	rotation matvis.CoherencyRotation
	// precision (--precision; 0: the input's) and run (the other matvis
	// options) override the input's own.
	precision int
	run       input.RunOverrides
	// beamInterp is --beam-interp: the beamfits beams' spatial
	// interpolation ("": the input's default, az_za_simple for an
	// obsparam, map_coordinates for a spec).
	beamInterp string
	// beamPole is --beam-pole: the beamfits beams' zenith treatment ("":
	// the input's default, input.ObsOptions.Pole's and SpecOptions.Pole's).
	beamPole string
	warn     func(string)
	// notice receives the one line an obsparam run with a polarized sky
	// prints: the rotation that runs and the flag for the other (nil:
	// none).
	notice func(string)
}

// build makes the Simulation, and the Observation that lays it out in
// pyuvsim's conventions: for UVH5 output, and for every output of an
// obsparam (its .npy holds the numbers of its UVH5, in pyuvsim's
// conventions: V(ant1, ant2) over the obsparam's baselines). A spec's
// .npy output is matvis's (no Observation). It reads the catalog, beams
// and Earth-orientation file and returns at once when ctx is cancelled.
func (in *simInput) build(ctx context.Context, o buildOptions) (*matvis.Simulation, *matvis.Observation, error) {
	type built struct {
		sim *matvis.Simulation
		obs *matvis.Observation
	}
	b, err := untilCancelled(ctx, "preparing the simulation (its catalog, beams and coordinates)", func() (built, error) {
		sim, obs, err := in.buildNow(o)
		return built{sim, obs}, topoError(o.topoPath, err)
	})
	return b.sim, b.obs, err
}

// buildNow is build, without the watch on a cancellation.
func (in *simInput) buildNow(o buildOptions) (*matvis.Simulation, *matvis.Observation, error) {
	var eop []astro.EOP
	if o.eopPath != "" {
		var err error
		if eop, err = input.ReadEOPFile(o.eopPath, in.times()); err != nil {
			return nil, nil, fmt.Errorf("--eop: %w", err)
		}
	}
	if in.cfg != nil {
		sim, obs, err := input.FromObsConfig(in.cfg, &input.ObsOptions{
			EOP: eop, EOPSource: eopSource(o.eopPath), Topo: o.topo, CoordMethod: o.coordMethod, Precision: o.precision, Run: o.run,
			WholeOutput: !o.uvh5, Rotation: o.rotation, BeamInterp: o.beamInterp, Pole: o.beamPole, Warn: o.warn,
		})
		if err == nil && o.notice != nil && sim.SkyPolarized() {
			// pyuvsim 1.2 runs pyradiosky's rotation: say which ran.
			note := "polarized sky: " + matvis.RotationNote(o.rotation)
			if o.beamPole == "" && input.GriddedPole(sim.Beams, sim.Mode) == beam.PoleContinued {
				note += " Beamfits beams continued through the pole (smooth through zenith); --beam-pole edge gives pyuvdata's exact spline."
			}
			o.notice(note)
		}
		return sim, obs, err
	}
	if eop != nil {
		in.spec.EOP = make([]simspec.EOP, len(eop))
		for i, e := range eop {
			in.spec.EOP[i] = simspec.EOP{UT1MinusUTCSec: e.UT1MinusUTCSec, XpArcsec: e.XpArcsec, YpArcsec: e.YpArcsec}
		}
	}
	so := &input.SpecOptions{Topo: o.topo, CoordMethod: o.coordMethod, Rotation: o.rotation, Precision: o.precision, Run: o.run,
		BeamInterp: o.beamInterp, Pole: o.beamPole, Warn: o.warn}
	if o.uvh5 {
		return input.FromSpecObservation(in.spec, so)
	}
	sim, err := input.FromSpec(in.spec, so)
	return sim, nil, err
}

// precisionOverride is --precision as it changes the run: 0 when not
// given or equal to the input's own (a spec's precision; 2 for an
// obsparam, as pyuvsim computes in float64), so that the config hash of
// a sharded run changes only when the visibilities do.
func (in *simInput) precisionOverride(p int) int {
	own := 2
	if in.spec != nil {
		own = in.spec.Precision
	}
	if p == own {
		return 0
	}
	return p
}

// beamInterp is the spatial interpolation the input's beamfits beams get
// with --beam-interp flag ("" when it has none): the flag, or the input's
// default, az_za_simple for an obsparam (pyuvsim's) and map_coordinates
// for a spec (matvis's).
func (in *simInput) beamInterp(flag string) string {
	var beams []simspec.Beam
	if in.cfg != nil {
		beams = in.cfg.Telescope.Beams
	} else {
		beams = in.spec.Beams
	}
	if !slices.ContainsFunc(beams, func(b simspec.Beam) bool { return b.Type == "beamfits" }) {
		return ""
	}
	switch {
	case flag != "":
		return flag
	case in.cfg != nil:
		return beam.SpatialAzZaSimple
	}
	return beam.SpatialMapCoordinates
}

// beamPole is what the config hash records of the beamfits beams' zenith
// treatment with --beam-pole flag and --stokes-rotation rot: "" where it
// is matvis's and pyuvdata's exact edge for certain (no beamfits beam, a
// spec without the flag, the flag edge, an obsparam under pyradiosky's
// rotation without the flag), else the flag or, for an obsparam's
// default under the IAU rotation, "continued-for-a-polarized-sky" (the
// catalog, hashed by its bytes, says which).
func (in *simInput) beamPole(flag string, rot matvis.CoherencyRotation) string {
	if in.beamInterp("") == "" || flag == beam.PoleEdge {
		return ""
	}
	switch {
	case flag != "":
		return flag
	case in.cfg != nil && matvis.EffectiveRotation(rot) == matvis.RotationIAU:
		return "continued-for-a-polarized-sky"
	}
	return ""
}

// eopSource names an --eop file for the output's history ("" when none).
func eopSource(path string) string {
	if path == "" {
		return ""
	}
	return "--eop " + path
}
