package gpu

import (
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/kernels"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestKindsHaveKernelCases: every analytic kind matvis/beam registers is
// below kindDiagonal (so that a diagonal-Jones kind is never another
// kind), reaches the kernels as KIND_<NAME>, and has its case in
// beam_analytic (uniform is the case that sets nothing); analyticKind
// takes each registered type's form, diagonal or not.
func TestKindsHaveKernelCases(t *testing.T) {
	_, headers, err := kernels.Program(kernelFiles, "vis.cu")
	if err != nil {
		t.Fatal(err)
	}
	src := headers["vis_beam.cuh"]
	given := map[string]int{}
	for _, d := range kindDefines() {
		given[d.name] = d.v
	}
	for _, at := range beam.AnalyticTypes() {
		name := "KIND_" + strings.ToUpper(at.Name)
		if int(at.Kind) >= kindDiagonal || int(at.Kind) < 0 {
			t.Errorf("%s: kind %d outside 0 … %d", at.Name, at.Kind, kindDiagonal-1)
		}
		if v, ok := given[name]; !ok || v != int(at.Kind) {
			t.Errorf("%s: kindDefines gives %s = %d (%v), want %d", at.Name, name, v, ok, at.Kind)
		}
		if at.Kind != beam.KindUniform && !strings.Contains(src, "k == "+name) {
			t.Errorf("%s: vis_beam.cuh's beam_analytic has no case k == %s", at.Name, name)
		}
	}
	for _, c := range []struct {
		b    beam.Beam
		want int32
	}{
		{beam.Uniform{}, int32(beam.KindUniform)},
		{beam.Gaussian{SigmaRad: 0.1}, int32(beam.KindGaussian)},
		{&beam.Gaussian{SigmaRad: 0.1}, int32(beam.KindGaussian)},
		{beam.ShortDipole{}, int32(beam.KindShortDipole)},
		{beam.DiagonalJones{Beam: beam.Gaussian{SigmaRad: 0.1}}, int32(beam.KindGaussian) + kindDiagonal},
	} {
		kind, par, ok, err := analyticKind(c.b, 1e8)
		if err != nil || !ok || kind != c.want {
			t.Errorf("analyticKind(%v) = %d, %g, %v, %v; want kind %d", c.b, kind, par, ok, err, c.want)
		}
		if g, isG := c.b.(beam.Gaussian); isG && par != 1/(2*g.SigmaRad*g.SigmaRad) {
			t.Errorf("analyticKind(%v): parameter %g, want 1/(2σ²) = %g", c.b, par, 1/(2*g.SigmaRad*g.SigmaRad))
		}
	}
	if _, _, ok, err := analyticKind(unregistered{}, 1e8); !ok || err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("an analytic beam of an unregistered kind: ok %v, error %v; want it refused", ok, err)
	}
	if _, _, ok, _ := analyticKind(&beam.Gridded{}, 1e8); ok {
		t.Error("a gridded beam taken for analytic")
	}
}

// unregistered is an analytic beam of a kind matvis/beam does not register.
type unregistered struct{ beam.Uniform }

func (unregistered) AnalyticForm(float64) (beam.Form, error) { return beam.Form{Kind: 99}, nil }
