package beam

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestAnalyticTypes: the registry holds pyuvdata's four analytic beams
// under their simspec names and pyuvdata class names, with the kinds the
// GPU's kernels number them by (0 uniform … 3 short dipole), and each
// type's New builds a beam whose form is of its kind.
func TestAnalyticTypes(t *testing.T) {
	want := []struct {
		kind     Kind
		name     string
		class    string
		shape    Shape
		diagonal bool
	}{
		{0, "uniform", "UniformBeam", Shape{}, true},
		{1, "gaussian", "GaussianBeam", Shape{SigmaRad: 0.3}, true},
		{2, "airy", "AiryBeam", Shape{DiameterM: 14}, true},
		{3, "short_dipole", "ShortDipoleBeam", Shape{}, false},
	}
	types := AnalyticTypes()
	if len(types) != len(want) {
		t.Fatalf("%d analytic types, want %d", len(types), len(want))
	}
	for i, w := range want {
		ty := types[i]
		if ty.Kind != w.kind || ty.Name != w.name || ty.Class != w.class || ty.Diagonal != w.diagonal || w.kind.String() != w.name {
			t.Errorf("type %d: %+v, want kind %d %s %s diagonal %v", i, ty, w.kind, w.name, w.class, w.diagonal)
		}
		if got, ok := LookupAnalytic(w.name); !ok || got.Kind != w.kind {
			t.Errorf("LookupAnalytic(%q) = %v, %v", w.name, got.Kind, ok)
		}
		b, err := ty.New(w.shape)
		if err != nil {
			t.Fatalf("%s: New: %v", w.name, err)
		}
		a, ok := b.(Analytic)
		if !ok {
			t.Fatalf("%s: %T is not Analytic", w.name, b)
		}
		f, err := a.AnalyticForm(150e6)
		if err != nil || f.Kind != w.kind || len(f.Params) != ty.NParams || f.Diagonal {
			t.Errorf("%s: form %+v, %v; want kind %d with %d params, not diagonal", w.name, f, err, w.kind, ty.NParams)
		}
		d := DiagonalJones{b}
		df, derr := d.AnalyticForm(150e6)
		if w.diagonal {
			if derr != nil || df.Kind != w.kind || !df.Diagonal || !slices.Equal(df.Params, f.Params) {
				t.Errorf("%s with diagonal Jones: form %+v, %v; want %+v, Diagonal", w.name, df, derr, f)
			}
			if _, err := d.At(150e6, Mode{Polarized: true}); err != nil {
				t.Errorf("%s with diagonal Jones: At: %v", w.name, err)
			}
		} else if derr == nil || d.Validate() == nil {
			t.Errorf("%s with diagonal Jones: form %+v, Validate %v; want both refused", w.name, df, d.Validate())
		}
	}
	if err := (DiagonalJones{&Gaussian{SigmaRad: 0.3}}).Validate(); err == nil {
		t.Error("diagonal Jones accepted a *Gaussian: its beam is held by value")
	}
	if _, ok := LookupAnalytic("beamfits"); ok {
		t.Error("beamfits is not an analytic type")
	}
	if got := Kind(99).String(); !strings.Contains(got, "99") {
		t.Errorf("an unregistered kind's String is %q", got)
	}
}

// TestAnalyticFormParams: the forms' parameters from their definitions
// (the kernels' g = exp(−k·za²) with σ the E-field width, and the Airy
// x = k·sin(za) with x = πD·sin(za)/λ), and the errors At gives.
func TestAnalyticFormParams(t *testing.T) {
	const freq = 150e6
	lambda := SpeedOfLight / freq
	for _, c := range []struct {
		b    Analytic
		want float64
	}{
		{Gaussian{SigmaRad: 0.3}, 1 / (2 * 0.3 * 0.3)},
		{Airy{DiameterM: 14}, math.Pi * 14 / lambda},
		{DiagonalJones{Airy{DiameterM: 6}}, math.Pi * 6 / lambda},
	} {
		f, err := c.b.AnalyticForm(freq)
		if err != nil || len(f.Params) != 1 || math.Abs(f.Params[0]-c.want) > 1e-12*c.want {
			t.Errorf("%v: form %+v, %v; want k = %.15g", c.b, f, err, c.want)
		}
	}
	for _, c := range []struct {
		b    Analytic
		kind Kind
	}{
		{Gaussian{}, KindGaussian}, {Gaussian{SigmaRad: 1, DiameterM: 1}, KindGaussian},
		{Airy{}, KindAiry}, {Airy{DiameterM: math.Inf(1)}, KindAiry}, {DiagonalJones{Airy{}}, KindAiry},
	} {
		f, err := c.b.AnalyticForm(freq)
		if _, aerr := c.b.At(freq, Mode{}); err == nil || aerr == nil {
			t.Errorf("%v: AnalyticForm error %v, At error %v; want both", c.b, err, aerr)
		}
		if f.Kind != c.kind {
			t.Errorf("%v: kind %v with the error, want %v", c.b, f.Kind, c.kind)
		}
	}
}
