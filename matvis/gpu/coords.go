// The coordinate stage: ENU vectors, horizon compaction and the sky ordering
// of each time, queued on the device.

package gpu

import (
	"fmt"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// params fills time ti's parameter block hm (parN values) and returns the
// coordinate mode of the horizon kernels: 2 for an astro.BCRSRotation (the
// ENU matrix and the BCRS-step constants; the device holds the ECI
// vectors), 1 for another matrix rotation (the matrix only; the caller
// uploads the cached vectors).
func (r *run) params(ti int, hm []float64) (int32, error) {
	m, err := r.rot.Matrix(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	copy(hm[:9], m[:])
	if r.bcrs == nil {
		return 1, nil
	}
	p, err := r.bcrs.BCRSParams(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	copy(hm[parEH:parEH+3], p.Eh[:])
	hm[parEM] = p.Em
	copy(hm[parV:parV+3], p.V[:])
	hm[parBM1] = p.Bm1
	copy(hm[parBPN:parBPN+9], p.BPN[:])
	hm[parSRS] = astro.SRS
	return 2, nil
}

// queueCoords queues time ti's ENU vectors and horizon compaction into
// compaction slot sl, and the copy of the visible count to the host.
func (r *run) queueCoords(fi, ti, sl int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.Record(ev.c0, r.s); err != nil {
		return err
	}
	mode := int32(0)
	ns := int64(r.nsrc)
	// The time's parameters go to the kernels as an argument (mode 0
	// ignores them).
	hm := make([]float64, parN)
	if r.rot != nil {
		var err error
		if mode, err = r.params(ti, hm); err != nil {
			return err
		}
		if mode == 1 {
			x, y, z, err := r.rot.CachedVectors(ti)
			if err != nil {
				return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
			}
			if len(x) != r.nsrc || len(y) != r.nsrc || len(z) != r.nsrc {
				return fmt.Errorf("gpu: cached vectors at time %d have %d sources, want %d", ti, len(x), r.nsrc)
			}
			if r.lastVec != &x[0] { // refreshed (BCRS step): upload once
				for k, v := range [][]float64{x, y, z} {
					if err := cuda.Upload(c, r.dSrc[k], v, r.s); err != nil {
						return err
					}
				}
				r.lastVec = &x[0]
			}
		}
	} else {
		h := cuda.HostSlice[float64](r.hENU[sl])
		if err := r.sim.Coords.ENU(ti, h[:ns], h[ns:2*ns], h[2*ns:3*ns]); err != nil {
			return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
		}
		for k := int64(0); k < 3; k++ {
			if err := c.CopyHtoD(r.dSrc[k], unsafe.Add(r.hENU[sl].Ptr(), k*ns*8), ns*8, r.s); err != nil {
				return err
			}
		}
	}
	if err := c.Record(ev.u, r.s); err != nil {
		return err
	}
	src := srcVectors(r.dSrc)
	// The device holds one channel's fluxes (uploadFlux): channel 0 of 1;
	// a full-Stokes sky's slot holds the source indices (nfreq −1) and its
	// factors are uploaded per integration.
	slot := r.slot(sl)
	nfreq := int32(1)
	if r.polSky {
		nfreq = -1
		if err := r.queueFactors(ti, sl); err != nil {
			return err
		}
	}
	if err := r.compactVisible(ns, mode, src, hm, nfreq, slot, r.dTotal[sl]); err != nil {
		return err
	}
	if r.order {
		// Stable LSD sort: azimuth bin (slot → tmp), then zenith band
		// (tmp → slot).
		tmp := compactSlot{r.dTmpE, r.dTmpN, r.dTmpU, r.dTmpA}
		for pass, bins := range []int64{sortAzBins, sortBands} {
			in, out := slot, tmp
			if pass == 1 {
				in, out = tmp, slot
			}
			if err := r.k.countKeys(r.s, r.nblkSort, r.dTotal[sl], int32(pass), in, int32(r.nblkSort), r.dSortCnt); err != nil {
				return err
			}
			if err := r.k.scan(r.s, int32(int64(r.nblkSort)*bins), r.dSortCnt, r.dSortOff, r.dSortTot, r.dScanTmp, &r.lb); err != nil {
				return err
			}
			if err := r.k.scatterKeys(r.s, r.nblkSort, r.dTotal[sl], int32(pass), int32(r.nblkSort), r.dSortOff, in, out); err != nil {
				return err
			}
		}
	}
	if err := c.CopyDtoH(unsafe.Add(r.hCount.Ptr(), 4*sl), r.dTotal[sl], 4, r.s); err != nil {
		return err
	}
	return c.Record(ev.c1, r.s)
}

// compactVisible writes the sources above the horizon, in order, into
// slot and their count to total: in one launch (look-back), else by block
// counts, their scan and a scatter.
func (r *run) compactVisible(ns int64, mode int32, src srcVectors, par []float64, nfreq int32, slot compactSlot, total cuda.DevicePtr) error {
	done, err := r.k.compact(r.s, ns, mode, src, par, r.dFlux, nfreq, 0, slot, total, &r.lb)
	if done || err != nil {
		return err
	}
	if err := r.k.countVisible(r.s, r.nblk, ns, mode, src, par, r.dBlkCnt); err != nil {
		return err
	}
	if err := r.k.scan(r.s, int32(r.nblk), r.dBlkCnt, r.dBlkOff, total, r.dScanTmp, &r.lb); err != nil {
		return err
	}
	return r.k.scatterVisible(r.s, r.nblk, ns, mode, src, par, r.dBlkOff, r.dFlux, nfreq, 0, slot)
}

// channelSky loads channel fi's sky: the fluxes on the device, or a
// full-Stokes sky's Stokes parameters on the host (queueFactors uploads
// their factors per integration).
func (r *run) channelSky(fi int) error {
	if fi == r.skyFreq {
		return nil // loaded already (the fused path's measurement loads channel 0)
	}
	r.skyFreq = -1
	var err error
	if r.polSky {
		err = r.loadStokes(fi)
	} else {
		err = r.uploadFlux(fi)
	}
	if err == nil {
		r.skyFreq = fi
	}
	return err
}

// uploadFlux evaluates the sky at channel fi into the pinned flux buffer
// and queues its upload: one channel on the device at a time, so a
// spectral sky never becomes an nsrc × nfreq table. The copy is on r.s,
// after every kernel of the previous channel that reads dFlux (the horizon
// compaction) in stream order, and asynchronous: the host does not wait
// for the previous channel's chunks. The buffer is free to rewrite: its
// last copy was queued before the previous channel's first coordinates,
// which the run has waited for.
func (r *run) uploadFlux(fi int) error {
	r.flux = cuda.HostSlice[float64](r.hFlux)[:r.nsrc]
	if err := r.sim.FluxAt(fi, r.flux); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if err := r.c.CopyHtoD(r.dFlux, r.hFlux.Ptr(), int64(r.nsrc)*8, r.s); err != nil {
		return fmt.Errorf("gpu: upload fluxes of freqs[%d]: %w", fi, err)
	}
	return nil
}

// deviceENU computes every source's ENU vector at time ti on the device
// (the horizon kernels' coordinates, in double, before the horizon test):
// the tests compare it with the CPU's. It needs a matrix rotation and
// leaves the run's slots alone (it syncs).
func (r *run) deviceENU(ti int) (e, n, u []float64, err error) {
	if r.rot == nil {
		return nil, nil, nil, fmt.Errorf("gpu: deviceENU needs a matrix rotation, have %T", r.sim.Coords)
	}
	hm := make([]float64, parN)
	mode, err := r.params(ti, hm)
	if err != nil {
		return nil, nil, nil, err
	}
	if mode == 1 {
		x, y, z, err := r.rot.CachedVectors(ti)
		if err != nil {
			return nil, nil, nil, err
		}
		for k, v := range [][]float64{x, y, z} {
			if err := cuda.Upload(r.c, r.dSrc[k], v, r.s); err != nil {
				return nil, nil, nil, err
			}
		}
		r.lastVec = nil
	}
	ns := int64(r.nsrc)
	var out [3]cuda.DevicePtr
	for k := range out {
		if out[k], err = r.alloc("test", ns*8); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := r.k.enu(r.s, ns, mode, srcVectors(r.dSrc), hm, out[0], out[1], out[2]); err != nil {
		return nil, nil, nil, err
	}
	res := [3][]float64{make([]float64, ns), make([]float64, ns), make([]float64, ns)}
	for k := range out {
		if err := cuda.Download(r.c, res[k], out[k], r.s); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := r.c.SyncStream(r.s); err != nil {
		return nil, nil, nil, err
	}
	return res[0], res[1], res[2], nil
}
