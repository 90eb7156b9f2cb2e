package gpu

import (
	"embed"
	"fmt"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/kernels"
)

// kernelFiles are this package's CUDA programs, beside the Go that
// launches them: vis.cu with its per-stage headers (vis_*.cuh) and
// beamprep.cu; kernels.Program adds the shared headers.
//
//go:embed *.cu *.cuh
var kernelFiles embed.FS

// visKernels are the kernels of one compiled vis.cu. Each is launched
// through a method whose parameters are the kernel's, in its order, with
// the Go type of each C type (long long: int64, int: int32, pointers:
// cuda.DevicePtr), so that a call site cannot pass them out of order
// unnoticed. Block sizes are those the kernels are written for, passed to
// them with -D (defines.go).
type visKernels struct {
	enuAll, horizonCount, scanBlocks, horizonScatter cuda.Function
	scanTileSums, scanTiles                          cuda.Function
	// The decoupled look-back kernels (one launch for a scan, one for the
	// horizon compaction) and how many of their blocks fit on the card
	// at once: they run only when every block is resident.
	scanLookback, horizonCompact  cuda.Function
	scanResident, compactResident int
	keyCount, keyScatter          cuda.Function
	beamTauZ, visOut              cuda.Function
	// nufftStrengths is the transform path's (nufft.go).
	nufftStrengths cuda.Function
	// beamTauZStokes is the full-Stokes sky's Z kernel (stokes.go),
	// stokesFactor its per-time factors (vis_stokes.cuh).
	beamTauZStokes, stokesFactor, stokesFactorFD cuda.Function
	// The fused path's kernels: present when the module was compiled with
	// FG_MT (gramFoot only with FG_STACKED).
	gramFused, gramReduce, gramFoot cuda.Function
}

// loadVisKernels looks up vis.cu's kernels in mod: the fused path's when
// fused, its footprint kernel when stacked, the transform path's
// strengths when withNUFFT (compiled with VIS_NUFFT).
func loadVisKernels(mod *cuda.Module, fused, stacked, withNUFFT bool) (*visKernels, error) {
	k := &visKernels{}
	fns := []struct {
		p    *cuda.Function
		name string
	}{{&k.horizonCount, "horizon_count"}, {&k.scanBlocks, "scan_blocks"}, {&k.horizonScatter, "horizon_scatter"},
		{&k.scanTileSums, "scan_tile_sums"}, {&k.scanTiles, "scan_tiles"},
		{&k.scanLookback, "scan_lookback"}, {&k.horizonCompact, "horizon_compact"},
		{&k.keyCount, "key_count"}, {&k.keyScatter, "key_scatter"}, {&k.beamTauZ, "beam_tau_z"}, {&k.visOut, "vis_out"},
		{&k.enuAll, "enu_all"}, {&k.beamTauZStokes, "beam_tau_z_stokes"},
		{&k.stokesFactor, "stokes_factor"}, {&k.stokesFactorFD, "stokes_factor_fd"}}
	if fused {
		fns = append(fns, struct {
			p    *cuda.Function
			name string
		}{&k.gramFused, "gram_fused"}, struct {
			p    *cuda.Function
			name string
		}{&k.gramReduce, "gram_reduce"})
	}
	if withNUFFT {
		fns = append(fns, struct {
			p    *cuda.Function
			name string
		}{&k.nufftStrengths, "nufft_strengths"})
	}
	if fused && stacked {
		fns = append(fns, struct {
			p    *cuda.Function
			name string
		}{&k.gramFoot, "gram_foot"})
	}
	for _, f := range fns {
		var err error
		if *f.p, err = mod.Function(f.name); err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
	}
	return k, nil
}

func dim1(n int) cuda.Dim3 { return cuda.Dim3{X: uint32(n), Y: 1, Z: 1} }

// srcVectors are the three source-vector arrays the coordinate kernels
// read: ENU (mode 0), cached vectors (mode 1) or ECI vectors (mode 2).
type srcVectors [3]cuda.DevicePtr

// enu writes every source's double ENU vector (enu_all).
func (k *visKernels) enu(s cuda.Stream, nsrc int64, mode int32, src srcVectors, par []float64, e, n, u cuda.DevicePtr) error {
	return k.enuAll.Launch(cuda.Grid1(int(nsrc), threadsCoords), dim1(threadsCoords), 0, s, nsrc, mode, src[0], src[1], src[2], par, e, n, u)
}

// countVisible counts, per block of threadsCoords sources, those above the
// horizon (horizon_count); blocks is ⌈nsrc/threadsCoords⌉.
func (k *visKernels) countVisible(s cuda.Stream, blocks int, nsrc int64, mode int32, src srcVectors, par []float64, blockCount cuda.DevicePtr) error {
	return k.horizonCount.Launch(dim1(blocks), dim1(threadsCoords), 0, s, nsrc, mode, src[0], src[1], src[2], par, blockCount)
}

