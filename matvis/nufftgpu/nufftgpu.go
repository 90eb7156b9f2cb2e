// Package nufftgpu runs matvis/nufft's type-3 non-uniform FFT on a CUDA
// device:
//
//	f_k = Σ_j c_j · exp(±i s_k·x_j)
//
// in float32 or float64, for a plan made on the host. The method is that
// of Barnett, Magland & af Klinteberg, "A parallel non-uniform fast
// Fourier transform library based on an 'exponential of semicircle'
// kernel", SIAM J. Sci. Comput. 41(5), C479–C504 (2019), arXiv:1808.06736;
// every constant (grid sizes, scalings, phases, the kernel and its Fourier
// corrections) comes from the host plan (nufft.Plan.Layout), so the device
// and CPU implementations compute the same function up to rounding.
//
// The device stages, each one launch on the transform's stream
// (nufft.cu, beside this package):
//
//   - spread: one thread per point (in the plan's grid-bin order) adds its
//     pre-phased strength times the w^d kernel weights into the outer grid
//     with atomicAdd (why that is race-free: nufft.cu);
//   - deconvolve: each outer-grid value times the inner kernel's
//     correction goes to its mode's place in the zeroed padded grid;
//   - FFT: cuFFT, loaded at run time (cuda.FFT), in place on the padded
//     grid;
//   - interpolate: one thread per target sums the w^d padded-grid values
//     around it, times the post-phase and outer correction, into the
//     caller's order.
//
// The kernel weights are computed exactly, φ(z) = exp(β(√(1−z²) − 1)),
// rather than tabulated as on the CPU. Coordinates travel as an integer
// first index and a small offset, computed on the host in float64, so
// that float32 loses nothing to their size.
package nufftgpu

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// Precision is the device arithmetic of a transform.
type Precision int

// Precisions.
const (
	Single Precision = iota + 1 // float32, complex64 in and out
	Double                      // float64, complex128 in and out
)

