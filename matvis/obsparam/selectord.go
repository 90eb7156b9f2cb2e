package obsparam

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Select restricts the baselines simulated, as pyuvsim's select section
// does (through UVData.select): all criteria given must hold.
type Select struct {
	// AntennaNums and AntennaNames keep baselines whose two antennas are
	// both listed.
	AntennaNums  []int
	AntennaNames []string
	// Bls, when not empty, are the only antenna pairs made (pyuvsim >= 1.3
	// builds the data from exactly these pairs).
	Bls [][2]int
	// AntStr is "", "cross", "auto", "all", or a list of pairs "1_2,3_4".
	AntStr string
	// NoAutos drops the auto-correlations.
	NoAutos bool
}

// Ordering is pyuvsim's ordering section.
type Ordering struct {
	// ConjugationConvention is one of ant1<ant2, ant2<ant1, u<0, u>0,
	// v<0, v>0. When absent it is "ant2<ant1" (ant1 >= ant2), what
	// pyuvsim 1.2 wrote — the reference files in testdata, and the
	// convention gomatvis's output is checked against; pyuvsim >= 1.3.1
	// defaults to ant1<ant2, so a warning says so. ConjugationGiven tells.
	ConjugationConvention string
	ConjugationGiven      bool
	// BLTOrder and BLTMinorOrder are pyuvdata's reorder_blts order and
	// minor_order: default "time", "baseline". BLTMinorOrder is "" for
	// "bda".
	BLTOrder, BLTMinorOrder string
}

var conjugations = map[string]bool{"ant1<ant2": true, "ant2<ant1": true, "u<0": true, "u>0": true, "v<0": true, "v>0": true}

// parseOrdering reads the ordering section (sec may be nil).
func (r *reader) parseOrdering(sec *yaml.Node) error {
	o := Ordering{ConjugationConvention: "ant2<ant1", BLTOrder: "time", BLTMinorOrder: "baseline"}
	if sec != nil && !isNull(sec) {
		es, err := r.obs.entries(sec, "ordering")
		if err != nil {
			return err
		}
		for _, e := range es {
			field := "ordering." + e.key
			switch e.key {
			case "conjugation_convention":
				o.ConjugationConvention, err = r.obs.str(e.value, field)
				if err == nil && !conjugations[o.ConjugationConvention] {
					err = r.obs.errf(e.value, field, "must be one of ant1<ant2, ant2<ant1, u<0, u>0, v<0, v>0")
				}
				o.ConjugationGiven = true
			case "blt_order":
				o.BLTOrder, o.BLTMinorOrder, err = r.bltOrder(e.value, field)
			default:
				r.warn(r.obs.warnf(e.keyN, field, "unknown ordering key, ignored (pyuvsim ignores it too)"))
			}
			if err != nil {
				return err
			}
		}
	}
	if !o.ConjugationGiven {
		r.warn(r.obs.warnf(sec, "ordering.conjugation_convention", "not given: using ant2<ant1 (ant1 >= ant2), as pyuvsim 1.2 wrote; pyuvsim >= 1.3.1 defaults to ant1<ant2 — give it to get that"))
	}
	r.cfg.Ordering = o
	return nil
}

// bltOrder checks blt_order as pyuvdata's reorder_blts does.
func (r *reader) bltOrder(n *yaml.Node, field string) (string, string, error) {
	var parts []string
	if d := deref(n); d != nil && d.Kind == yaml.SequenceNode {
		if len(d.Content) < 1 || len(d.Content) > 2 {
			return "", "", r.obs.errf(n, field, "must be one or two names, e.g. [time, baseline]")
		}
		for i, c := range d.Content {
			s, err := r.obs.str(c, fmt.Sprintf("%s[%d]", field, i))
			if err != nil {
				return "", "", err
			}
			parts = append(parts, s)
		}
	} else {
		s, err := r.obs.str(n, field)
		if err != nil {
			return "", "", err
		}
		parts = []string{s}
	}
	order, minor := parts[0], ""
	if len(parts) > 1 && parts[1] != order {
		minor = parts[1]
	}
	switch order {
	case "time", "baseline", "ant1", "ant2", "bda":
	default:
		return "", "", r.obs.errf(n, field, "the order must be one of time, baseline, ant1, ant2, bda")
	}
	if minor != "" {
		switch {
		case minor != "time" && minor != "baseline" && minor != "ant1" && minor != "ant2":
			return "", "", r.obs.errf(n, field, "the minor order can only be one of time, baseline, ant1, ant2")
		case order == "bda":
			return "", "", r.obs.errf(n, field, "a minor order cannot be given with bda")
		case order == "baseline" && minor != "time":
			return "", "", r.obs.errf(n, field, "the minor order conflicts with the order (baseline takes only time)")
		}
		return order, minor, nil
	}
	defaults := map[string]string{"time": "baseline", "ant1": "ant2", "ant2": "ant1", "baseline": "time", "bda": ""}
	return order, defaults[order], nil
}

