// The coordinate stage: ENU vectors, horizon compaction and the sky ordering
// of each time, queued on the device.

package gpu

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// params fills time ti's parameter block hm (parN values) and returns the
// coordinate mode of the horizon kernels: 2 for an astro.BCRSRotation (the
// ENU matrix and the BCRS-step constants; the device holds the ECI
// vectors), 1 for another matrix rotation (the matrix only; the caller
// uploads the cached vectors).
func (cs *coordState) params(ti int, hm []float64) (int32, error) {
	m, err := cs.rot.Matrix(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	copy(hm[:9], m[:])
	if cs.bcrs == nil {
		return 1, nil
	}
	p, err := cs.bcrs.BCRSParams(ti)
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
	// The time's parameters go to the kernels as an argument (mode 0
	// ignores them).
	hm := make([]float64, parN)
	q := r.queue()
	mode, err := r.queueVectors(q, r.sim.Coords, r.nsrc, ti, sl, hm)
	if err != nil {
		return err
	}
	if err := c.Record(ev.u, r.s); err != nil {
		return err
	}
	src := r.srcAt(ti, r.nsrc)
	slot := r.slot(sl)
	fl := r.fluxColumn(fi)
	if r.polSky {
		// A full-Stokes sky's slot holds the source indices (nfreq −1);
		// its factors are uploaded or made per integration.
		fl.nfreq = -1
		factors := func() error { return r.queueFactors(ti, sl) }
		if r.devFactors != nil {
			factors = func() error { return r.queueDeviceFactors(ti, sl, mode, src, hm) }
		}
		if err := factors(); err != nil {
			return err
		}
	}
	if err := r.compactVisible(q, int64(r.nsrc), mode, src, hm, fl, slot, r.dTotal[sl]); err != nil {
		return err
	}
	if r.order {
		if err := r.sortVisible(q, sl, slot); err != nil {
			return err
		}
	}
	if err := c.CopyDtoH(unsafe.Add(r.hCount.Ptr(), 4*sl), r.dTotal[sl], 4, r.s); err != nil {
		return err
	}
	return c.Record(ev.c1, r.s)
}

// srcAt are the source vectors of ns sources the coordinate kernels read
// at time ti: time ti's part of dSrc when every time's ENU vectors are
// resident, else dSrc.
func (cs *coordState) srcAt(ti, ns int) srcVectors {
	src := srcVectors(cs.dSrc)
	if cs.enu.resident {
		off := cuda.DevicePtr(int64(ti) * int64(ns) * 8)
		for k := range src {
			src[k] += off
		}
	}
	return src
}

// queueVectors fills time ti's parameter block hm and queues on q the
// uploads its coordinate mode needs (mode 0: the ns sources' ENU from
// coords, made on the host into upload slot sl; 1: a matrix rotation's
// cached vectors, once per refresh; 2: nothing, the device holds the ECI
// vectors), and returns the mode.
func (cs *coordState) queueVectors(q queue, coords matvis.Coordinates, ns, ti, sl int, hm []float64) (int32, error) {
	if cs.rot == nil {
		return 0, cs.uploadENU(q, coords, ns, ti, sl)
	}
	mode, err := cs.params(ti, hm)
	if err != nil || mode != 1 {
		return mode, err
	}
	x, y, z, err := cs.rot.CachedVectors(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	if len(x) != ns || len(y) != ns || len(z) != ns {
		return 0, fmt.Errorf("gpu: cached vectors at time %d have %d sources, want %d", ti, len(x), ns)
	}
	if cs.lastVec != &x[0] { // refreshed (BCRS step): upload once
		for k, v := range [][]float64{x, y, z} {
			if err := cuda.Upload(q.c, cs.dSrc[k], v, q.s); err != nil {
				return 0, err
			}
		}
		cs.lastVec = &x[0]
	}
	return 1, nil
}

// uploadENU queues the upload of the ns sources' ENU vectors at time ti
// (coords) on q: made on the host into pinned slot sl, or with enu.perTime
// into time ti's part of the one buffer the first time ti comes, and not
// uploaded at all when the device holds time ti's already.
func (cs *coordState) uploadENU(q queue, coords matvis.Coordinates, ns, ti, sl int) error {
	if cs.enu.onDevice == ti+1 || (cs.enu.resident && cs.enu.uploaded[ti]) {
		return nil
	}
	n := int64(ns)
	buf, off, fresh := cs.enu.h[sl], int64(0), true
	if cs.enu.perTime {
		buf, off, fresh = cs.enu.h[0], int64(ti)*3*n, !cs.enu.made[ti]
	}
	if fresh {
		h := cuda.HostSlice[float64](buf)[off : off+3*n]
		if err := coords.ENU(ti, h[:n], h[n:2*n], h[2*n:3*n]); err != nil {
			return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
		}
		if cs.enu.perTime {
			cs.enu.made[ti] = true
		}
	}
	dst := cs.srcAt(ti, ns)
	for k := int64(0); k < 3; k++ {
		if err := q.c.CopyHtoD(dst[k], unsafe.Add(buf.Ptr(), (off+k*n)*8), n*8, q.s); err != nil {
			return err
		}
	}
	if cs.enu.resident {
		cs.enu.uploaded[ti] = true
		return nil
	}
	cs.enu.onDevice = ti + 1
	return nil
}

// fluxColumn is where the compaction reads channel fi's fluxes: the flux
// table (every channel's, column fi of nfreq) or the one channel's
// uploaded by uploadFlux (column 0 of 1).
func (r *run) fluxColumn(fi int) fluxColumn {
	if r.fluxTable != 0 {
		return fluxColumn{r.fluxTable, int32(r.sim.NFreq()), int32(fi)}
	}
	return fluxColumn{r.dFlux, 1, 0}
}

// sortVisible orders slot sl's visible sources by (zenith band, azimuth
// bin) for the gridded beams' gathers, on q: a stable LSD sort, azimuth
// bin (slot → scratch) then zenith band (scratch → slot).
func (cs *coordState) sortVisible(q queue, sl int, slot compactSlot) error {
	tmp := compactSlot{cs.dTmpE, cs.dTmpN, cs.dTmpU, cs.dTmpA}
	for pass, bins := range []int64{sortAzBins, sortBands} {
		in, out := slot, tmp
		if pass == 1 {
			in, out = tmp, slot
		}
		if err := q.k.countKeys(q.s, cs.nblkSort, cs.dTotal[sl], int32(pass), in, int32(cs.nblkSort), cs.dSortCnt); err != nil {
			return err
		}
		if err := q.k.scan(q.s, int32(int64(cs.nblkSort)*bins), cs.dSortCnt, cs.dSortOff, cs.dSortTot, cs.dScanTmp, &cs.lb); err != nil {
			return err
		}
		if err := q.k.scatterKeys(q.s, cs.nblkSort, cs.dTotal[sl], int32(pass), int32(cs.nblkSort), cs.dSortOff, in, out); err != nil {
			return err
		}
	}
	return nil
}

// compactVisible writes the sources above the horizon, in order, into
// slot and their count to total, on q: in one launch (look-back), else by block
// counts, their scan and a scatter.
func (cs *coordState) compactVisible(q queue, ns int64, mode int32, src srcVectors, par []float64, fl fluxColumn, slot compactSlot, total cuda.DevicePtr) error {
	done, err := q.k.compact(q.s, ns, mode, src, par, fl.flux, fl.nfreq, fl.fi, slot, total, &cs.lb)
	if done || err != nil {
		return err
	}
	if err := q.k.countVisible(q.s, cs.nblk, ns, mode, src, par, cs.dBlkCnt); err != nil {
		return err
	}
	if err := q.k.scan(q.s, int32(cs.nblk), cs.dBlkCnt, cs.dBlkOff, total, cs.dScanTmp, &cs.lb); err != nil {
		return err
	}
	return q.k.scatterVisible(q.s, cs.nblk, ns, mode, src, par, cs.dBlkOff, fl.flux, fl.nfreq, fl.fi, slot)
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
		if r.polSky {
			r.skyL[fi%2] = skyLambdaParallel(&r.stoke)
		}
	}
	return err
}

// uploadFlux queues the upload of channel fi's fluxes from their pinned
// buffer (one channel on the device at a time, so a spectral sky never
// becomes an nsrc × nfreq table) and starts evaluating channel fi + 1's
// into the other buffer on the host, off the run's critical path (a flux
// table is a strided gather: 19 ms per channel at 10⁶ sources). The copy
// is on r.s, after every kernel of the previous channel that reads dFlux
// (the horizon compaction) in stream order, and asynchronous. Each buffer
// is free to rewrite when its next channel is started: its last copy was
// queued before the first coordinates of the channel before, which the
// run has waited for.
func (r *run) uploadFlux(fi int) error {
	if r.fluxTable != 0 {
		r.skyL[fi%2] = r.fluxTableMax[fi] / 2 // every channel is on the device
		return nil
	}
	f, err := r.fluxes.take(r, fi)
	if err != nil {
		return err
	}
	r.flux, r.skyL[fi%2] = f.flux, f.max/2
	if err := r.c.CopyHtoD(r.dFlux, r.hFlux[fi%2].Ptr(), int64(r.nsrc)*8, r.s); err != nil {
		return fmt.Errorf("gpu: upload fluxes of freqs[%d]: %w", fi, err)
	}
	if fi+1 < r.sim.NFreq() {
		r.fluxes.start(r, fi+1)
	}
	return nil
}

// fluxColumn is where the horizon compaction reads a channel's fluxes:
// flux[s·nfreq + fi] (nfreq −1: a full-Stokes sky's source indices).
type fluxColumn struct {
	flux      cuda.DevicePtr
	nfreq, fi int32
}

// fluxTableSmall is the flux table size below which it goes to the device
// whatever the run's times (an upload of ~15 ms at most).
const fluxTableSmall = 128 << 20

// termFluxTable is the device memory of every channel's fluxes.
const termFluxTable = "gpu_flux_table"

// setupFluxTable puts every channel's fluxes on the device, with each
// channel's largest (for the FP16 scale) from one reduction, so that a
// channel change costs the host nothing: a flux table (Config.Flux) when
// it is small (fluxTableSmall) or each channel has one time, and a
// power-law sky (matvis.PowerLaw) made on the device from its three
// per-source arrays, which on the host cost each block of a streamed run
// 10⁶ power laws a channel (a third of its host time at 64 channels), and
// kept for the backend's next run of the same sky and channels. The
// table takes at most an eighth of the free memory (and 4 GB). Another
// sky model, a full-Stokes sky or a larger table keeps the per-channel
// upload.
func (r *run) setupFluxTable() error {
	sim := r.sim
	n := int64(r.nsrc) * int64(sim.NFreq())
	if r.polSky || n >= 1<<31 { // the kernels index it in int
		return nil
	}
	if r.isLaw {
		return r.powerLawTable(n)
	}
	// Its upload (from pageable memory, ~7 GB/s) is worth it when a
	// channel's integrations are too short to hide the next channel's
	// evaluation on the host (one time per channel) or when it is small.
	if sim.Sky != nil || int64(len(sim.Flux)) != n || (n*8 > fluxTableSmall && sim.NTime() > 1) {
		return nil
	}
	if !r.fluxTableFits(n) {
		return nil
	}
	var err error
	if r.fluxTable, err = r.alloc(termFluxTable, n*8); err != nil {
		return err
	}
	if err := cuda.Upload(r.c, r.fluxTable, sim.Flux, r.s); err != nil {
		return fmt.Errorf("gpu: upload the flux table: %w", err)
	}
	if err := r.fluxTableMaxima(); err != nil {
		return err
	}
	r.addFluxTerm(n * 8)
	return nil
}

// powerLawTable gives the run the power law's table of n values: the one
// kept from the last run of the same sky and channels, else one made on
// the device and kept. An overflow leaves none (the host then evaluates
// the sky and names the source).
func (r *run) powerLawTable(n int64) error {
	if k := r.keep.flux; k.holds(r.law, r.sim.Freqs) {
		r.fluxTable, r.fluxTableMax = k.table, k.max
		r.track(k.table, termFluxTable, k.bytes)
		r.addFluxTerm(k.bytes)
		return nil
	}
	if !r.fluxTableFits(n) {
		return nil
	}
	table, err := r.c.Alloc(n * 8) // the backend's (kept), not the run's
	if err != nil {
		return fmt.Errorf("gpu: %s: %w", termFluxTable, err)
	}
	r.fluxTable = table
	r.track(table, termFluxTable, n*8)
	ok, err := r.fillPowerLaw(r.law)
	if err == nil && ok {
		err = r.fluxTableMaxima()
	}
	if err != nil || !ok {
		r.untrack(table)
		_ = r.c.Free(table)
		r.fluxTable = 0
		return err
	}
	r.keep.flux = &keptFlux{law: r.law, freqs: slices.Clone(r.sim.Freqs), table: table, bytes: n * 8, max: r.fluxTableMax}
	r.addFluxTerm(n * 8)
	return nil
}

// fluxTableFits says whether a table of n values takes at most an eighth
// of the free memory and 4 GB.
func (r *run) fluxTableFits(n int64) bool {
	free, _, err := r.c.MemInfo()
	return err == nil && n*8 <= min(free/8, 4<<30)
}

// addFluxTerm puts the flux table in the run's memory plan.
func (r *run) addFluxTerm(bytes int64) {
	r.res.Plan.Terms = append(r.res.Plan.Terms, matvis.MemoryTerm{Name: termFluxTable, Bytes: bytes})
	r.res.Plan.Total += bytes
}

// skyPowerLaw is a sky's Stokes-I power law: S_ref, α and ln f_ref per source.
type skyPowerLaw struct{ sref, index, lnRef []float64 }

// powerLawOf returns sim's sky's Stokes-I power law when the device may
// make its table: nsrc sources, every S_ref finite and non-negative, every
// α and ln f_ref finite, so that only an overflow (which bp_power_law
// flags) can give a flux the host's FluxMaxAt would refuse.
func powerLawOf(sim *matvis.Simulation, nsrc int) (skyPowerLaw, bool) {
	pl, ok := sim.Sky.(matvis.PowerLaw)
	if !ok {
		return skyPowerLaw{}, false
	}
	sref, index, lnRef, ok := pl.PowerLawI()
	if !ok || len(sref) != nsrc || len(index) != nsrc || len(lnRef) != nsrc {
		return skyPowerLaw{}, false
	}
	for i, s := range sref {
		if !(s >= 0) || math.IsInf(s, 1) || math.IsNaN(index[i]) || math.IsInf(index[i], 0) || math.IsNaN(lnRef[i]) || math.IsInf(lnRef[i], 0) {
			return skyPowerLaw{}, false
		}
	}
	return skyPowerLaw{sref, index, lnRef}, true
}

// fillPowerLaw makes the power law's every channel in r.fluxTable
// (bp_power_law), with ln f from math.Log as the host's evaluation takes
// it; ok is false when a value overflowed.
func (r *run) fillPowerLaw(pl skyPowerLaw) (ok bool, err error) {
	nf := r.sim.NFreq()
	lnf := make([]float64, nf)
	for f, v := range r.sim.Freqs {
		lnf[f] = math.Log(v)
	}
	var in [4]cuda.DevicePtr // S_ref, α, ln f_ref, ln f
	defer func() {
		for k := range in {
			r.freeDev(&in[k])
		}
	}()
	for k, v := range [][]float64{pl.sref, pl.index, pl.lnRef, lnf} {
		if in[k], err = r.alloc(termFluxTable, int64(len(v))*8); err != nil {
			return false, err
		}
		if err := cuda.Upload(r.c, in[k], v, r.s); err != nil {
			return false, fmt.Errorf("gpu: upload the power law: %w", err)
		}
	}
	bad, err := r.alloc(termFluxTable, 8)
	if err != nil {
		return false, err
	}
	defer r.freeDev(&bad)
	if err := r.c.Memset8(bad, 0, 8, r.s); err != nil {
		return false, fmt.Errorf("gpu: %w", err)
	}
	mod, err := r.prepModule()
	if err != nil {
		return false, err
	}
	fn, err := mod.Function("bp_power_law")
	if err != nil {
		return false, fmt.Errorf("gpu: %w", err)
	}
	ns := int64(r.nsrc)
	grid := cuda.Dim3{X: uint32((ns*int64(nf) + threadsPrep - 1) / threadsPrep), Y: 1, Z: 1}
	if err := fn.Launch(grid, dim1(threadsPrep), 0, r.s, r.fluxTable, in[0], in[1], in[2], in[3], ns, int32(nf), bad); err != nil {
		return false, fmt.Errorf("gpu: %w", err)
	}
	flag := make([]int32, 2)
	if err := cuda.Download(r.c, flag, bad, r.s); err != nil {
		return false, fmt.Errorf("gpu: the power law's overflow flag: %w", err)
	}
	return flag[0] == 0, nil
}

// fluxTableMaxima sets r.fluxTableMax from r.fluxTable in one reduction.
func (r *run) fluxTableMaxima() error {
	mod, err := r.prepModule()
	if err != nil {
		return err
	}
	fn, err := mod.Function("bp_flux_max")
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	nf := r.sim.NFreq()
	bits, err := r.alloc(termFluxTable, int64(nf)*8)
	if err != nil {
		return err
	}
	defer r.freeDev(&bits)
	if err := r.c.Memset8(bits, 0, int64(nf)*8, r.s); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	grid := cuda.Dim3{X: uint32((r.nsrc + threadsPrep - 1) / threadsPrep), Y: uint32(nf), Z: 1}
	if err := fn.Launch(grid, dim1(threadsPrep), 0, r.s, r.fluxTable, int64(r.nsrc), int32(nf), bits); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	hb := make([]uint64, nf)
	if err := cuda.Download(r.c, hb, bits, r.s); err != nil {
		return fmt.Errorf("gpu: the flux table's largest values: %w", err)
	}
	r.fluxTableMax = make([]float64, nf)
	for f, b := range hb {
		r.fluxTableMax[f] = math.Float64frombits(b)
	}
	return nil
}

// fluxPrefetch evaluates one channel's fluxes on the host ahead of use.
type fluxPrefetch struct {
	fi   int // the channel being evaluated (-1: none)
	done chan channelFlux
}

// channelFlux is one channel's fluxes and their largest magnitude.
type channelFlux struct {
	flux []float64
	max  float64
	err  error
}

// start evaluates channel fi into pinned buffer fi % 2 in the background.
func (p *fluxPrefetch) start(r *run, fi int) {
	p.fi = fi
	p.done = make(chan channelFlux, 1)
	buf := cuda.HostSlice[float64](r.hFlux[fi%2])[:r.nsrc]
	go func(done chan channelFlux) { done <- evalFlux(r.sim, fi, buf) }(p.done)
}

// take returns channel fi's fluxes: the prefetched ones, or evaluated now.
func (p *fluxPrefetch) take(r *run, fi int) (channelFlux, error) {
	var f channelFlux
	if p.done != nil && p.fi == fi {
		f = <-p.done
		p.done, p.fi = nil, -1
	} else {
		p.wait()
		f = evalFlux(r.sim, fi, cuda.HostSlice[float64](r.hFlux[fi%2])[:r.nsrc])
	}
	if f.err != nil {
		return f, fmt.Errorf("gpu: %w", f.err)
	}
	return f, nil
}

// wait waits for a prefetch in flight (before its buffer is freed).
func (p *fluxPrefetch) wait() {
	if p.done != nil {
		<-p.done
		p.done, p.fi = nil, -1
	}
}

// evalFlux evaluates channel fi's fluxes into dst.
func evalFlux(sim *matvis.Simulation, fi int, dst []float64) channelFlux {
	m, err := sim.FluxMaxAt(fi, dst)
	if err != nil {
		return channelFlux{err: err}
	}
	return channelFlux{flux: dst, max: m}
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