func (p Precision) String() string {
	switch p {
	case Single:
		return "fp32"
	case Double:
		return "fp64"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// realBytes is the size of one real of the precision.
func (p Precision) realBytes() int64 {
	if p == Single {
		return 4
	}
	return 8
}

// Transform is one type-3 transform on the device: the plan's arrays and
// both grids, owned until Close. One Execute at a time.
type Transform struct {
	c    *cuda.Context
	s    cuda.Stream
	prec Precision
	nv   int // strength vectors transformed together
	lay  nufft.Layout
	k    *stageKernels
	fft  *cuda.FFT
	pts  coords
	// stale says the points were placed under another point map than
	// lay's (a Retarget moved it): Execute refuses until they are placed
	// again.
	stale bool
	tgt   coords
	// stages are RetargetTo's pinned copies, used in turn.
	stages    [2]stage
	nextStage int
	deconv    [3]cuda.DevicePtr
	grid      cuda.DevicePtr // nv outer grids, nf0·nf1·nf2 complex each
	pad       cuda.DevicePtr // nv padded grids, n2_0·n2_1·n2_2 complex each
	// in and out are ExecuteHost's staging buffers, made on first use
	// for inFor points (and grown with SetPoints).
	in, out cuda.DevicePtr
	inFor   int
	owned   []cuda.DevicePtr
	// compile is the caller's module cache (nil: the module is the
	// transform's, unloaded by Close).
	compile Compiler
}

// maxVectors bounds NewBatch's vectors: each is a grid pair and registers
// in the spread and interpolation kernels.
const maxVectors = 8

// New uploads plan pl's layout to the device of c and prepares the
// transform of one strength vector in precision prec, queued on stream s.
func New(c *cuda.Context, pl *nufft.Plan, prec Precision, s cuda.Stream) (*Transform, error) {
	return NewBatch(c, pl, prec, 1, s)
}

// NewBatch is New for nv strength vectors transformed together over the
// same points and targets (a polarized sky's feed-pair products): the
// kernel weights are computed once for all of them, and each has its own
// grids.
func NewBatch(c *cuda.Context, pl *nufft.Plan, prec Precision, nv int, s cuda.Stream) (*Transform, error) {
	return NewBatchCompiled(c, pl, prec, nv, s, nil)
}

// Compiler compiles (or returns a compiled copy of) a CUDA program, as
// cuda.Context.Compile does: a caller's cache of modules.
type Compiler func(src cuda.Source, opts ...string) (*cuda.Module, error)

// NewBatchCompiled is NewBatch with its kernels compiled by compile (nil:
// by the context, the module the transform's own): a backend that keeps
// its modules between runs compiles nufft.cu once a shape, not once a
// run. A module from compile is the caller's; Close leaves it loaded.
func NewBatchCompiled(c *cuda.Context, pl *nufft.Plan, prec Precision, nv int, s cuda.Stream, compile Compiler) (*Transform, error) {
	if prec != Single && prec != Double {
		return nil, fmt.Errorf("nufftgpu: %v: want Single or Double", prec)
	}
	if nv < 1 || nv > maxVectors {
		return nil, fmt.Errorf("nufftgpu: %d strength vectors, want 1 to %d", nv, maxVectors)
	}
	t := &Transform{c: c, s: s, prec: prec, nv: nv, lay: pl.Layout(), compile: compile}
	if err := t.init(); err != nil {
		return nil, errors.Join(err, t.Close())
	}
	return t, nil
}

// init compiles the kernels, plans the FFT and uploads the layout.
func (t *Transform) init() error {
	var err error
	compile := t.compile
	if compile == nil {
		compile = t.c.Compile
	}
	if t.k, err = compileStages(compile, t.compile != nil, t.prec, t.lay.Dim, t.lay.W, t.nv); err != nil {
		return err
	}
	dims := t.lay.N2[:t.lay.Dim]
	if t.fft, err = t.c.NewFFT(dims, t.prec == Double, t.s); err != nil {
		return fmt.Errorf("nufftgpu: %w", err)
	}
	if err := t.uploadCoords(&t.pts, t.lay.P, t.lay.N, t.lay.Perm, t.lay.Pre); err != nil {
		return err
	}
	if err := t.uploadCoords(&t.tgt, t.lay.Q, t.lay.M, t.lay.QOrder, t.lay.Post); err != nil {
		return err
	}
	for d := range 3 {
		dc := t.lay.Deconv[d]
		if d >= t.lay.Dim {
			dc = []float64{1} // an inactive axis: one index, factor 1
		}
		if t.deconv[d], err = t.uploadReals(dc); err != nil {
			return err
		}
	}
	cb := 2 * t.prec.realBytes() * int64(t.nv)
	if t.grid, err = t.alloc(int64(t.outerPoints()) * cb); err != nil {
		return err
	}
	t.pad, err = t.alloc(int64(t.padPoints()) * cb)
	return err
}

func (t *Transform) outerPoints() int { return t.lay.NF[0] * t.lay.NF[1] * t.lay.NF[2] }
func (t *Transform) padPoints() int   { return t.lay.N2[0] * t.lay.N2[1] * t.lay.N2[2] }

// Vectors is the number of strength vectors an Execute transforms.
func (t *Transform) Vectors() int { return t.nv }

// Bytes is the device memory the transform holds (without ExecuteHost's
// staging buffers): the grids and the per-point and per-target arrays.
func (t *Transform) Bytes() int64 {
	r := t.prec.realBytes()
	grids := int64(t.outerPoints()+t.padPoints()) * 2 * r * int64(t.nv)
	per := int64(t.lay.Dim)*(4+r) + 4 + 2*r
	return grids + int64(t.lay.N+t.lay.M)*per
}

// release frees buffers alloc made before Close (grown coordinates).
func (t *Transform) release(ps ...cuda.DevicePtr) error {
	var errs []error
	for _, p := range ps {
		if p == 0 {
			continue
		}
		if i := slices.Index(t.owned, p); i >= 0 {
			t.owned = slices.Delete(t.owned, i, i+1)
			errs = append(errs, t.c.Free(p))
		}
	}
	return errors.Join(errs...)
}

// alloc allocates n bytes that Close frees.
func (t *Transform) alloc(n int64) (cuda.DevicePtr, error) {
	p, err := t.c.Alloc(max(n, 16))
	if err != nil {
		return 0, fmt.Errorf("nufftgpu: allocate %d bytes: %w", n, err)
	}
	t.owned = append(t.owned, p)
	return p, nil
}

// uploadReals allocates a device copy of v in the transform's precision.
func (t *Transform) uploadReals(v []float64) (cuda.DevicePtr, error) {
	p, err := t.alloc(int64(len(v)) * t.prec.realBytes())
	if err != nil {
		return 0, err
	}
	return p, t.putReals(p, v)
}

func toComplex64(v []complex128) []complex64 {
	f := make([]complex64, len(v))
	for i, x := range v {
		f[i] = complex64(x)
	}
	return f
}

// Close frees the device buffers, the FFT plan and the module.
func (t *Transform) Close() error {
	if t == nil {
		return nil
	}
	errs := []error{t.closeStages()}
	for _, p := range t.owned {
		errs = append(errs, t.c.Free(p))
	}
	t.owned = nil
	errs = append(errs, t.fft.Close())
	t.fft = nil
	if t.k != nil && t.compile == nil {
		errs = append(errs, t.k.mod.Unload())
	}
	t.k = nil
	return errors.Join(errs...)
}
