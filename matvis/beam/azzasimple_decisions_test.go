package beam

import (
	"math"
	"testing"
)

// TestWrapsRule: the azimuth axis wraps by pyuvdata's test (Wraps' doc):
// |az_first − az_last| + Δaz within Δaz of 2π. Worked by hand for 10°
// steps: 0…350° (360° covered) and 0…360° (the first column repeated,
// 370°) wrap; 0…300° (310°) and 0…90° do not.
func TestWrapsRule(t *testing.T) {
	deg := math.Pi / 180
	za := linspace(0, 80*deg, 17)
	for _, c := range []struct {
		lastDeg float64
		wraps   bool
	}{{350, true}, {360, true}, {300, false}, {90, false}} {
		n := int(c.lastDeg/10) + 1
		g, _ := randomBeam(t, Power, linspace(0, c.lastDeg*deg, n), za, []float64{1e8}, 11)
		if g.Wraps() != c.wraps {
			t.Errorf("azimuth 0…%v° in 10° steps: Wraps %v, want %v", c.lastDeg, g.Wraps(), c.wraps)
		}
	}
}

// TestAzZaSimpleFewAzimuthsWrapping: the bicubic spline needs 4 azimuth
// samples only where the axis does not wrap: a wrapping axis of 3 (0°,
// 120°, 240°) is continued by its copied columns and accepted, 3 that do
// not wrap are refused, and 4 zenith angles are enough.
func TestAzZaSimpleFewAzimuthsWrapping(t *testing.T) {
	deg := math.Pi / 180
	g, _ := randomBeam(t, Power, []float64{0, 120 * deg, 240 * deg}, linspace(0, 90*deg, 4), []float64{1e8}, 12)
	if !g.Wraps() {
		t.Fatal("0°, 120°, 240°: does not wrap")
	}
	if _, err := g.WithSpatialInterp(SpatialAzZaSimple); err != nil {
		t.Errorf("3 wrapping azimuths, 4 zenith angles: %v, want accepted", err)
	}
	h, _ := randomBeam(t, Power, []float64{0, 10 * deg, 20 * deg}, linspace(0, 90*deg, 4), []float64{1e8}, 13)
	if _, err := h.WithSpatialInterp(SpatialAzZaSimple); err == nil {
		t.Error("3 azimuths that do not wrap: accepted, want refused")
	}
}

// TestAzZaSimpleOutsideAzimuth: on an azimuth axis that does not wrap
// (0…90° in 10° steps, za 0…80° in 5°), a point within pyuvdata's
// cover (2 × the larger first step, 20°) of the grid's azimuth edges
// takes the clamped value at the edge and one past it is 0 — on both
// sides, at a zenith angle on a grid node.
func TestAzZaSimpleOutsideAzimuth(t *testing.T) {
	deg := math.Pi / 180
	g0, _ := randomBeam(t, Power, linspace(0, 90*deg, 10), linspace(0, 80*deg, 17), []float64{1e8}, 14)
	r, err := mustAzZa(t, g0).Prepare(1e8, Mode{})
	if err != nil {
		t.Fatal(err)
	}
	za := 40 * deg
	for _, c := range []struct {
		edge, inside, outside float64 // degrees
	}{{0, -19, -21}, {90, 109, 111}} {
		out := make([]complex128, 3)
		r.Eval([]float64{c.edge * deg, c.inside * deg, c.outside * deg}, []float64{za, za, za}, out)
		if out[0] == 0 {
			t.Fatalf("az %v°: 0 at the grid's edge", c.edge)
		}
		if cdiff(out[0], out[1]) > 1e-12 {
			t.Errorf("az %v° (inside the 20° cover): %v, want the clamped value at %v°, %v", c.inside, out[1], c.edge, out[0])
		}
		if out[2] != 0 {
			t.Errorf("az %v° (outside the 20° cover): %v, want 0", c.outside, out[2])
		}
	}
}