// scanTile is how many counts one block of a scan takes at a time.
const scanTile = threadsScan * 8

// scanScratch is the device memory (bytes) a scan of n counts needs in
// tmp: the sums of its tiles and their scan.
func scanScratch(n int64) int64 { return 2 * 4 * max(1, (n+scanTile-1)/scanTile) }

// lookback is the state of the decoupled look-back kernels: one status
// word per block (zeroed once when allocated) and the launch count that
// tags the words, so that they never need clearing.
type lookback struct {
	status cuda.DevicePtr
	words  int
	epoch  uint32
}

// next is the tag of the next look-back launch (30 bits, never 0, the
// zeroed words' tag).
func (l *lookback) next() uint32 {
	l.epoch = (l.epoch + 1) & 0x3FFFFFFF
	if l.epoch == 0 {
		l.epoch = 1
	}
	return l.epoch
}

// fits reports whether a look-back launch of blocks blocks has its status
// words and every block resident at once (resident per card).
func (l *lookback) fits(blocks, resident int) bool {
	return l != nil && l.status != 0 && blocks <= l.words && blocks <= resident
}

// residency records how many blocks of the look-back kernels a card of
// sms multiprocessors holds at once.
func (k *visKernels) residency(sms int) error {
	for _, f := range []struct {
		fn      cuda.Function
		threads int
		dst     *int
	}{{k.scanLookback, threadsScan, &k.scanResident}, {k.horizonCompact, threadsCoords, &k.compactResident}} {
		per, err := f.fn.MaxActiveBlocksPerSM(f.threads, 0)
		if err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		*f.dst = per * sms
	}
	return nil
}

// scan writes the exclusive scan of n counts and their total: one block
// (scan_blocks) for a single tile; else one block a tile, by look-back in
// one launch (scan_lookback) when lb has room and the blocks fit at once,
// or in three (scan_tile_sums, scan_blocks over the sums, scan_tiles) with
// tmp of scanScratch(n) bytes.
func (k *visKernels) scan(s cuda.Stream, n int32, in, out, total, tmp cuda.DevicePtr, lb *lookback) error {
	tiles := (int(n) + scanTile - 1) / scanTile
	if tiles <= 1 {
		return k.scanBlocks.Launch(dim1(1), dim1(threadsScan), 0, s, n, in, out, total)
	}
	if lb.fits(tiles, k.scanResident) {
		return k.scanLookback.Launch(dim1(tiles), dim1(threadsScan), 0, s, n, in, out, total, lb.status, lb.next())
	}
	sums, offsets := tmp, tmp.Offset(int64(tiles)*4)
	if err := k.scanTileSums.Launch(dim1(tiles), dim1(threadsScan), 0, s, n, in, sums); err != nil {
		return err
	}
	if err := k.scanBlocks.Launch(dim1(1), dim1(threadsScan), 0, s, int32(tiles), sums, offsets, total); err != nil {
		return err
	}
	return k.scanTiles.Launch(dim1(tiles), dim1(threadsScan), 0, s, n, in, out, offsets)
}

// compactSlot is a compaction slot's visible sources: ENU vectors in the
// run's real type and √(I/2) amplitudes.
type compactSlot struct {
	e, n, u, amp cuda.DevicePtr
}

// scatterVisible writes the visible sources, in order, into dst
// (horizon_scatter) with the fluxes of channel fi of nfreq in flux.
func (k *visKernels) scatterVisible(s cuda.Stream, blocks int, nsrc int64, mode int32, src srcVectors, par []float64, blockOffset, flux cuda.DevicePtr,
	nfreq, fi int32, dst compactSlot) error {
	return k.horizonScatter.Launch(dim1(blocks), dim1(threadsCoords), 0, s, nsrc, mode, src[0], src[1], src[2], par, blockOffset,
		flux, nfreq, fi, dst.e, dst.n, dst.u, dst.amp)
}

