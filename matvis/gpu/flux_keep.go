// The power-law flux table a backend keeps from one run to the next.

package gpu

import (
	"slices"

	"github.com/gomatvis/gomatvis/cuda"
)

// keptFlux is the flux table a run made on the device from a power-law
// sky (setupFluxTable), kept for the next run of the same sky and
// channels: the blocks of a streamed run that splits the times, each of
// which has every channel and made the table again (17 ms of a block's
// set-up on an H100: the law's upload, the kernel, the maxima and their
// allocations). law holds the sky's own arrays, whose identity is part of
// the key: a sky's slices are not modified (skymodel.Sky), and holding
// them keeps their memory from being another sky's.
type keptFlux struct {
	law   skyPowerLaw
	freqs []float64
	table cuda.DevicePtr
	bytes int64
	max   []float64 // each channel's largest flux
}

// holds says whether k is law's table at freqs.
func (k *keptFlux) holds(law skyPowerLaw, freqs []float64) bool {
	return k != nil && sameArray(k.law.sref, law.sref) && sameArray(k.law.index, law.index) &&
		sameArray(k.law.lnRef, law.lnRef) && slices.Equal(k.freqs, freqs)
}

// sameArray says whether a and b are the same array (not equal values).
func sameArray(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// dropFlux frees the kept flux table.
func (k *resident) dropFlux() {
	if k.flux != nil {
		_ = k.c.Free(k.flux.table)
		k.flux = nil
	}
}

// settleKeptFlux finds the run's power-law sky (r.law) and frees a kept
// flux table that is not its own before the run plans its memory.
func (r *run) settleKeptFlux() error {
	r.law, r.isLaw = skyPowerLaw{}, false
	if !r.polSky {
		r.law, r.isLaw = powerLawOf(r.sim, r.nsrc)
	}
	if !r.isLaw || !r.keep.flux.holds(r.law, r.sim.Freqs) {
		r.keep.dropFlux()
	}
	return nil
}
