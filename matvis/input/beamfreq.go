package input

import (
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// withFreqInterp gives a gridded beam (bare or under a diagonal Jones
// wrapper) the frequency interpolation kind, pyuvdata's freq_interp_kind
// (beam.Gridded.WithFreqInterp); "" keeps the beam's own (cubic). Analytic
// beams have no frequency grid and are returned as they are, as pyuvsim
// ignores the kind for them.
func withFreqInterp(b beam.Beam, kind string) (beam.Beam, error) {
	if kind == "" {
		return b, nil
	}
	switch g := b.(type) {
	case *beam.Gridded:
		return g.WithFreqInterp(kind)
	case beam.DiagonalJones:
		inner, err := withFreqInterp(g.Beam, kind)
		if err != nil {
			return nil, err
		}
		g.Beam = inner
		return g, nil
	}
	return b, nil
}
