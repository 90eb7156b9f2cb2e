package input

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// warnZeroBeams warns of each of sim's beams that is 0 everywhere above
// the horizon at its first frequency (beam.ZeroAboveHorizon): the run
// would make every visibility of the antennas using it 0 without an
// error. A beam that cannot be prepared there is left to the run, which
// reports it.
func warnZeroBeams(sim *matvis.Simulation, warn func(string)) {
	if warn == nil || len(sim.Freqs) == 0 {
		return
	}
	f := sim.Freqs[0]
	for i, b := range sim.Beams {
		r, err := b.At(f, sim.Mode)
		if err != nil || !beam.ZeroAboveHorizon(r, sim.Mode) {
			continue
		}
		warn(fmt.Sprintf("beam %d (%v) is 0 everywhere above the horizon at %g Hz: every visibility of the antennas using it will be 0 (check the beam's values and its axes' units and order)", i, b, f))
	}
}