// parseSelect reads the select section (sec may be nil); the antennas must
// already be known.
func (r *reader) parseSelect(sec *yaml.Node) error {
	if sec == nil || isNull(sec) {
		return nil
	}
	es, err := r.obs.entries(sec, "select")
	if err != nil {
		return err
	}
	s := &r.cfg.Select
	for _, e := range es {
		field := "select." + e.key
		switch e.key {
		case "antenna_nums":
			s.AntennaNums, err = r.selAntNums(e.value, field)
		case "antenna_names":
			s.AntennaNames, err = r.selAntNames(e.value, field)
		case "bls":
			s.Bls, err = r.selBls(e.value, field)
		case "ant_str":
			s.AntStr, err = r.selAntStr(e.value, field)
		case "no_autos":
			s.NoAutos, err = r.obs.boolean(e.value, field)
		case "redundant_threshold":
			err = r.obs.keyErrf(e, field, "not supported: gomatvis does not compress redundant baselines; remove it (or select the baselines with bls)")
		case "frequencies", "freq_chans", "times", "blt_inds":
			err = r.obs.keyErrf(e, field, "not supported: choose the frequencies and times in the freq and time sections instead")
		case "polarizations":
			r.warn(r.obs.warnf(e.keyN, field, "ignored, as pyuvsim ignores it: use the top-level polarization_array"))
		default:
			r.warn(r.obs.warnf(e.keyN, field, "unknown select key, ignored (pyuvsim ignores it too)"))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// antNumber reads an antenna number as pyuvsim's int(...) does: an integer,
// a whole float or a string of digits.
func (r *reader) antNumber(n *yaml.Node, field string) (int, error) {
	if d := deref(n); d != nil && d.Kind == yaml.ScalarNode && d.ShortTag() == "!!str" {
		v, err := strconv.Atoi(strings.TrimSpace(d.Value))
		if err != nil || v < 0 || v >= maxInt {
			return 0, r.obs.errf(n, field, "not an antenna number")
		}
		return v, nil
	}
	return r.obs.integer(n, field)
}

func (r *reader) knownAnt(n *yaml.Node, field string, num int) error {
	for _, a := range r.cfg.Telescope.Antennas {
		if a.Number == num {
			return nil
		}
	}
	return r.obs.errf(n, field, "antenna number %d is not in the layout %s", num, r.cfg.Telescope.LayoutFile)
}

// selItems is a select list's items. An empty list is refused: it
// selects nothing, and pyuvdata's select (which pyuvsim calls) raises "No
// baseline-times were found that match criteria" for it, where a reader
// taking [] for "no selection" would simulate every baseline.
func (r *reader) selItems(n *yaml.Node, field, what string) ([]*yaml.Node, error) {
	items, err := r.obs.seq(n, field)
	if err == nil && len(items) == 0 {
		err = r.obs.errf(n, field, "an empty list selects no %s (pyuvdata's select raises \"No baseline-times were found that match criteria\"): list what to keep, or remove the key to keep them all", what)
	}
	return items, err
}

func (r *reader) selAntNums(n *yaml.Node, field string) ([]int, error) {
	items, err := r.selItems(n, field, "antennas")
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(items))
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		v, err := r.antNumber(it, f)
		if err != nil {
			return nil, err
		}
		if err := r.knownAnt(it, f, v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (r *reader) selAntNames(n *yaml.Node, field string) ([]string, error) {
	items, err := r.selItems(n, field, "antennas")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		v, err := r.obs.text(it, f)
		if err != nil {
			return nil, err
		}
		if _, ok := r.antByName(v); !ok {
			return nil, r.obs.errf(it, f, "antenna name %q is not in the layout %s", v, r.cfg.Telescope.LayoutFile)
		}
		out = append(out, v)
	}
	return out, nil
}

func (r *reader) antByName(name string) (int, bool) {
	for _, a := range r.cfg.Telescope.Antennas {
		if a.Name == name {
			return a.Number, true
		}
	}
	return 0, false
}

// tupleRE matches one "(i, j)" pair of a bls string.
var tupleRE = regexp.MustCompile(`[(\[]\s*(\d+)\s*,\s*(\d+)\s*[)\]]`)

// selBls reads bls: pyuvsim's quoted Python list "[(1, 2), (3, 4)]" or a
// YAML list of two-number lists.
func (r *reader) selBls(n *yaml.Node, field string) ([][2]int, error) {
	d := deref(n)
	var out [][2]int
	if d != nil && d.Kind == yaml.ScalarNode && d.ShortTag() == "!!str" {
		ms := tupleRE.FindAllStringSubmatch(d.Value, -1)
		rest := strings.Trim(tupleRE.ReplaceAllString(d.Value, ""), " \t[](),")
		if len(ms) == 0 || strings.Trim(rest, " ,") != "" {
			return nil, r.obs.errf(n, field, "must be a list of antenna-number pairs such as \"[(1, 2), (3, 4)]\" (pairs with a polarization are not supported)")
		}
		for _, m := range ms {
			a, err1 := strconv.Atoi(m[1])
			b, err2 := strconv.Atoi(m[2])
			if err1 != nil || err2 != nil {
				return nil, r.obs.errf(n, field, "antenna number out of range")
			}
			out = append(out, [2]int{a, b})
		}
	} else {
		items, err := r.selItems(n, field, "baselines")
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			f := fmt.Sprintf("%s[%d]", field, i)
			pair, err := r.obs.seq(it, f)
			if err == nil && len(pair) != 2 {
				err = r.obs.errf(it, f, "must be a pair of antenna numbers (pairs with a polarization are not supported)")
			}
			if err != nil {
				return nil, err
			}
			var p [2]int
			for k := range 2 {
				if p[k], err = r.antNumber(pair[k], f); err != nil {
					return nil, err
				}
			}
			out = append(out, p)
		}
	}
	seen := map[[2]int][2]int{}
	for _, p := range out {
		for _, a := range p {
			if err := r.knownAnt(n, field, a); err != nil {
				return nil, err
			}
		}
		key := [2]int{min(p[0], p[1]), max(p[0], p[1])}
		if prev, dup := seen[key]; dup {
			return nil, r.obs.errf(n, field, "the baseline %v is listed twice (as %v and %v)", key, prev, p)
		}
		seen[key] = p
	}
	return out, nil
}

var antStrPairRE = regexp.MustCompile(`^\s*\d+\s*_\s*\d+\s*$`)

// selAntStr accepts the ant_str forms gomatvis evaluates itself.
func (r *reader) selAntStr(n *yaml.Node, field string) (string, error) {
	s, err := r.obs.text(n, field)
	if err != nil {
		return "", err
	}
	switch s {
	case "cross", "auto", "all":
		return s, nil
	}
	for _, part := range strings.Split(s, ",") {
		if !antStrPairRE.MatchString(part) {
			return "", r.obs.errf(n, field, "not supported: use cross, auto, all or antenna pairs such as 1_2,3_4 (polarized, negated and single-antenna forms are not)")
		}
		for _, a := range strings.Split(part, "_") {
			v, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return "", r.obs.errf(n, field, "antenna number out of range")
			}
			if err := r.knownAnt(n, field, v); err != nil {
				return "", err
			}
		}
	}
	return s, nil
}

// AntPairs returns the antenna-number pairs to simulate, with each pair
// oriented by the conjugation convention and the list sorted by (ant1,
// ant2), the order of pyuvdata's baseline numbers (blt order time,
// baseline). Without bls the pairs are every pair of layout antennas,
// autos included, as pyuvsim makes them; then the select criteria apply.
// The u/v conventions use uvw = ENU(ant2) - ENU(ant1), as pyuvdata does.
// Unlike pyuvsim >= 1.3, an explicit ant1<ant2 is applied to bls pairs too
// (pyuvsim leaves them as written).
func (c *Config) AntPairs() [][2]int {
	pairs := c.candidatePairs()
	keep := c.Select.filter(c.Telescope.Antennas)
	out := pairs[:0]
	for _, p := range pairs {
		if keep(p) {
			out = append(out, c.orient(p))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

func (c *Config) candidatePairs() [][2]int {
	if len(c.Select.Bls) > 0 {
		return append([][2]int(nil), c.Select.Bls...)
	}
	ants := c.Telescope.Antennas
	out := make([][2]int, 0, len(ants)*(len(ants)+1)/2)
	for i := range ants {
		for j := i; j < len(ants); j++ {
			out = append(out, [2]int{ants[i].Number, ants[j].Number})
		}
	}
	return out
}

// filter returns the predicate of the select criteria; ants maps antenna
// names to numbers.
func (s *Select) filter(ants []Antenna) func([2]int) bool {
	keepNums := func(list []int) map[int]bool {
		if len(list) == 0 {
			return nil
		}
		m := map[int]bool{}
		for _, a := range list {
			m[a] = true
		}
		return m
	}
	nums := keepNums(s.AntennaNums)
	var named []int
	for _, name := range s.AntennaNames {
		for _, a := range ants {
			if a.Name == name {
				named = append(named, a.Number)
			}
		}
	}
	names := keepNums(named)
	pairs := map[[2]int]bool{}
	if s.AntStr != "" && s.AntStr != "cross" && s.AntStr != "auto" && s.AntStr != "all" {
		for _, part := range strings.Split(s.AntStr, ",") {
			ab := strings.Split(part, "_")
			if len(ab) != 2 { // Read admits only i_j pairs; a hand-made Config may not
				continue
			}
			a, _ := strconv.Atoi(strings.TrimSpace(ab[0]))
			b, _ := strconv.Atoi(strings.TrimSpace(ab[1]))
			pairs[[2]int{a, b}], pairs[[2]int{b, a}] = true, true
		}
	}
	return func(p [2]int) bool {
		auto := p[0] == p[1]
		switch {
		case nums != nil && (!nums[p[0]] || !nums[p[1]]), names != nil && (!names[p[0]] || !names[p[1]]):
			return false
		case s.NoAutos && auto, s.AntStr == "cross" && auto, s.AntStr == "auto" && !auto:
			return false
		case len(pairs) > 0 && !pairs[p]:
			return false
		}
		return true
	}
}

// orient applies the conjugation convention to one pair.
func (c *Config) orient(p [2]int) [2]int {
	swap := false
	switch c.Ordering.ConjugationConvention {
	case "ant1<ant2":
		swap = p[0] > p[1]
	case "ant2<ant1":
		swap = p[1] > p[0]
	case "u<0", "u>0", "v<0", "v>0":
		swap = c.uvSwap(p)
	}
	if swap {
		return [2]int{p[1], p[0]}
	}
	return p
}

// uvSwap is pyuvdata's conjugate_bls test for the u/v conventions with a
// zero tolerance: the first non-zero of (u, v, w) (or (v, u, w)) decides.
func (c *Config) uvSwap(p [2]int) bool {
	var e1, e2 [3]float64
	for _, a := range c.Telescope.Antennas {
		if a.Number == p[0] {
			e1 = a.ENU
		}
		if a.Number == p[1] {
			e2 = a.ENU
		}
	}
	u, v, w := e2[0]-e1[0], e2[1]-e1[1], e2[2]-e1[2]
	conv := c.Ordering.ConjugationConvention
	first, second := u, v
	if conv[0] == 'v' {
		first, second = v, u
	}
	sign := 1.0 // swap when the deciding component is positive (for "<0")
	if strings.HasSuffix(conv, ">0") {
		sign = -1
	}
	switch {
	case first != 0:
		return sign*first > 0
	case second != 0:
		return sign*second > 0
	default:
		return sign*w > 0
	}
}

// AntPairIndices is AntPairs with each antenna number replaced by its index
// in Telescope.Antennas, in the form of simspec.Spec.AntPairs.
func (c *Config) AntPairIndices() [][]int {
	index := make(map[int]int, len(c.Telescope.Antennas))
	for i, a := range c.Telescope.Antennas {
		index[a.Number] = i
	}
	pairs := c.AntPairs()
	out := make([][]int, len(pairs))
	for k, p := range pairs {
		out[k] = []int{index[p[0]], index[p[1]]}
	}
	return out
}
