package obsparam

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// polNames maps the linear polarization names pyuvdata accepts to AIPS
// numbers.
var polNames = map[string]int{
	"xx": -5, "yy": -6, "xy": -7, "yx": -8,
	"hh": -5, "vv": -6, "hv": -7, "vh": -8,
}

// polFeeds are the two feeds of each linear polarization.
var polFeeds = map[int][2]string{-5: {"x", "x"}, -6: {"y", "y"}, -7: {"x", "y"}, -8: {"y", "x"}}

// parsePols reads polarization_array, or sets pyuvsim's default: every
// polarization the first beam's feeds make (xx, yy, xy, yx for two feeds).
func (r *reader) parsePols(n *yaml.Node) error {
	feeds := r.firstBeamFeeds()
	if n == nil || isNull(n) {
		r.cfg.Pols = defaultPols(feeds)
		return nil
	}
	items, err := r.obs.seq(n, "polarization_array")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return r.obs.errf(n, "polarization_array", "must not be empty")
	}
	seen := map[int]bool{}
	for i, it := range items {
		p, err := r.polItem(it, i)
		if err != nil {
			return err
		}
		if seen[p] {
			return r.obs.errf(it, "polarization_array", "polarization %d appears twice", p)
		}
		seen[p] = true
		for _, fd := range polFeeds[p] {
			if !contains(feeds, fd) {
				return r.obs.errf(n, "polarization_array", "the polarizations require feed %s but the beams have feeds %v", fd, feeds)
			}
		}
		r.cfg.Pols = append(r.cfg.Pols, p)
	}
	return nil
}

func (r *reader) polItem(it *yaml.Node, i int) (int, error) {
	field := "polarization_array"
	d := deref(it)
	if d != nil && d.Kind == yaml.ScalarNode && d.ShortTag() == "!!str" {
		s := strings.ToLower(strings.TrimSpace(d.Value))
		if p, ok := polNames[s]; ok {
			return p, nil
		}
		switch s {
		case "ee", "nn", "en", "ne":
			return 0, r.obs.errf(it, field, "the e/n names depend on x_orientation: write xx, yy, xy, yx (or -5..-8) instead")
		}
		return 0, r.obs.errf(it, field, "not a linear instrumental polarization: gomatvis writes xx, yy, xy, yx (-5, -6, -7, -8)")
	}
	p, err := r.obs.integer(it, field)
	if err != nil {
		return 0, err
	}
	if p < -8 || p > -5 {
		return 0, r.obs.errf(it, field, "not a linear instrumental polarization: gomatvis writes -5 (xx), -6 (yy), -7 (xy), -8 (yx); circular (-1..-4) and Stokes (1..4) are not supported")
	}
	return p, nil
}

// defaultPols is pyuvdata's convert_feeds_to_pols with cross pols.
func defaultPols(feeds []string) []int {
	switch strings.Join(feeds, "") {
	case "x":
		return []int{-5}
	case "y":
		return []int{-6}
	}
	return []int{-5, -6, -7, -8}
}

// Polarized reports whether the run needs both feeds: any cross
// polarization, or both xx and yy. Otherwise it is a single-feed run on
// Feed().
func (c *Config) Polarized() bool {
	has := map[int]bool{}
	for _, p := range c.Pols {
		has[p] = true
	}
	return has[-7] || has[-8] || (has[-5] && has[-6])
}

// Feed is the one feed of a single-feed run: "x" for xx (-5), "y" for yy
// (-6); it is "" for a polarized run.
func (c *Config) Feed() string {
	if c.Polarized() || len(c.Pols) != 1 {
		return ""
	}
	if c.Pols[0] == -6 {
		return "y"
	}
	return "x"
}
