package input

import (
	"errors"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// zeroBeam answers 0 everywhere (a beam file of zeros); failing, At
// fails.
type zeroBeam struct{ failing bool }

func (z zeroBeam) String() string { return "zeros" }

func (z zeroBeam) At(float64, beam.Mode) (beam.Response, error) {
	if z.failing {
		return nil, errors.New("no beam here")
	}
	return zeroResponse{}, nil
}

type zeroResponse struct{}

func (zeroResponse) Eval(_, _ []float64, out []complex128) { clear(out) }

// TestWarnZeroBeams (issue 41 item 4): a beam that is 0 everywhere above
// the horizon is warned of, naming its index and the frequency (it used
// to run, every visibility of its antennas 0); a working beam and one
// that cannot be prepared (the run reports that) are not.
func TestWarnZeroBeams(t *testing.T) {
	for _, mode := range []beam.Mode{{}, {Polarized: true}} {
		var warns []string
		sim := &matvis.Simulation{Mode: mode, Config: matvis.Config{Freqs: []float64{1.5e8},
			Beams: []beam.Beam{beam.Uniform{}, zeroBeam{}, zeroBeam{failing: true}}}}
		warnZeroBeams(sim, func(w string) { warns = append(warns, w) })
		if len(warns) != 1 || !strings.Contains(warns[0], "beam 1 (zeros) is 0 everywhere above the horizon at 1.5e+08 Hz") {
			t.Errorf("polarized %v: warnings %q", mode.Polarized, warns)
		}
	}
	warnZeroBeams(&matvis.Simulation{Config: matvis.Config{Beams: []beam.Beam{zeroBeam{}}}}, func(w string) { t.Errorf("no frequencies: warned %q", w) })
}
