package obsparam

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// globalShape holds the telescope-config-level diameter and sigma that
// pyuvsim 1.2 applied to gaussian and airy beams without their own (newer
// pyuvsim refuses them).
type globalShape struct {
	diameter, sigma   float64
	hasDiam, hasSigma bool
	line              *yaml.Node
	used              bool
}

func (g *globalShape) set(key string, v float64, n *yaml.Node) {
	if key == "diameter" {
		g.diameter, g.hasDiam = v, true
	} else {
		g.sigma, g.hasSigma = v, true
	}
	g.line = n
}

// The analytic beam types are beam.AnalyticTypes: their names are the
// untagged forms' types and simspec's, their classes the !AnalyticBeam
// form's.

// analyticNames lists the analytic types' names: "uniform, gaussian, …".
func analyticNames() string {
	var names []string
	for _, t := range beam.AnalyticTypes() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// analyticClassNames lists pyuvdata's classes of the analytic types, sorted.
func analyticClassNames() string {
	var names []string
	for _, t := range beam.AnalyticTypes() {
		names = append(names, t.Class)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// shapeKeys are this format's names of the analytic beams' shape values,
// with their units for messages.
var shapeKeys = map[beam.ShapeParam]struct{ key, unit string }{
	beam.ShapeSigma:    {"sigma", "rad"},
	beam.ShapeDiameter: {"diameter", "m"},
}

// takesShape says whether the analytic type typ takes the shape key
// ("sigma", "diameter").
func takesShape(typ, key string) bool {
	t, _ := beam.LookupAnalytic(typ)
	for _, p := range t.Shape {
		if shapeKeys[p].key == key {
			return true
		}
	}
	return false
}

// beamSpec is one parsed beam with its feeds.
type beamSpec struct {
	beam  simspec.Beam
	feeds []string
}

// buildBeams parses the beam_paths entries the layout uses, in increasing
// BeamID order, and points each antenna at its beam.
func (r *reader) buildBeams(tc *yfile, c telConfig) error {
	es, err := tc.entries(c.beamPaths, "beam_paths")
	if err != nil {
		return err
	}
	byID := map[int]entry{}
	for _, e := range es {
		if e.keyN.ShortTag() != "!!int" {
			return tc.errf(e.keyN, "beam_paths", "beam ids must be integers (as the layout's BeamID), found %s", kindName(e.keyN))
		}
		id, err := tc.integer(e.keyN, "beam_paths")
		if err != nil {
			return err
		}
		byID[id] = e
	}
	t := &r.cfg.Telescope
	var ids []int
	seen := map[int]bool{}
	for _, a := range t.Antennas {
		if _, ok := byID[a.BeamID]; !ok {
			return &Error{File: t.LayoutFile, Field: "BeamID", Value: fmt.Sprint(a.BeamID),
				Msg: fmt.Sprintf("antenna %d (%s) uses beam id %d, which is not in beam_paths of %s (ids there: %v)", a.Number, a.Name, a.BeamID, tc.name, sortedIDs(byID))}
		}
		if !seen[a.BeamID] {
			seen[a.BeamID] = true
			ids = append(ids, a.BeamID)
		}
	}
	sort.Ints(ids)
	index := map[int]int{}
	for i, id := range ids {
		e := byID[id]
		spec, err := r.parseBeam(tc, fmt.Sprintf("beam_paths.%d", id), e.value, &c.global)
		if err != nil {
			return err
		}
		if i > 0 && strings.Join(spec.feeds, "") != strings.Join(r.feeds, "") {
			return tc.errf(e.value, fmt.Sprintf("beam_paths.%d", id), "feeds %v differ from beam %d's %v: all beams must have the same feeds", spec.feeds, ids[0], r.feeds)
		}
		if i == 0 {
			r.feeds = spec.feeds
		}
		t.Beams = append(t.Beams, spec.beam)
		t.BeamIDs = append(t.BeamIDs, id)
		index[id] = i
	}
	for i := range t.Antennas {
		t.Antennas[i].Beam = index[t.Antennas[i].BeamID]
	}
	var unused []string
	for id := range byID {
		if !seen[id] {
			unused = append(unused, fmt.Sprint(id))
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		r.warn(tc.warnf(c.beamPaths, "beam_paths", "beam id(s) %s are not used by the layout and were not checked", strings.Join(unused, ", ")))
	}
	if (c.global.hasDiam || c.global.hasSigma) && !c.global.used {
		r.warn(tc.warnf(c.global.line, "diameter/sigma", "ignored: no gaussian or airy beam lacks its own shape (newer pyuvsim refuses these global keys)"))
	}
	return nil
}

func sortedIDs(m map[int]entry) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// firstBeamFeeds are the feeds of the first beam (x and y unless an
// analytic beam says otherwise), which pyuvsim's default polarizations
// follow.
func (r *reader) firstBeamFeeds() []string {
	if len(r.feeds) == 0 {
		return []string{"x", "y"}
	}
	return r.feeds
}

// parseBeam reads one beam_paths entry in any of pyuvsim's forms.
func (r *reader) parseBeam(tc *yfile, field string, n *yaml.Node, g *globalShape) (beamSpec, error) {
	d := deref(n)
	switch {
	case d == nil:
		return beamSpec{}, tc.errf(n, field, "missing beam")
	case d.Tag == "!AnalyticBeam":
		return r.taggedAnalytic(tc, field, d)
	case d.Tag == "!UVBeam":
		return r.uvBeam(tc, field, d)
	case strings.HasPrefix(d.Tag, "!") && !strings.HasPrefix(d.Tag, "!!"):
		return beamSpec{}, tc.errf(n, field, "unknown YAML tag %s: the beam tags are !AnalyticBeam and !UVBeam", d.Tag)
	case d.Kind == yaml.ScalarNode && d.ShortTag() == "!!str":
		if _, ok := beam.LookupAnalytic(d.Value); ok {
			return r.dictAnalytic(tc, field, d, d.Value, nil, g)
		}
		if ext := strings.ToLower(filepath.Ext(d.Value)); ext != ".fits" && ext != ".beamfits" {
			return beamSpec{}, tc.errf(n, field, "neither an analytic beam type (%s) nor a beamfits file name (.fits, .beamfits)", analyticNames())
		}
		return r.beamFile(tc, field, d, d.Value, "")
	case d.Kind == yaml.MappingNode:
		return r.dictBeam(tc, field, d, g)
	}
	return beamSpec{}, tc.errf(n, field, "a beam must be a file name, an analytic type name, a mapping with filename or type, or a !AnalyticBeam / !UVBeam entry; found %s", kindName(n))
}

// dictBeam handles the untagged mappings: {filename: ...} and {type: ...}.
func (r *reader) dictBeam(tc *yfile, field string, d *yaml.Node, g *globalShape) (beamSpec, error) {
	es, err := tc.entries(d, field)
	if err != nil {
		return beamSpec{}, err
	}
	for _, e := range es {
		if e.key == "filename" {
			return r.uvBeam(tc, field, d)
		}
	}
	for _, e := range es {
		if e.key == "type" {
			typ, err := tc.str(e.value, field+".type")
			if err != nil {
				return beamSpec{}, err
			}
			if _, ok := beam.LookupAnalytic(typ); !ok {
				return beamSpec{}, tc.errf(e.value, field+".type", "undefined beam model type: the types are %s", analyticNames())
			}
			return r.dictAnalytic(tc, field, d, typ, es, g)
		}
	}
	return beamSpec{}, tc.errf(d, field, "beam model must have either a 'filename' field for UVBeam files or a 'type' field for analytic beams")
}

// dictAnalytic handles {type: T, sigma/diameter: ...} and bare type names.
func (r *reader) dictAnalytic(tc *yfile, field string, d *yaml.Node, typ string, es []entry, g *globalShape) (beamSpec, error) {
	p := shapeParams{}
	for _, e := range es {
		f := field + "." + e.key
		switch {
		case e.key == "type":
		case takesShape(typ, e.key):
			if err := p.read(tc, e, f); err != nil {
				return beamSpec{}, err
			}
		default:
			return beamSpec{}, tc.keyErrf(e, f, "not a field of a %s beam in this form (pyuvsim would ignore it); use the !AnalyticBeam form for more options", typ)
		}
	}
	// The global diameter first, as pyuvsim 1.2, then the global sigma.
	globalDiam, globalSigma := g.hasDiam && takesShape(typ, "diameter"), g.hasSigma && takesShape(typ, "sigma")
	if !p.hasSigma && !p.hasDiam && (globalDiam || globalSigma) {
		if globalDiam {
			p.diameter, p.hasDiam = g.diameter, true
		} else {
			p.sigma, p.hasSigma = g.sigma, true
		}
		g.used = true
		r.warn(tc.warnf(d, field, "uses the telescope config's global diameter/sigma, as pyuvsim 1.2 did (newer pyuvsim refuses global shape keys)"))
	}
	b, err := p.beam(tc, field, d, typ)
	return beamSpec{beam: b, feeds: []string{"x", "y"}}, err
}

// shapeParams are an analytic beam's shape values.
type shapeParams struct {
	sigma, diameter   float64
	hasSigma, hasDiam bool
}

func (p *shapeParams) read(tc *yfile, e entry, field string) error {
	v, err := tc.num(e.value, field)
	if err != nil {
		return err
	}
	if !(v > 0) {
		return tc.errf(e.value, field, "must be positive")
	}
	sp := beam.ShapeDiameter
	if e.key == "sigma" {
		sp = beam.ShapeSigma
	}
	if err := beam.CheckShape(sp, v); err != nil {
		return tc.errf(e.value, field, "%v", err)
	}
	if e.key == "sigma" {
		p.sigma, p.hasSigma = v, true
	} else {
		p.diameter, p.hasDiam = v, true
	}
	return nil
}

// beam checks the shape against the type (exactly one of the shape values
// it takes, beam.AnalyticType.Shape) and returns the simspec beam.
func (p *shapeParams) beam(tc *yfile, field string, d *yaml.Node, typ string) (simspec.Beam, error) {
	t, _ := beam.LookupAnalytic(typ)
	var named []string // "diameter (m)", sorted
	var bare []string  // "diameter"
	given := 0
	b := simspec.Beam{Type: typ}
	for _, sp := range t.Shape {
		k := shapeKeys[sp]
		named, bare = append(named, k.key+" ("+k.unit+")"), append(bare, k.key)
		switch {
		case sp == beam.ShapeSigma && p.hasSigma:
			b.SigmaRad, given = p.sigma, given+1
		case sp == beam.ShapeDiameter && p.hasDiam:
			b.DiameterM, given = p.diameter, given+1
		}
	}
	sort.Strings(named)
	sort.Strings(bare)
	switch {
	case len(t.Shape) == 0 || given == 1:
		return b, nil
	case given > 1:
		return simspec.Beam{}, tc.errf(d, field, "only one of %s can be set for a %s beam", strings.Join(bare, " or "), typ)
	case len(t.Shape) == 1:
		return simspec.Beam{}, tc.errf(d, field, "missing %s for %s beam", named[0], typ)
	}
	return simspec.Beam{}, tc.errf(d, field, "missing shape parameter for %s beam: either %s must be set", typ, strings.Join(named, " or "))
}

// taggedAnalytic handles the !AnalyticBeam form (pyuvdata's constructor).
func (r *reader) taggedAnalytic(tc *yfile, field string, d *yaml.Node) (beamSpec, error) {
	es, err := tc.entries(d, field)
	if err != nil {
		return beamSpec{}, err
	}
	typ, err := analyticClass(tc, field, d, es)
	if err != nil {
		return beamSpec{}, err
	}
	p := shapeParams{}
	sigmaPower := false
	fd := feedOpts{feeds: []string{"x", "y"}}
	for _, e := range es {
		f := field + "." + e.key
		switch {
		case e.key == "class":
		case e.key == "sigma" || e.key == "diameter":
			if !takesShape(typ, e.key) {
				return beamSpec{}, tc.keyErrf(e, f, "not a field of %s", classOf(typ))
			}
			err = p.read(tc, e, f)
		case e.key == "sigma_type" && typ == "gaussian":
			var st string
			if st, err = tc.str(e.value, f); err == nil && st != "efield" && st != "power" {
				err = tc.errf(e.value, f, "sigma_type must be 'efield' or 'power'")
			}
			sigmaPower = st == "power"
		case e.key == "spectral_index" && typ == "gaussian":
			var v float64
			if v, err = tc.num(e.value, f); err == nil && v != 0 {
				err = tc.errf(e.value, f, "a chromatic sigma (spectral_index != 0) is not supported: use diameter for a chromatic gaussian")
			}
		case e.key == "reference_frequency" && typ == "gaussian":
			_, err = tc.num(e.value, f) // no effect while spectral_index is 0
		case feedFields[e.key]:
			err = fd.read(r, tc, e, f)
		default:
			return beamSpec{}, tc.keyErrf(e, f, "unknown field of %s", classOf(typ))
		}
		if err != nil {
			return beamSpec{}, err
		}
	}
	b, err := p.beam(tc, field, d, typ)
	if sigmaPower && p.hasSigma {
		b.SigmaRad *= math.Sqrt2 // a power-beam sigma is the E-field sigma / sqrt(2)
	}
	return beamSpec{beam: b, feeds: fd.feeds}, err
}

// analyticClass reads the class field ("GaussianBeam", optionally with a
// pyuvdata module path) into a simspec beam type.
func analyticClass(tc *yfile, field string, d *yaml.Node, es []entry) (string, error) {
	for _, e := range es {
		if e.key != "class" {
			continue
		}
		cls, err := tc.str(e.value, field+".class")
		if err != nil {
			return "", err
		}
		parts := strings.Split(cls, ".")
		name := parts[len(parts)-1]
		if len(parts) == 1 || parts[0] == "pyuvdata" {
			for _, t := range beam.AnalyticTypes() {
				if t.Class == name {
					return t.Name, nil
				}
			}
		}
		return "", tc.errf(e.value, field+".class", "%s is not a supported AnalyticBeam: the classes are %s (custom beam classes cannot be used)", shorten(cls), analyticClassNames())
	}
	return "", tc.errf(d, field, "yaml entries for AnalyticBeam must specify a class")
}

// classOf is pyuvdata's class of the analytic type typ.
func classOf(typ string) string {
	if t, ok := beam.LookupAnalytic(typ); ok {
		return t.Class
	}
	return typ
}

// feedFields are the AnalyticBeam fields every class takes.
var feedFields = map[string]bool{"feed_array": true, "feed_angle": true, "mount_type": true, "include_cross_pols": true, "x_orientation": true}

// feedOpts are an analytic beam's feed settings; only pyuvdata's defaults
// (x east, y north, fixed mount) are supported, with one or both feeds.
type feedOpts struct {
	feeds []string
}

func (fo *feedOpts) read(r *reader, tc *yfile, e entry, f string) error {
	switch e.key {
	case "feed_array":
		return fo.readFeeds(tc, e, f)
	case "feed_angle":
		vals, _, err := tc.numOrList(e.value, f)
		if err != nil {
			return err
		}
		want := map[string]float64{"x": math.Pi / 2, "y": 0}
		if len(vals) != len(fo.feeds) {
			return tc.errf(e.value, f, "must have one angle per feed (%v)", fo.feeds)
		}
		for i, v := range vals {
			if math.Abs(v-want[fo.feeds[i]]) > 1e-6 {
				return tc.errf(e.value, f, "only the default feed angles are supported (x: pi/2, east; y: 0, north)")
			}
		}
	case "mount_type":
		s, err := tc.str(e.value, f)
		if err != nil {
			return err
		}
		if s != "fixed" {
			return tc.errf(e.value, f, "only fixed mounts are supported")
		}
	case "x_orientation":
		s, err := tc.str(e.value, f)
		if err != nil {
			return err
		}
		if o := strings.ToLower(s); o != "east" && o != "e" && o != "ew" {
			return tc.errf(e.value, f, "only x_orientation east (the default) is supported")
		}
	case "include_cross_pols":
		if _, err := tc.boolean(e.value, f); err != nil {
			return err
		}
		r.warn(tc.warnf(e.keyN, f, "ignored: it only shapes power beams, and gomatvis uses E-field beams"))
	}
	return nil
}

func (fo *feedOpts) readFeeds(tc *yfile, e entry, f string) error {
	items, err := tc.seq(e.value, f)
	if err != nil {
		return err
	}
	var feeds []string
	for i, it := range items {
		s, err := tc.str(it, fmt.Sprintf("%s[%d]", f, i))
		if err != nil {
			return err
		}
		if s != "x" && s != "y" {
			return tc.errf(it, f, "feed %q is not supported: the feeds are x and y", s)
		}
		if contains(feeds, s) {
			return tc.errf(it, f, "feed %q appears twice", s)
		}
		feeds = append(feeds, s)
	}
	if len(feeds) == 0 {
		return tc.errf(e.value, f, "must list one or two feeds")
	}
	if len(feeds) == 2 && feeds[0] != "x" {
		return tc.errf(e.value, f, "the feed order must be [x, y]")
	}
	fo.feeds = feeds
	return nil
}

// uvBeamHarmless are UVBeam.read options that do not change the beam.
var uvBeamHarmless = map[string]bool{"run_check": true, "check_extra": true, "run_check_acceptability": true}

// uvBeam handles {filename: ...} and !UVBeam {filename: ...}.
func (r *reader) uvBeam(tc *yfile, field string, d *yaml.Node) (beamSpec, error) {
	es, err := tc.entries(d, field)
	if err != nil {
		return beamSpec{}, err
	}
	var fileN *yaml.Node
	var pathVar, fileType string
	for _, e := range es {
		f := field + "." + e.key
		switch {
		case e.key == "filename":
			fileN = e.value
		case e.key == "path_variable":
			if pathVar, err = tc.str(e.value, f); err == nil && isFile(pathVar) != nil && !isDir(pathVar) {
				err = tc.errf(e.value, f, "must be the directory of the file (a Python module variable such as pyuvsim.data.DATA_PATH cannot be used)")
			}
		case e.key == "mount_type":
			var m string
			if m, err = tc.str(e.value, f); err == nil && m != "fixed" {
				err = tc.errf(e.value, f, "only fixed mounts are supported")
			}
		case e.key == "file_type":
			if fileType, err = tc.str(e.value, f); err == nil && fileType != "beamfits" {
				err = tc.errf(e.value, f, "only beamfits beam files are supported")
			}
		case uvBeamHarmless[e.key]:
			r.warn(tc.warnf(e.keyN, f, "ignored: a UVBeam read check option"))
		default:
			err = tc.keyErrf(e, f, "this UVBeam read option is not supported by gomatvis")
		}
		if err != nil {
			return beamSpec{}, err
		}
	}
	if fileN == nil {
		return beamSpec{}, tc.errf(d, field, "yaml entries for UVBeam must specify a filename")
	}
	name, err := tc.str(fileN, field+".filename")
	if err != nil {
		return beamSpec{}, err
	}
	if pathVar != "" {
		name = filepath.Join(pathVar, name)
	}
	return r.beamFile(tc, field+".filename", fileN, name, fileType)
}

// beamFile resolves a beam file: pyuvsim looks in the working directory
// (then in its own data directory, which gomatvis does not have); gomatvis
// then also looks beside the telescope config and the obsparam.
func (r *reader) beamFile(tc *yfile, field string, n *yaml.Node, name, fileType string) (beamSpec, error) {
	ext := strings.ToLower(filepath.Ext(name))
	if fileType == "" && ext != ".fits" && ext != ".beamfits" {
		return beamSpec{}, tc.errf(n, field, "only beamfits beam files (.fits, .beamfits) are supported; for another name of a beamfits file add file_type: beamfits")
	}
	p, err := r.resolvePath(tc, n, field, name, filepath.Dir(tc.name), r.dir)
	if err != nil {
		return beamSpec{}, err
	}
	if !filepath.IsAbs(name) && (r.cwd == "" || !sameFile(p, filepath.Join(r.cwd, name))) {
		r.warn(tc.warnf(n, field, "%q is not in the working directory, where pyuvsim looks; using %s", name, p))
	}
	return beamSpec{beam: simspec.Beam{Type: "beamfits", Path: p}, feeds: []string{"x", "y"}}, nil
}
