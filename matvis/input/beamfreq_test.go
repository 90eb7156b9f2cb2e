package input

import (
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam/beamfits"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestObsBeamFreqInterp: a telescope configuration's freq_interp_kind
// reaches its beamfits beams: the two-channel (100, 101 MHz) NF dipole
// with "linear" gives at 100.3 MHz 0.7·(100 MHz) + 0.3·(101 MHz) at random
// directions (the frequency step commutes with the spatial spline), where
// the default cubic refuses it; analytic beams pass as they are; an
// unknown kind is refused naming it.
func TestObsBeamFreqInterp(t *testing.T) {
	fits := simspec.Beam{Type: "beamfits", Path: sharedtest.HERABeam(t)}
	if _, err := obsBeam(fits, 3, "", 2); err != nil {
		t.Fatal(err)
	}
	bc, _ := obsBeam(fits, 3, "cubic", 2)
	if err := beam.Check(bc, 100.3e6, beam.Mode{Polarized: true}); err == nil || !strings.Contains(err.Error(), "at least 4 beam frequencies") {
		t.Errorf("cubic, 2 channels: %v", err)
	}
	if _, err := obsBeam(fits, 3, "spline", 2); err == nil || !strings.Contains(err.Error(), `freq_interp_kind "spline"`) {
		t.Errorf("unknown kind: error %v", err)
	}
	for _, order := range []int{1, 3} {
		bl, err := obsBeam(fits, order, "linear", 2)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := bl.(*beam.Gridded)
		if !ok || g.FreqInterp() != "linear" || g.Order() != order {
			t.Fatalf("beam %T %v: want a *beam.Gridded, kind linear, order %d", bl, bl, order)
		}
		var az, za []float64
		for i := 0; i < 200; i++ {
			az = append(az, 2*math.Pi*math.Mod(0.618034*float64(i), 1))
			za = append(za, 0.5*math.Pi*math.Mod(0.41421356*float64(i), 1))
		}
		eval := func(f float64) []complex128 {
			r, err := bl.At(f, beam.Mode{Polarized: true})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]complex128, 4*len(az))
			r.Eval(az, za, out)
			return out
		}
		a, b, mid := eval(100e6), eval(101e6), eval(100.3e6)
		var worst, peak float64
		for i := range mid {
			worst = math.Max(worst, cmplx.Abs(mid[i]-(0.7*a[i]+0.3*b[i])))
			peak = math.Max(peak, cmplx.Abs(a[i]))
		}
		t.Logf("order %d: max |Δ| from 0.7·a + 0.3·b = %.3g (peak %.3g)", order, worst, peak)
		if worst > 1e-13*peak {
			t.Errorf("order %d: max |Δ| from 0.7·a + 0.3·b = %.3g (peak %.3g)", order, worst, peak)
		}
	}
	for _, b := range []simspec.Beam{{Type: "gaussian", SigmaRad: 0.2}, {Type: "uniform"}} {
		bm, err := obsBeam(b, 3, "nearest", 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := bm.(beam.DiagonalJones); !ok {
			t.Errorf("%s: %T, want pyuvsim's diagonal Jones beam", b.Type, bm)
		}
	}
	// Under a diagonal Jones wrapper the gridded beam gets the kind too.
	g, err := beamfits.Load(sharedtest.HERABeam(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := withFreqInterp(beam.DiagonalJones{Beam: g}, "next")
	if err != nil {
		t.Fatal(err)
	}
	if k := w.(beam.DiagonalJones).Beam.(*beam.Gridded).FreqInterp(); k != "next" {
		t.Errorf("wrapped beam kind %q, want next", k)
	}
}

// TestFromObsConfigFreqInterp: a pyuvsim configuration whose beamfits
// beam has two channels and channels between them runs with
// freq_interp_kind: linear (as pyuvsim runs it), is refused without it
// (pyuvdata's default cubic needs 4), and an unknown kind is an error
// naming the file, the field and the value.
func TestFromObsConfigFreqInterp(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{"linear", ""},
		{"nearest", ""},
		{"", "at least 4 beam frequencies"},
		{"cubic", "at least 4 beam frequencies"},
		{"quadratic", "at least 3 beam frequencies"},
		{"spline", "freq_interp_kind"},
	} {
		t.Run("kind="+tc.kind, func(t *testing.T) {
			cfg, err := obsparam.Read(writeBeamfitsObsparam(t, tc.kind))
			if err == nil {
				if cfg.Telescope.FreqInterpKind != map[string]string{"": "cubic"}[tc.kind]+tc.kind {
					t.Errorf("FreqInterpKind %q", cfg.Telescope.FreqInterpKind)
				}
				var sim *matvis.Simulation
				sim, _, err = FromObsConfig(cfg, &ObsOptions{})
				if err == nil {
					if k := sim.Beams[0].(*beam.Gridded).FreqInterp(); k != tc.kind {
						t.Errorf("simulation's beam kind %q, want %q", k, tc.kind)
					}
				}
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.kind == "spline" {
				for _, w := range []string{"telescope_config.yaml", "spline", "must be one of"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not name %q", err, w)
					}
				}
			}
		})
	}
}
