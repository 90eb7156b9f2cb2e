package obsparam

import (
	"math"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"gopkg.in/yaml.v3"
)

// telescopeMeta are obsparam telescope keys that only fill pyuvsim's output
// metadata.
var telescopeMeta = map[string]bool{
	"antenna_diameters": true, "x_orientation": true, "feed_angle": true, "feed_array": true,
	"mount_type": true, "instrument": true, "antenna_numbers": true, "antenna_names": true,
}

// parseTelescope reads the obsparam telescope section, then the telescope
// config and the layout it names, and builds the beams.
func (r *reader) parseTelescope(sec *yaml.Node) error {
	es, err := r.obs.entries(sec, "telescope")
	if err != nil {
		return err
	}
	var cfgN, layoutN *yaml.Node
	var beamSelect []fileEntry
	for _, e := range es {
		field := "telescope." + e.key
		switch {
		case e.key == "telescope_config_name":
			cfgN = e.value
		case e.key == "array_layout":
			layoutN = e.value
		case e.key == "select":
			r.warn(r.obs.warnf(e.keyN, field, "beam selections belong in the telescope config, not the obsparam (pyuvsim deprecates this)"))
			sel, err := r.obs.entries(e.value, field)
			if err != nil {
				return err
			}
			for _, se := range sel {
				beamSelect = append(beamSelect, fileEntry{r.obs, se})
			}
		case e.key == "telescope_name" || e.key == "telescope_location" || e.key == "world" || e.key == "ellipsoid":
			r.warn(r.obs.warnf(e.keyN, field, "ignored: the telescope config's value is used, as in pyuvsim"))
		case telescopeMeta[e.key]:
			r.warn(r.obs.warnf(e.keyN, field, "ignored: it only fills pyuvsim's output metadata"))
		default:
			r.warn(r.obs.warnf(e.keyN, field, "unknown telescope key, ignored (pyuvsim ignores it too)"))
		}
	}
	if cfgN == nil {
		return r.obs.errf(sec, "telescope.telescope_config_name", "required: gomatvis needs the telescope config for the beams")
	}
	if layoutN == nil {
		return r.obs.errf(sec, "telescope.array_layout", "array_layout must be provided")
	}
	if d := deref(layoutN); d != nil && d.Kind == yaml.MappingNode {
		return r.obs.errf(layoutN, "telescope.array_layout", "antenna positions given as a mapping are not supported: give a layout file")
	}
	tc, err := r.loadTelescopeConfig(cfgN)
	if err != nil {
		return err
	}
	if err := r.loadLayout(layoutN); err != nil {
		return err
	}
	return r.readTelescopeConfig(tc, beamSelect)
}

func (r *reader) loadTelescopeConfig(cfgN *yaml.Node) (*yfile, error) {
	name, err := r.obs.str(cfgN, "telescope.telescope_config_name")
	if err != nil {
		return nil, err
	}
	p, err := r.resolvePath(r.obs, cfgN, "telescope.telescope_config_name", name, r.dir)
	if err != nil {
		return nil, err
	}
	data, err := readBounded(p, "telescope config file")
	if err != nil {
		return nil, err
	}
	r.cfg.Telescope.ConfigFile = p
	return parseYAML(p, data)
}

func (r *reader) loadLayout(layoutN *yaml.Node) error {
	name, err := r.obs.str(layoutN, "telescope.array_layout")
	if err != nil {
		return err
	}
	p, err := r.resolvePath(r.obs, layoutN, "telescope.array_layout", name, r.dir)
	if err != nil {
		return err
	}
	data, err := readBounded(p, "layout file")
	if err != nil {
		return err
	}
	ants, warns, err := ParseLayout(p, data)
	if err != nil {
		return err
	}
	r.cfg.Warnings = append(r.cfg.Warnings, warns...)
	r.cfg.Telescope.LayoutFile = p
	r.cfg.Telescope.Antennas = ants
	return nil
}

// fileEntry is a mapping entry with the file it is in.
type fileEntry struct {
	y *yfile
	entry
}

// telConfig collects the telescope config's keys.
type telConfig struct {
	beamPaths, location, name, spline, interp *yaml.Node
	selects                                   []fileEntry
	global                                    globalShape
}