// compact writes the visible sources in order into dst and their count to
// total in one launch (horizon_compact), each block taking as many rounds
// of threadsCoords sources as make the launch fit on the card at once, and
// reports whether it did; it declines (the caller counts, scans and
// scatters) when lb has too few words or a block would need more than
// compactMaxRounds rounds.
func (k *visKernels) compact(s cuda.Stream, nsrc int64, mode int32, src srcVectors, par []float64, flux cuda.DevicePtr,
	nfreq, fi int32, dst compactSlot, total cuda.DevicePtr, lb *lookback) (bool, error) {
	groups := int((nsrc + threadsCoords - 1) / threadsCoords)
	if k.compactResident < 1 || groups < 1 {
		return false, nil
	}
	rounds := (groups + k.compactResident - 1) / k.compactResident
	blocks := (groups + rounds - 1) / rounds
	if rounds > compactMaxRounds || !lb.fits(blocks, k.compactResident) {
		return false, nil
	}
	return true, k.horizonCompact.Launch(dim1(blocks), dim1(threadsCoords), 0, s, nsrc, int32(rounds), mode, src[0], src[1], src[2], par,
		flux, nfreq, fi, dst.e, dst.n, dst.u, dst.amp, total, lb.status, lb.next())
}

// countKeys counts the sort keys of pass per block (key_count).
func (k *visKernels) countKeys(s cuda.Stream, blocks int, total cuda.DevicePtr, pass int32, in compactSlot, nblk int32, cnt cuda.DevicePtr) error {
	return k.keyCount.Launch(dim1(blocks), dim1(threadsCoords), 0, s, total, pass, in.e, in.n, in.u, nblk, cnt)
}

// scatterKeys moves the sources from in to out stably by their key of pass
// (key_scatter); off is the scan of countKeys' counts.
func (k *visKernels) scatterKeys(s cuda.Stream, blocks int, total cuda.DevicePtr, pass, nblk int32, off cuda.DevicePtr, in, out compactSlot) error {
	return k.keyScatter.Launch(dim1(blocks), dim1(threadsCoords), 0, s, total, pass, nblk, off,
		in.e, in.n, in.u, in.amp, out.e, out.n, out.u, out.amp)
}

// deviceBeams are the device beam tables of one frequency.
type deviceBeams struct{ desc, geom, coef cuda.DevicePtr }

// zArgs are the arguments beam_tau_z and gram_fused share: sources
// [p0, p0+n) of a compaction slot, the antennas and their beams, the
// polarisation flags and ω = 2πν/c.
type zArgs struct {
	n, p0          int32
	src            compactSlot
	nant           int32
	antPos, beamOf cuda.DevicePtr
	beams          deviceBeams
	polarized      int32
	feedY          int32
	omega          float64
	zscale         float32 // the tensor-core product's FP16 scale (split Z only)
}

// makeZ writes Z (leading dimension ldz) for a.n sources (beam_tau_z), a
// block per 128 sources and group of apb antennas.
func (k *visKernels) makeZ(s cuda.Stream, a zArgs, apb int32, ldz int64, z cuda.DevicePtr) error {
	groups := (a.nant + apb - 1) / apb
	g := cuda.Dim3{X: uint32((a.n + threadsBeamTau - 1) / threadsBeamTau), Y: uint32(groups), Z: 1}
	return k.beamTauZ.Launch(g, dim1(threadsBeamTau), 0, s, a.n, a.p0, a.src.e, a.src.n, a.src.u, a.src.amp,
		a.nant, apb, a.antPos, a.beamOf, a.beams.desc, a.beams.geom, a.beams.coef, a.polarized, a.feedY, a.omega, a.zscale, ldz, z)
}

// strengths writes the transform path's strengths of the n visible
// sources of slot src through beam b (nufft_strengths).
func (k *visKernels) strengths(s cuda.Stream, n int32, src compactSlot, b int32, beams deviceBeams, polarized, feedY int32, str cuda.DevicePtr) error {
	return k.nufftStrengths.Launch(cuda.Grid1(int(n), threadsCoords), dim1(threadsCoords), 0, s, n, src.e, src.n, src.amp, b,
		beams.desc, beams.geom, beams.coef, polarized, feedY, str)
}

// makeZStokes writes a full-Stokes sky's Z (beam_tau_z_stokes) with the
// factors w of one sign; the slot's amp holds the sources' indices.
func (k *visKernels) makeZStokes(s cuda.Stream, a zArgs, w cuda.DevicePtr, apb int32, ldz int64, z cuda.DevicePtr) error {
	groups := (a.nant + apb - 1) / apb
	g := cuda.Dim3{X: uint32((a.n + threadsBeamTau - 1) / threadsBeamTau), Y: uint32(groups), Z: 1}
	return k.beamTauZStokes.Launch(g, dim1(threadsBeamTau), 0, s, a.n, a.p0, a.src.e, a.src.n, a.src.u, a.src.amp, w,
		a.nant, apb, a.antPos, a.beamOf, a.beams.desc, a.beams.geom, a.beams.coef, a.omega, a.zscale, ldz, z)
}

