// The full-Stokes sky (docs/stokes.md): the host factors each source's
// local coherency per channel and time into W (positive and negative
// eigenvalues apart), uploads both per integration slot, and the chunk
// stage runs beam_tau_z_stokes and the Gram product once per sign, the
// negative one subtracted. Stokes-I skies never come here.

package gpu

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// stokesState is a full-Stokes run's: the channel's Stokes parameters,
// the basis angles of each time (cached for all times when the ENU
// vectors would be), and per integration slot the factors on the device
// (dW: positive then negative, nsrc·8 doubles each) and whether any
// source has a negative eigenvalue.
type stokesState struct {
	// polSky: the sky has Q, U or V (Simulation.SkyPolarized).
	polSky bool
	// devFactors makes the factors on the device (nil: on the host).
	devFactors *deviceStokes
	stoke      [4][]float64
	basis      [][2][]float64
	cache      bool
	dW         [2]cuda.DevicePtr
	hW         [2]*cuda.HostBuffer
	neg        [2]bool
}

// stokesWords is the doubles of one source's factors of one sign: W[ax,k]
// complex, index 2·(ax·2 + k) (beam_tau_z_stokes's layout).
const stokesWords = 8

// deviceStokes makes a full-Stokes sky's factors on the device, per
// time: every source's direction (enu_all, the coordinates' own
// transform), its basis angle, coherency and factors — for pyuvsim's
// rigid basis (stokes_factor; the host computes only the time's 3×3 frame)
// or the exact local mapping of the IAU rotation (stokes_factor_fd, with
// the directions of each source's neighbours at dec ± h, by the same
// transform from their ECI vectors: ERFA coordinates). Whether a
// channel has a negative eigenvalue is the same at every time (the
// eigenvalues (I ± √(Q²+U²+V²))/2 do not depend on the rotation), so it is
// known per channel.
type deviceStokes struct {
	basis *matvis.RigidBasis // nil: fd
	// fd: the neighbours' ECI vectors and directions (up, down).
	fd                             bool
	nbECI                          [2]srcVectors
	nbENU                          [2][3]cuda.DevicePtr
	iau                            int32
	dRA, dDec, dStokes, dE, dN, dU cuda.DevicePtr
	negChan                        bool
}

// termStokesDevice is the device memory of the device's factoring.
const termStokesDevice = "gpu_stokes_factoring"

// setupStokes chooses where a full-Stokes sky's factors are made: on the
// device for a matvis.RigidBasis (pyuvsim's basis) and for a
// matvis.FDBasis whose coordinates and neighbours are ERFA rotations on the
// device (astro.BCRSRotation), else on the host.
func (r *run) setupStokes() error {
	if !r.polSky {
		return nil
	}
	d := &deviceStokes{}
	switch b := r.sim.PolBasis.(type) {
	case *matvis.RigidBasis:
		if b.NSources() != r.nsrc {
			return r.hostStokes("a basis of another sky")
		}
		d.basis = b
	case *matvis.FDBasis:
		up, down := b.Neighbours()
		bu, ok1 := up.(astro.BCRSRotation)
		bd, ok2 := down.(astro.BCRSRotation)
		if r.rot == nil || r.bcrs == nil || !ok1 || !ok2 {
			return r.hostStokes("an FDBasis whose coordinates are not ERFA rotations")
		}
		d.fd = true
		if err := d.uploadNeighbours(r, [2]astro.BCRSRotation{bu, bd}); err != nil {
			return err
		}
	default:
		return r.hostStokes(fmt.Sprintf("basis %T", r.sim.PolBasis))
	}
	if r.sim.Options.Rotation == matvis.RotationIAU {
		d.iau = 1
	}
	ns := int64(r.nsrc)
	for _, p := range []*cuda.DevicePtr{&d.dStokes, &d.dE, &d.dN, &d.dU, &d.dRA, &d.dDec} {
		n := ns * 8
		if p == &d.dStokes {
			n *= 4
		}
		var err error
		if *p, err = r.alloc(termStokesDevice, n); err != nil {
			return err
		}
	}
	if d.basis != nil {
		ra, dec := d.basis.Sources()
		if err := cuda.Upload(r.c, d.dRA, ra, r.s); err != nil {
			return fmt.Errorf("gpu: upload the sources' right ascensions: %w", err)
		}
		if err := cuda.Upload(r.c, d.dDec, dec, r.s); err != nil {
			return fmt.Errorf("gpu: upload the sources' declinations: %w", err)
		}
	}
	r.devFactors = d
	r.res.Stats.StokesFactors = "device"
	return nil
}

// hostStokes records why the factors are made on the host.
func (r *run) hostStokes(why string) error {
	r.res.Stats.StokesFactors = "host (" + why + ")"
	return nil
}