// readTelescopeConfig reads the telescope config's keys and builds the
// beams of the layout's BeamIDs.
func (r *reader) readTelescopeConfig(tc *yfile, obsSelect []fileEntry) error {
	es, err := tc.entries(tc.root, "")
	if err != nil {
		return err
	}
	var c telConfig
	c.selects = obsSelect
	for _, e := range es {
		if err := r.telConfigKey(tc, &c, e); err != nil {
			return err
		}
	}
	for _, req := range []struct {
		n    *yaml.Node
		name string
	}{{c.beamPaths, "beam_paths"}, {c.location, "telescope_location"}, {c.name, "telescope_name"}} {
		if req.n == nil {
			return &Error{File: tc.name, Field: req.name, Msg: "required in the telescope config"}
		}
	}
	t := &r.cfg.Telescope
	if t.Name, err = tc.text(c.name, "telescope_name"); err != nil {
		return err
	}
	if t.LatDeg, t.LonDeg, t.AltM, err = parseLocation(tc, c.location); err != nil {
		return err
	}
	if t.SplineOrder, err = splineOrder(tc, c.spline); err != nil {
		return err
	}
	t.FreqInterpKind = "cubic"
	if c.interp != nil {
		if t.FreqInterpKind, err = tc.str(c.interp, "freq_interp_kind"); err != nil {
			return err
		}
		if !freqInterpKinds[t.FreqInterpKind] {
			return tc.errf(c.interp, "freq_interp_kind", "must be one of %s", strings.Join(sortedKeys(freqInterpKinds), ", "))
		}
	}
	if err := r.buildBeams(tc, c); err != nil {
		return err
	}
	return r.beamSelect(c.selects)
}

func (r *reader) telConfigKey(tc *yfile, c *telConfig, e entry) error {
	var err error
	switch e.key {
	case "beam_paths":
		c.beamPaths = e.value
	case "telescope_location":
		c.location = e.value
	case "telescope_name":
		c.name = e.value
	case "spline_interp_opts":
		c.spline = e.value
	case "freq_interp_kind":
		c.interp = e.value
	case "select":
		var sel []entry
		if sel, err = tc.entries(e.value, "select"); err == nil {
			for _, se := range sel {
				c.selects = append(c.selects, fileEntry{tc, se})
			}
		}
	case "diameter", "sigma":
		var v float64
		if v, err = tc.num(e.value, e.key); err == nil && !(v > 0) {
			err = tc.errf(e.value, e.key, "must be positive")
		}
		c.global.set(e.key, v, e.keyN)
	case "world":
		var w string
		if w, err = tc.str(e.value, "world"); err == nil && w != "earth" {
			err = tc.errf(e.value, "world", "only telescopes on the Earth are supported (world: earth)")
		}
	case "ellipsoid", "lunar_ellipsoid":
		r.warn(tc.warnf(e.keyN, e.key, "ignored: it applies to lunar telescopes only"))
	case "interpolation_function":
		r.warn(tc.warnf(e.keyN, e.key, "ignored: gomatvis interpolates beamfits beams with its spline of order spline_interp_opts"))
	default:
		r.warn(tc.warnf(e.keyN, e.key, "unknown telescope config key, ignored (pyuvsim ignores it too)"))
	}
	return err
}

