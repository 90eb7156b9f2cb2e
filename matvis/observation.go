package matvis

import (
	"fmt"
	"sort"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// Polarization numbers of pyuvdata's polarization_array (AIPS memo 117):
// the linear instrumental polarizations.
const (
	PolXX = -5
	PolYY = -6
	PolXY = -7
	PolYX = -8
)

// Observation is what a visibility file says beside the visibilities, in
// pyuvsim's conventions: the telescope, the antennas' names and numbers,
// the baselines in file order and the polarizations.
//
// Baselines are stored as pyuvsim stores them: antenna pairs (ant1, ant2)
// with number(ant1) ≥ number(ant2), autos included, and
//
//	V(ant1, ant2)[p1][p2] = Σ_s J_ant1[p1] · C_s · J_ant2[p2]ᴴ · exp(+2πiν b·ŝ/c),  b = x_ant2 − x_ant1 = uvw,
//
// p1 the feed of ant1 and p2 that of ant2 (xy: ant1's x with ant2's y).
// matvis's V_ij = Σ conj(Z_i)·Z_j conjugates antenna i's beam; the same
// numbers come out of it as V_ij with i = ant2, j = ant1 and every antenna
// position negated (phase exp(+iω(−x_ant1 + x_ant2)·ŝ)), its first feed
// index then belonging to ant1 and its second to ant2 — exactly, complex
// beams included. UseConventions makes a Config do that.
type Observation struct {
	TelescopeName string
	Site          astro.Site
	// AntNames and AntNums name each antenna of Config.Antennas; ENU are
	// their positions (metres east, north, up of the site) as the user gave
	// them, whatever the Config does with them (UseConventions negates them).
	AntNames []string
	AntNums  []int
	ENU      [][3]float64
	// Baselines are (ant1, ant2) antenna indices in file order.
	Baselines [][2]int
	// Pols are pyuvdata polarization numbers, in file order.
	Pols []int
	// EOP holds the Earth orientation at each time (for lst_array); nil
	// means UT1 − UTC = 0.
	EOP []astro.EOP
	// IntegrationTime (s, per time) and ChannelWidth (Hz, per channel).
	IntegrationTime, ChannelWidth []float64
	// History is the file's history text.
	History string
	// EOPSource names the Earth-orientation table or file that EOP came
	// from ("" when none was used: UT1 − UTC = 0).
	EOPSource string

	// pyuvsim says UseConventions was applied, so the Simulation's pairs
	// are this observation's baselines in pyuvsim's convention.
	pyuvsim bool
}

// PyuvsimConventions says whether UseConventions made the Simulation's
// output hold these baselines in pyuvsim's convention.
func (o *Observation) PyuvsimConventions() bool { return o.pyuvsim }

// DefaultObservation names antennas 0…n−1 ("ANT0"…), takes every baseline
// with ant1 ≥ ant2 and the polarizations of opt (xx, yy, xy, yx when
// polarized; the run's feed's own otherwise).
func DefaultObservation(nant int, opt Options) *Observation {
	o := &Observation{TelescopeName: "unknown"}
	for a := range nant {
		o.AntNames = append(o.AntNames, fmt.Sprintf("ANT%d", a))
		o.AntNums = append(o.AntNums, a)
	}
	o.Baselines = LowerBaselines(o.AntNums)
	switch {
	case opt.Polarized:
		o.Pols = []int{PolXX, PolYY, PolXY, PolYX}
	case opt.Feed == 1:
		o.Pols = []int{PolYY}
	default:
		o.Pols = []int{PolXX}
	}
	return o
}

// LowerBaselines lists every antenna pair (ant1, ant2) with number(ant1)
// ≥ number(ant2), autos included, ordered by ant1's number then ant2's: the
// baseline order of pyuvsim's files. The pairs are indices into nums.
func LowerBaselines(nums []int) [][2]int {
	idx := make([]int, len(nums))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return nums[idx[a]] < nums[idx[b]] })
	out := make([][2]int, 0, len(idx)*(len(idx)+1)/2) // sized: 61 425 at 350 antennas
	for k, a1 := range idx {
		for _, a2 := range idx[:k+1] {
			out = append(out, [2]int{a1, a2})
		}
	}
	return out
}