// extract writes the requested pairs' visibilities from the accumulator
// (vis_out); lowerOnly says only its lower triangle holds the product.
func (k *visKernels) extract(s cuda.Stream, npairs int32, pairs cuda.DevicePtr, nf, m int32, acc cuda.DevicePtr, lowerOnly int32, out cuda.DevicePtr) error {
	nout := int(npairs) * int(nf) * int(nf)
	return k.visOut.Launch(cuda.Grid1(nout, threadsCoords), dim1(threadsCoords), 0, s, npairs, pairs, nf, m, acc, lowerOnly, out)
}

// footprints writes the stacked path's spline footprints of sources
// [p0, p0+n) (gram_foot).
func (k *visKernels) footprints(s cuda.Stream, n, p0 int32, ce, cn, geom, foot cuda.DevicePtr) error {
	return k.gramFoot.Launch(cuda.Grid1(int(n), threadsCoords), dim1(threadsCoords), 0, s, n, p0, ce, cn, geom, foot)
}

// fusedGram makes Z and its Gram product in one kernel (gram_fused):
// blocks partial triangles of the m×m product into part.
func (k *visKernels) fusedGram(s cuda.Stream, blocks, threads, shared int, a zArgs, m int32, part, foot cuda.DevicePtr, zscale float32) error {
	return k.gramFused.Launch(dim1(blocks), dim1(threads), shared, s, a.n, a.p0, a.src.e, a.src.n, a.src.u, a.src.amp,
		a.nant, a.antPos, a.beamOf, a.beams.desc, a.beams.geom, a.beams.coef, a.polarized, a.feedY, a.omega, m, part, foot, zscale)
}

// reduce adds nblk partial triangles of the m×m product to the
// accumulator in float64 (gram_reduce).
func (k *visKernels) reduce(s cuda.Stream, nblk, m int32, part, acc cuda.DevicePtr) error {
	return k.gramReduce.Launch(cuda.Grid1(int(m)*int(m), threadsCoords), dim1(threadsCoords), 0, s, nblk, m, part, acc)
}

// visDefines sets the run's real, Z, accumulator and output types (and
// their sizes) and returns vis.cu's NVRTC options: those types, the
// shared constants (sharedDefines) and, for a fused candidate, its tile
// rows, slice, layout and products.
func (r *run) visDefines() []string {
	rt, out := "double", "double2"
	r.rsize, r.osize = 8, 16
	if r.p1 {
		rt, out = "float", "float2"
		r.rsize, r.osize = 4, 8
	}
	zt, acc := "float2", "float2"
	r.zsize = 8
	switch {
	case r.st.Double():
		zt, acc, r.zsize = "double2", "double2", 16
	case r.st.SplitZ():
		zt = "uint2" // FP16 pairs, 8 bytes; the product accumulates in complex64
	}
	opts := append([]string{"-DR_T=" + rt, "-DZ_T=" + zt, "-DACC_T=" + acc, "-DOUT_T=" + out}, sharedDefines()...)
	if r.nu != nil {
		// The transform path's strengths kernel, compiled only for runs
		// that may take the path: the others' module is as before it.
		opts = append(opts, "-DVIS_NUFFT")
	}
	if r.fusedCand {
		opts = append(opts, fmt.Sprintf("-DFG_MT=%d", r.fgMT), fmt.Sprintf("-DFG_TS=%d", r.fgTS))
		if r.stacked {
			opts = append(opts, "-DFG_STACKED", fmt.Sprintf("-DFG_NBP=%d", r.fgNBP))
		}
		if r.tune.fusedF16 {
			opts = append(opts, "-DFG_F16")
		}
	}
	return opts
}

// compile builds vis.cu for the run's precision, Gram strategy and
// tuning with NVRTC (or takes it from the kernel cache) and loads its
// kernels; a fused kernel that does not fit on the device leaves the
// separate path, unless Options.Fused forces it.
func (r *run) compile() error {
	code, headers, err := kernels.Program(kernelFiles, "vis.cu")
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	opts := r.visDefines()
	r.mod, err = r.keep.module(cuda.Source{Name: "vis.cu", Code: code, Headers: headers}, opts...)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if r.k, err = loadVisKernels(r.mod, r.fusedCand, r.stacked, r.nu != nil); err != nil {
		return err
	}
	if err = r.k.residency(r.c.Info().SMs); err != nil {
		return err
	}
	if r.fusedCand {
		if err = r.setupFused(); err != nil {
			// A card whose shared memory or registers do not hold the
			// kernel's block keeps the separate path, unless forced.
			if r.opt.Fused == FusedOn {
				return err
			}
			r.fusedCand, r.stacked = false, false
			r.res.Stats.MatProdImpl.NotFused = fmt.Sprintf("not available on this device (%v)", err)
		}
	}
	return nil
}