// parseLocation reads "(lat, lon, alt)" (degrees, degrees, metres), as a
// string like pyuvsim writes or as a YAML list.
func parseLocation(tc *yfile, n *yaml.Node) (lat, lon, alt float64, err error) {
	const field = "telescope_location"
	var vals []float64
	d := deref(n)
	switch {
	case d != nil && d.Kind == yaml.SequenceNode:
		if vals, _, err = tc.numOrList(n, field); err != nil {
			return 0, 0, 0, err
		}
	case d != nil && d.Kind == yaml.ScalarNode && d.ShortTag() == "!!str":
		s := strings.TrimSpace(d.Value)
		if len(s) >= 2 && (s[0] == '(' && s[len(s)-1] == ')' || s[0] == '[' && s[len(s)-1] == ']') {
			s = s[1 : len(s)-1]
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), ",") // Python allows "(a, b, c,)"
		for _, part := range strings.Split(s, ",") {
			v, perr := strconv.ParseFloat(strings.TrimSpace(part), 64)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0, 0, tc.errf(n, field, "must be \"(latitude, longitude, altitude)\" in degrees, degrees, metres")
			}
			vals = append(vals, v)
		}
	default:
		return 0, 0, 0, tc.errf(n, field, "must be \"(latitude, longitude, altitude)\" or a list of three numbers, found %s", kindName(n))
	}
	if len(vals) != 3 {
		return 0, 0, 0, tc.errf(n, field, "must have three values (latitude, longitude, altitude), found %d", len(vals))
	}
	lat, lon, alt = vals[0], vals[1], vals[2]
	if lat < -90 || lat > 90 {
		return 0, 0, 0, tc.errf(n, field, "latitude %s is outside -90..90 degrees", fmtG(lat))
	}
	if lon < -360 || lon > 360 {
		return 0, 0, 0, tc.errf(n, field, "longitude %s is outside -360..360 degrees", fmtG(lon))
	}
	if err := astro.CheckSite(astro.Site{LatDeg: lat, LonDeg: lon, HeightM: alt}); err != nil {
		return 0, 0, 0, tc.errf(n, field, "%v", err)
	}
	return lat, lon, alt, nil
}

// splineOrder maps spline_interp_opts (kx, ky, s of scipy's
// RectBivariateSpline, defaults 3, 3, 0) to the interpolation order.
func splineOrder(tc *yfile, n *yaml.Node) (int, error) {
	if n == nil {
		return 3, nil
	}
	es, err := tc.entries(n, "spline_interp_opts")
	if err != nil {
		return 0, err
	}
	kx, ky := 3, 3
	var kN *yaml.Node
	for _, e := range es {
		field := "spline_interp_opts." + e.key
		switch e.key {
		case "kx", "ky":
			v, err := tc.integer(e.value, field)
			if err != nil {
				return 0, err
			}
			if v != 1 && v != 3 {
				return 0, tc.errf(e.value, field, "gomatvis interpolates with order 1 (linear) or 3 (cubic) only")
			}
			if e.key == "kx" {
				kx = v
			} else {
				ky = v
			}
			kN = e.value
		case "s":
			v, err := tc.num(e.value, field)
			if err != nil {
				return 0, err
			}
			if v != 0 {
				return 0, tc.errf(e.value, field, "smoothing splines are not supported: s must be 0 (interpolating spline)")
			}
		default:
			return 0, tc.keyErrf(e, field, "unknown spline option: the options are kx, ky, s")
		}
	}
	if kx != ky {
		return 0, tc.errf(kN, "spline_interp_opts", "kx = %d and ky = %d differ: gomatvis uses one order for both axes", kx, ky)
	}
	return kx, nil
}

// freqInterpKinds are scipy interp1d's kinds, which pyuvsim accepts.
var freqInterpKinds = map[string]bool{
	"linear": true, "nearest": true, "nearest-up": true, "zero": true, "slinear": true,
	"quadratic": true, "cubic": true, "previous": true, "next": true,
}

// beamSelect checks the beam-read selections (select in the telescope
// config, or in the obsparam's telescope section). gomatvis reads beam
// files whole: freq_buffer and freq_range only narrow pyuvsim's read, so
// they are ignored with a warning; other selections (feeds, pixels, ...)
// would change what is simulated, so they are refused while a beam file is
// in use.
func (r *reader) beamSelect(sel []fileEntry) error {
	hasFile := false
	for _, b := range r.cfg.Telescope.Beams {
		hasFile = hasFile || b.Type == "beamfits"
	}
	for _, fe := range sel {
		tc, e := fe.y, fe.entry
		field := "select." + e.key
		switch {
		case !hasFile:
			r.warn(tc.warnf(e.keyN, field, "ignored: it selects what is read from beam files, and no beam file is used"))
		case e.key == "freq_buffer" || e.key == "freq_range":
			r.warn(tc.warnf(e.keyN, field, "ignored: gomatvis reads every frequency of the beam files (pyuvsim reads only this range; results agree unless the range cuts channels the frequency interpolation uses)"))
		default:
			return tc.keyErrf(e, field, "beam-file selections other than freq_buffer and freq_range are not supported")
		}
	}
	return nil
}