// uploadNeighbours puts the FD basis's neighbours' ECI vectors on the
// device, with room for their directions.
func (d *deviceStokes) uploadNeighbours(r *run, nb [2]astro.BCRSRotation) error {
	ns := int64(r.nsrc)
	for k, b := range nb {
		x, y, z := b.ECI()
		for j, v := range [][]float64{x, y, z} {
			if len(v) != r.nsrc {
				return fmt.Errorf("gpu: polarization basis neighbour %d has %d ECI vectors, want %d", k, len(v), r.nsrc)
			}
			var err error
			if d.nbECI[k][j], err = r.alloc(termStokesDevice, ns*8); err != nil {
				return err
			}
			if d.nbENU[k][j], err = r.alloc(termStokesDevice, ns*8); err != nil {
				return err
			}
			if err := cuda.Upload(r.c, d.nbECI[k][j], v, r.s); err != nil {
				return fmt.Errorf("gpu: upload the polarization basis's neighbours: %w", err)
			}
		}
	}
	return nil
}

// loadStokes evaluates the sky's four Stokes parameters at channel fi.
func (r *run) loadStokes(fi int) error {
	if r.stoke[0] == nil {
		for k := range r.stoke {
			r.stoke[k] = make([]float64, r.nsrc)
		}
		r.basis = make([][2][]float64, r.sim.NTime())
		r.cache = matvis.CacheAllENU(r.sim.NTime(), r.nsrc)
	}
	if err := r.sim.StokesAt(fi, r.stoke); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if d := r.devFactors; d != nil {
		ns := int64(r.nsrc)
		for k := range r.stoke {
			if err := cuda.Upload(r.c, d.dStokes.Offset(int64(k)*ns*8), r.stoke[k], r.s); err != nil {
				return fmt.Errorf("gpu: upload the Stokes parameters of channel %d: %w", fi, err)
			}
		}
		d.negChan = anyNegative(r.stoke)
	}
	return nil
}

// anyNegative reports whether a source has a negative coherency
// eigenvalue, I < √(Q²+U²+V²), on every core.
func anyNegative(st [4][]float64) bool {
	n := len(st[0])
	workers := blocks.Workers(n, 65536)
	var found atomic.Bool
	blocks.Run(n, workers, func(lo, hi int) {
		for s := lo; s < hi && !found.Load(); s++ {
			if st[0][s] < math.Sqrt(st[1][s]*st[1][s]+st[2][s]*st[2][s]+st[3][s]*st[3][s]) {
				found.Store(true)
			}
		}
	})
	return found.Load()
}