// Validate checks the observation against a configuration's sizes.
func (o *Observation) Validate(nant, ntime, nfreq int) error {
	bad := func(format string, a ...any) error { return fmt.Errorf("matvis: observation: "+format, a...) }
	if len(o.AntNames) != nant || len(o.AntNums) != nant {
		return bad("%d antenna names and %d numbers for %d antennas", len(o.AntNames), len(o.AntNums), nant)
	}
	seen := map[int]bool{}
	for _, n := range o.AntNums {
		if n < 0 || seen[n] {
			return bad("antenna number %d is negative or repeated", n)
		}
		seen[n] = true
	}
	if o.ENU != nil && len(o.ENU) != nant {
		return bad("%d antenna positions for %d antennas", len(o.ENU), nant)
	}
	if len(o.Baselines) == 0 {
		return bad("no baselines")
	}
	for k, b := range o.Baselines {
		if b[0] < 0 || b[0] >= nant || b[1] < 0 || b[1] >= nant {
			return bad("baselines[%d] = %v: antenna index out of range [0, %d)", k, b, nant)
		}
	}
	if len(o.Pols) == 0 {
		return bad("no polarizations")
	}
	for _, p := range o.Pols {
		if p > PolXX || p < PolYX {
			return bad("polarization %d: only the linear ones −5…−8 (xx, yy, xy, yx) are simulated", p)
		}
	}
	if o.EOP != nil && len(o.EOP) != ntime {
		return bad("%d EOP entries for %d times", len(o.EOP), ntime)
	}
	if o.IntegrationTime != nil && len(o.IntegrationTime) != ntime {
		return bad("%d integration times for %d times", len(o.IntegrationTime), ntime)
	}
	if o.ChannelWidth != nil && len(o.ChannelWidth) != nfreq {
		return bad("%d channel widths for %d channels", len(o.ChannelWidth), nfreq)
	}
	return nil
}

// NeedsPolarized says whether the polarizations need both feeds: any
// cross polarization, or both xx and yy.
func (o *Observation) NeedsPolarized() bool {
	var x, y bool
	for _, p := range o.Pols {
		switch p {
		case PolXY, PolYX:
			return true
		case PolXX:
			x = true
		case PolYY:
			y = true
		}
	}
	return x && y
}

// UseConventions rewrites c so that its output holds o's baselines in
// pyuvsim's convention (see Observation): antenna positions negated, the
// pairs (ant2, ant1) of o.Baselines in order, a polarized run when the
// polarizations need both feeds (else the feed of the one asked for), and
// an output streamed by blocks of times (Options.OutputTimes).
// PolIndex then finds each polarization in the output.
func (o *Observation) UseConventions(c *Config) {
	o.ENU = append([][3]float64(nil), c.Antennas...)
	ants := make([][3]float64, len(c.Antennas))
	for a, x := range c.Antennas {
		ants[a] = [3]float64{-x[0], -x[1], -x[2]}
	}
	c.Antennas = ants
	c.Options.AntPairs = make([][2]int, len(o.Baselines))
	for k, b := range o.Baselines {
		c.Options.AntPairs[k] = [2]int{b[1], b[0]}
	}
	o.pyuvsim = true
	// UVH5 is written one block of times at a time (uvdata.Writer).
	c.Options.OutputTimes = 1
	c.Options.Polarized = o.NeedsPolarized()
	if !c.Options.Polarized {
		c.Options.Feed = 0
		if o.Pols[0] == PolYY {
			c.Options.Feed = 1
		}
	}
}

// PolIndex is where polarization pol sits in the (2, 2) feed axes of a
// polarized output made by UseConventions: [p][q] with p ant1's feed and q
// ant2's. An unpolarized output holds its one polarization at (0, 0).
func PolIndex(pol int, polarized bool) (p, q int) {
	if !polarized {
		return 0, 0
	}
	switch pol {
	case PolYY:
		return 1, 1
	case PolXY:
		return 0, 1
	case PolYX:
		return 1, 0
	}
	return 0, 0
}
