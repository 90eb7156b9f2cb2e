package input

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis"
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
	return griddedKinds(beams, func(g *beam.Gridded) string { return g.SpatialInterp() })
}

// GriddedFreqInterp names the frequency interpolation (pyuvdata's
// freq_interp_kind, beam.Gridded.FreqInterp) of the gridded beams among
// beams that have more than one beam channel, as GriddedInterp names the
// spatial one; "" when no gridded beam interpolates in frequency.
func GriddedFreqInterp(beams []beam.Beam) string {
	return griddedKinds(beams, func(g *beam.Gridded) string {
		if len(g.Freqs()) < 2 {
			return ""
		}
		return g.FreqInterp()
	})
}

// griddedKinds is the distinct non-empty kinds of the gridded beams
// (bare or under a diagonal Jones wrapper) among beams, sorted and joined
// by ", ".
func griddedKinds(beams []beam.Beam, kind func(*beam.Gridded) string) string {
	var kinds []string
	for _, b := range beams {
		if d, ok := b.(beam.DiagonalJones); ok {
			b = d.Beam
		}
		if g, ok := b.(*beam.Gridded); ok {
			if k := kind(g); k != "" && !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

// beamInterpNote is the history's sentence on the gridded beams'
// interpolation, spatial and in frequency ("" without gridded beams).
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
	note := "Gridded beams interpolated with " + kind + what
	if f := GriddedFreqInterp(beams); f != "" {
		note += ", and " + f + " in frequency (freq_interp_kind, as scipy's interp1d)"
	}
	return note + "."
}

// withPole gives a gridded beam (bare or under a diagonal Jones wrapper)
// the zenith treatment kind, one of beam.PoleTreatments
// (beam.Gridded.WithPole); "" keeps the beam's own. Analytic beams are
// returned as they are.
func withPole(b beam.Beam, kind string) (beam.Beam, error) {
	if kind == "" {
		return b, nil
	}
	switch g := b.(type) {
	case *beam.Gridded:
		return g.WithPole(kind)
	case beam.DiagonalJones:
		inner, err := withPole(g.Beam, kind)
		if err != nil {
			return nil, err
		}
		g.Beam = inner
		return g, nil
	}
	return b, nil
}

// CheckBeamPole reports a zenith treatment name that is neither "" (the
// input's default) nor one of beam.PoleTreatments.
func CheckBeamPole(kind string) error {
	if kind == "" || slices.Contains(beam.PoleTreatments(), kind) {
		return nil
	}
	return fmt.Errorf("beam pole treatment %q: want one of %s", kind, strings.Join(beam.PoleTreatments(), ", "))
}

// obsPole is the zenith treatment of a pyuvsim configuration's beamfits
// beams: the asked one, else continued through the pole for a polarized
// sky under the IAU rotation (the physical default: smooth through
// zenith) and pyuvdata's exact edge otherwise — a Stokes-I sky (which
// pyuvsim's references test to 1e-5) and RotationPyradiosky (the
// pyuvsim-reproduction mode).
func obsPole(asked string, polarizedSky bool, rot matvis.CoherencyRotation) string {
	switch {
	case asked != "":
		return asked
	case polarizedSky && matvis.EffectiveRotation(rot) == matvis.RotationIAU:
		return beam.PoleContinued
	}
	return beam.PoleEdge
}

// GriddedPole names the zenith treatment the gridded beams among beams
// get in mode: beam.PoleEdge, beam.PoleContinued, or for a continuation
// that cannot apply "edge (continued asked: REASON)"; several, sorted and
// joined by ", ", when they differ; "" without gridded beams.
func GriddedPole(beams []beam.Beam, mode beam.Mode) string {
	var kinds []string
	for _, b := range beams {
		if d, ok := b.(beam.DiagonalJones); ok {
			b = d.Beam
		}
		g, ok := b.(*beam.Gridded)
		if !ok {
			continue
		}
		k := beam.PoleEdge
		if applies, why := g.PoleApplies(mode); applies {
			k = beam.PoleContinued
		} else if why != "" {
			k = beam.PoleEdge + " (continued asked: " + why + ")"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return strings.Join(kinds, ", ")
}

// beamPoleNote is the history's sentence on the gridded beams' zenith
// treatment ("" without gridded beams).
func beamPoleNote(beams []beam.Beam, mode beam.Mode) string {
	kind := GriddedPole(beams, mode)
	switch kind {
	case "":
		return ""
	case beam.PoleContinued:
		return "Gridded beams continued through the pole (the za spline along the great circle through zenith, smooth for a source crossing it)."
	case beam.PoleEdge:
		return "Gridded beams end at za = 0 as at an edge (matvis's and pyuvdata's exact treatment)."
	}
	return "Gridded beams' zenith treatment: " + kind + "."
}
