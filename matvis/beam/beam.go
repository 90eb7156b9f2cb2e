// Package beam holds antenna beam models and evaluates them where matvis
// does: at (azimuth, zenith angle) pairs in pyuvdata's "uvbeam" orientation
// (azimuth from East towards North, zenith angle from the zenith).
//
// A Beam is prepared for one frequency and one polarisation mode with At;
// the returned Response then evaluates many directions at once. Analytic
// beams follow pyuvdata's analytic_beam.py; gridded beams (beamfits) live
// beside them in this package.
package beam

import (
	"fmt"
)

// Feed selects the feed of an unpolarized run. X is the east-pointing feed.
type Feed int

// Feeds of a dual-polarisation antenna, in pyuvdata's default feed_array order.
const (
	FeedX Feed = 0
	FeedY Feed = 1
)

// String returns "x" or "y".
func (f Feed) String() string {
	if f == FeedY {
		return "y"
	}
	return "x"
}

// ParseFeed turns "x"/"y" (or "" for the default "x") into a Feed.
func ParseFeed(s string) (Feed, error) {
	switch s {
	case "", "x", "X", "e", "E":
		return FeedX, nil
	case "y", "Y", "n", "N":
		return FeedY, nil
	}
	return 0, fmt.Errorf("beam: feed %q: want \"x\" or \"y\"", s)
}

// Mode says what a Response must produce.
type Mode struct {
	// Polarized asks for the 2 feeds × 2 E-field axes response; otherwise
	// the square root of the power beam of Feed is produced, as matvis does
	// for unpolarized runs.
	Polarized bool
	// Feed is the feed of an unpolarized run.
	Feed Feed
}

// NFeed is the number of feeds (and of E-field axes) a run of this mode uses.
func (m Mode) NFeed() int {
	if m.Polarized {
		return 2
	}
	return 1
}

// Components is the number of values per direction: 4 polarized, 1 not.
func (m Mode) Components() int { return m.NFeed() * m.NFeed() }

// Beam is one unique antenna beam model.
type Beam interface {
	// String describes the beam in a few words, for logs and errors.
	String() string
	// At prepares the beam at one frequency (Hz) for a mode. Expensive
	// preparation (frequency interpolation, spline prefilters) happens here,
	// once per frequency.
	At(freqHz float64, mode Mode) (Response, error)
}

// Response is a beam fixed at one frequency and mode.
type Response interface {
	// Eval writes the response at the n = len(az) directions (az[s], za[s]),
	// radians. Polarized: out has 4n values, component (feed f, axis k) of
	// source s at out[(2f+k)n + s]. Unpolarized: out has n values, the
	// square root of the feed's power beam (imaginary part 0). Eval may be
	// called concurrently on disjoint outputs.
	Eval(az, za []float64, out []complex128)
}

// Checker is implemented by beams whose At is expensive (gridded beams): it
// reports cheaply whether At(freqHz, mode) would fail, so a simulation can
// reject an unusable channel before it starts.
type Checker interface {
	Check(freqHz float64, mode Mode) error
}

// Check reports whether b can be prepared at freqHz for mode: through
// b's own Checker when it has one, otherwise by preparing it.
func Check(b Beam, freqHz float64, mode Mode) error {
	if c, ok := b.(Checker); ok {
		return c.Check(freqHz, mode)
	}
	_, err := b.At(freqHz, mode)
	return err
}
