package matvis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// withSpatialInterp gives a gridded beam (bare or under a diagonal Jones
// wrapper) the spatial interpolation kind, one of beam.SpatialInterps
// (beam.Gridded.WithSpatialInterp); "" keeps the beam's own. Analytic
// beams are returned as they are: they are evaluated, not interpolated.
func withSpatialInterp(b beam.Beam, kind string) (beam.Beam, error) {
	if kind == "" {
		return b, nil
	}
	switch g := b.(type) {
	case *beam.Gridded:
		return g.WithSpatialInterp(kind)
	case beam.DiagonalJones:
		inner, err := withSpatialInterp(g.Beam, kind)
		if err != nil {
			return nil, err
		}
		g.Beam = inner
		return g, nil
	}
	return b, nil
}

// CheckBeamInterp reports a spatial interpolation name that is neither ""
// (the input's default) nor one of beam.SpatialInterps.
func CheckBeamInterp(kind string) error {
	if kind == "" || slices.Contains(beam.SpatialInterps(), kind) {
		return nil
	}
	return fmt.Errorf("beam interpolation %q: want one of %s", kind, strings.Join(beam.SpatialInterps(), ", "))
}

// GriddedInterp names the spatial interpolation of the gridded beams among
// beams (beam.Gridded.SpatialInterp; several, sorted and joined by ", ",
// when they differ), or "" when there is none.
func GriddedInterp(beams []beam.Beam) string {
	var kinds []string
	for _, b := range beams {
		if d, ok := b.(beam.DiagonalJones); ok {
			b = d.Beam
		}
		if g, ok := b.(*beam.Gridded); ok && !slices.Contains(kinds, g.SpatialInterp()) {
			kinds = append(kinds, g.SpatialInterp())
		}
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

// beamInterpNote is the history's sentence on the gridded beams'
// interpolation ("" without gridded beams).
func beamInterpNote(beams []beam.Beam) string {
	kind := GriddedInterp(beams)
	if kind == "" {
		return ""
	}
	var what string
	switch kind {
	case beam.SpatialAzZaSimple:
		what = " (pyuvdata's default and pyuvsim's: bicubic RectBivariateSpline, s = 0)"
	case beam.SpatialMapCoordinates:
		what = " (matvis's: scipy map_coordinates on the prefiltered B-spline)"
	}
	return "Gridded beams interpolated with " + kind + what + "."
}
