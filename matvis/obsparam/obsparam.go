package obsparam

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// Config is everything an obsparam file (and the files it names) says about
// a simulation, resolved and checked.
type Config struct {
	// Path is the absolute path of the obsparam file.
	Path string
	// Filing says where and how the result is written.
	Filing Filing
	// Freqs are the channel centres (Hz), ChannelWidth their widths (Hz).
	Freqs        []float64
	ChannelWidth []float64
	// TimesJD are the integration centres (JD, UTC); IntegrationTime their
	// lengths (s). The first centre is start_time itself.
	TimesJD         []float64
	IntegrationTime []float64
	// Sources are the sky-catalog parameters (the catalog is not read).
	Sources Sources
	// Telescope is the site, the antennas and their beams.
	Telescope Telescope
	// Select restricts the baselines simulated.
	Select Select
	// Ordering is the baseline conjugation and baseline-time order to write.
	Ordering Ordering
	// Pols are the instrumental polarizations to write, as AIPS numbers
	// (-5 xx, -6 yy, -7 xy, -8 yx), in the order given.
	Pols []int
	// Warnings name every key that was ignored or defaulted in a way the
	// user should know about, with file and line.
	Warnings []string
}

// Antenna is one row of the layout file.
type Antenna struct {
	Name   string
	Number int
	// BeamID is the layout's BeamID (a key of beam_paths); Beam is the
	// index of that beam in Telescope.Beams.
	BeamID int
	Beam   int
	// ENU is the position east, north, up of the telescope location (m).
	ENU [3]float64
}

// Telescope is the array: site, antennas and beams.
type Telescope struct {
	Name string
	// LatDeg, LonDeg (degrees) and AltM (m) are the geodetic WGS84 site.
	LatDeg, LonDeg, AltM float64
	// ConfigFile and LayoutFile are the absolute paths read.
	ConfigFile, LayoutFile string
	// Antennas are in layout-file order.
	Antennas []Antenna
	// Beams are the beams the layout uses, one per BeamID in increasing
	// BeamID order (as pyuvsim's BeamList); BeamIDs[i] is Beams[i]'s key.
	Beams   []simspec.Beam
	BeamIDs []int
	// SplineOrder is the angular interpolation order of beamfits beams:
	// 3 (pyuvsim's default, cubic) or 1.
	SplineOrder int
	// FreqInterpKind is the beamfits frequency interpolation
	// (pyuvsim's default "cubic"), which the simulator applies
	// (beam.Gridded.WithFreqInterp).
	FreqInterpKind string
}

// AntennaENU returns each antenna's ENU position (m), in layout order.
func (t *Telescope) AntennaENU() [][]float64 {
	out := make([][]float64, len(t.Antennas))
	for i, a := range t.Antennas {
		out[i] = []float64{a.ENU[0], a.ENU[1], a.ENU[2]}
	}
	return out
}

// BeamIndex returns each antenna's index into Beams, in layout order.
func (t *Telescope) BeamIndex() []int {
	out := make([]int, len(t.Antennas))
	for i, a := range t.Antennas {
		out[i] = a.Beam
	}
	return out
}

// reader carries the state of one Read.
type reader struct {
	cfg *Config
	obs *yfile
	dir string // directory of the obsparam file
	cwd string // working directory, searched first as pyuvsim does
	// feeds are the first beam's feeds (nil until the beams are built).
	feeds []string
}

func (r *reader) warn(s string) { r.cfg.Warnings = append(r.cfg.Warnings, s) }

// Read reads the obsparam YAML at path and the telescope config and layout
// it names, and returns the checked configuration. Every error is an
// *Error naming the file, line or key, and the value.
func Read(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot make the path absolute", Err: err}
	}
	data, err := readBounded(abs, "obsparam file")
	if err != nil {
		return nil, err
	}
	yf, err := parseYAML(path, data)
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	r := &reader{cfg: &Config{Path: abs}, obs: yf, dir: filepath.Dir(abs), cwd: cwd}
	if err := r.readAll(); err != nil {
		return nil, err
	}
	return r.cfg, nil
}