// queueDeviceFactors queues time ti's factors into slot sl on the device,
// from the time's coordinates (mode, src, par as the compaction takes
// them).
func (r *run) queueDeviceFactors(ti, sl int, mode int32, src srcVectors, par []float64) error {
	d := r.devFactors
	ns := int64(r.nsrc)
	if err := r.k.enu(r.s, ns, mode, src, par, d.dE, d.dN, d.dU); err != nil {
		return err
	}
	pos, neg := r.dW[sl], r.dW[sl].Offset(ns*stokesWords*8)
	r.neg[sl] = d.negChan
	if d.fd {
		// The neighbours by the same transform as the sources (mode 2:
		// ECI vectors and this time's BCRS parameters).
		for k := range d.nbENU {
			if err := r.k.enu(r.s, ns, mode, d.nbECI[k], par, d.nbENU[k][0], d.nbENU[k][1], d.nbENU[k][2]); err != nil {
				return err
			}
		}
		up, dn := d.nbENU[0], d.nbENU[1]
		if err := r.k.stokesFactorFD.Launch(cuda.Grid1(r.nsrc, threadsCoords), dim1(threadsCoords), 0, r.s, ns, d.dE, d.dN, d.dU,
			up[0], up[1], up[2], dn[0], dn[1], dn[2], d.dStokes, d.iau, pos, neg); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		return nil
	}
	u, err := d.basis.Frame(ti)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	frame := make([]float64, 0, 9)
	for i := range 3 {
		frame = append(frame, u[i][0], u[i][1], u[i][2])
	}
	if err := r.k.stokesFactor.Launch(cuda.Grid1(r.nsrc, threadsCoords), dim1(threadsCoords), 0, r.s, ns, d.dRA, d.dDec,
		d.dE, d.dN, d.dU, frame, d.dStokes, d.iau, pos, neg); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

// basisAt returns the basis angles of time ti (cached or computed).
func (r *run) basisAt(ti int) (cosX, sinX []float64, err error) {
	if b := r.basis[ti]; b[0] != nil {
		return b[0], b[1], nil
	}
	cosX, sinX = make([]float64, r.nsrc), make([]float64, r.nsrc)
	if err := r.sim.PolBasis.Basis(ti, cosX, sinX); err != nil {
		return nil, nil, fmt.Errorf("gpu: polarization basis at time %d: %w", ti, err)
	}
	if r.cache {
		r.basis[ti] = [2][]float64{cosX, sinX}
	}
	return cosX, sinX, nil
}

// queueFactors factors every source's coherency at the loaded channel and
// time ti into the pinned buffer of slot sl and queues its upload, inside
// queueCoords (between the slot's events c0 and c1). Both buffers are free
// without a wait: the device buffer dW[sl] is last read by the chunks of
// the slot's previous integration, queued earlier on the same stream; the
// host buffer's previous upload came before that integration's c1, which
// the run loop has waited for (SyncEvent) before queueing this one.
func (r *run) queueFactors(ti, sl int) error {
	cosX, sinX, err := r.basisAt(ti)
	if err != nil {
		return err
	}
	h := cuda.HostSlice[float64](r.hW[sl])
	pos, neg := h[:r.nsrc*stokesWords], h[r.nsrc*stokesWords:]
	r.neg[sl] = factorSky(r.stoke, cosX, sinX, r.sim.Options.Rotation, pos, neg)
	// Asynchronous from the pinned buffer, as the ENU upload (cuda.Upload
	// would wait for the stream, and so for the previous time's chunks);
	// the negative half only when some factor is negative (a physical sky
	// has none: half the bytes).
	n := int64(len(pos)) * 8
	if r.neg[sl] {
		n *= 2
	}
	if err := r.c.CopyHtoD(r.dW[sl], r.hW[sl].Ptr(), n, r.s); err != nil {
		return fmt.Errorf("gpu: upload the Stokes factors of time %d: %w", ti, err)
	}
	return nil
}

// factorSky writes each source's factors W of positive and of negative
// sign (zero columns for the other sign), on all cores, and reports
// whether any is negative.
func factorSky(st [4][]float64, cosX, sinX []float64, rot matvis.CoherencyRotation, pos, neg []float64) bool {
	n := len(cosX)
	workers := blocks.Workers(n, 4096)
	negs := make([]bool, workers)
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			negs[w] = factorRange(st, cosX, sinX, rot, pos, neg, min(w*per, n), min((w+1)*per, n))
		}()
	}
	wg.Wait()
	return slices.Contains(negs, true)
}

// factorRange is factorSky over sources lo..hi−1.
func factorRange(st [4][]float64, cosX, sinX []float64, rot matvis.CoherencyRotation, pos, neg []float64, lo, hi int) bool {
	anyNeg := false
	for s := lo; s < hi; s++ {
		c := matvis.LocalCoherency(st[0][s], st[1][s], st[2][s], st[3][s], cosX[s], sinX[s], rot)
		w, sign := c.Factor()
		p, n := pos[s*stokesWords:(s+1)*stokesWords], neg[s*stokesWords:(s+1)*stokesWords]
		clear(p)
		clear(n)
		for ax := range 2 {
			for k := range 2 {
				dst := p
				if sign[k] < 0 {
					dst, anyNeg = n, true
				}
				i := 2 * (ax*2 + k)
				dst[i], dst[i+1] = real(w[ax][k]), imag(w[ax][k])
			}
		}
	}
	return anyNeg
}

// launchStokesZ queues beam_tau_z_stokes for sources [p0, p0+n) of slot sl
// with the factors of one sign (negative: the second half of dW[sl]).
func (r *run) launchStokesZ(fi, sl, n, p0 int, negative bool) error {
	w := r.dW[sl]
	if negative {
		w = w.Offset(int64(r.nsrc) * stokesWords * 8)
	}
	return r.k.makeZStokes(r.s, r.zArgs(fi, sl, n, p0, r.dCoef), w, antennasPerBlock, int64(r.ldz(n)), r.dZ)
}

// stokesChunk is a full-Stokes chunk's Gram stage: the positive factors'
// Z (already made by launchStokesZ) added to beta times the accumulator,
// and, when some source of the integration has a negative eigenvalue, the
// negative factors' Z made into the same buffer and its Gram subtracted.
func (r *run) stokesChunk(fi, sl, n, p0 int, beta float64) error {
	ldz, k := r.ldz(n), r.nf*n
	if err := r.g.Accumulate(r.st, r.dZ, ldz, r.M, k, r.dAcc, beta); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if !r.neg[sl] {
		return nil
	}
	if err := r.launchStokesZ(fi, sl, n, p0, true); err != nil {
		return err
	}
	if err := r.g.AccumulateScaled(r.st, r.dZ, ldz, r.M, k, r.dAcc, -1, 1); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}