// sectionOrder is the order sections are read in: the beams and the select
// need the frequencies and the antennas.
var sectionOrder = []string{"freq", "time", "telescope", "polarization_array", "select", "ordering", "sources", "filing"}

func (r *reader) readAll() error {
	es, err := r.obs.entries(r.obs.root, "")
	if err != nil {
		return err
	}
	secs := map[string]*yaml.Node{}
	for _, e := range es {
		switch e.key {
		case "freq", "time", "telescope", "polarization_array", "select", "ordering", "sources", "filing":
			secs[e.key] = e.value
		case "cat_name", "object_name":
			r.warn(r.obs.warnf(e.keyN, e.key, "ignored: it only names the phase centre in pyuvsim's output metadata"))
		case "config_path", "obs_param_file":
			r.warn(r.obs.warnf(e.keyN, e.key, "ignored: pyuvsim overwrites it with the obsparam file's own location"))
		default:
			r.warn(r.obs.warnf(e.keyN, e.key, "unknown top-level key, ignored (pyuvsim ignores it too)"))
		}
	}
	for _, req := range []string{"freq", "time", "telescope", "sources"} {
		if secs[req] == nil {
			return &Error{File: r.obs.name, Field: req, Msg: fmt.Sprintf("the %s section is required", req)}
		}
	}
	steps := map[string]func(*yaml.Node) error{
		"freq": r.parseFreq, "time": r.parseTime, "telescope": r.parseTelescope,
		"polarization_array": r.parsePols, "select": r.parseSelect,
		"ordering": r.parseOrdering, "sources": r.parseSources, "filing": r.parseFiling,
	}
	for _, name := range sectionOrder {
		sec, ok := secs[name]
		if !ok {
			sec = nil
		}
		if err := steps[name](sec); err != nil {
			return err
		}
	}
	return nil
}

// resolvePath finds a file named in a configuration as pyuvsim does: an
// absolute path as is; a relative path first in the working directory, then
// in each of dirs. A relative path found in two places is reported in a
// warning. It returns the absolute path or an error listing the places.
func (r *reader) resolvePath(y *yfile, n *yaml.Node, field, name string, dirs ...string) (string, error) {
	if name == "" {
		return "", y.errf(n, field, "the path is empty")
	}
	if strings.Contains(name, "://") {
		return "", y.errf(n, field, "URLs are not supported (pyuvsim fetches them through its download cache): download the file and give its path")
	}
	if filepath.IsAbs(name) {
		if err := isFile(name); err != nil {
			return "", y.errf(n, field, "%v", err)
		}
		return filepath.Clean(name), nil
	}
	var tried, found []string
	var unusable error // the first path that exists but cannot be read
	for _, d := range append([]string{r.cwd}, dirs...) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if contains(tried, p) {
			continue
		}
		tried = append(tried, p)
		switch err := isFile(p); {
		case err == nil:
			found = append(found, p)
		case !errors.Is(err, fs.ErrNotExist) && unusable == nil:
			unusable = err
		}
	}
	if len(found) == 0 && unusable != nil {
		// A directory, FIFO or link loop of that name was "not found".
		return "", y.errf(n, field, "%v: give the path of a file", unusable)
	}
	if len(found) == 0 {
		return "", y.errf(n, field, "file not found (looked for %s)", strings.Join(tried, ", "))
	}
	if len(found) > 1 && !sameFile(found[0], found[1]) {
		r.warn(y.warnf(n, field, "%q exists both as %s and as %s; using %s (pyuvsim looks in the working directory first)", name, found[0], found[1], found[0]))
	}
	return found[0], nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// isFile checks that p names a regular file (through symlinks): a path
// that does not exist is "file not found" (wrapping fs.ErrNotExist); one
// that does is named for what it is ("is a directory", a symbolic-link
// loop).
func isFile(p string) error {
	err := inputfile.Check(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("file not found: %s: %w", p, fs.ErrNotExist)
	}
	return err
}

// isDir reports whether p names a directory.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// sortedKeys returns a set's keys in order, for messages.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
