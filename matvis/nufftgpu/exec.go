package nufftgpu

import (
	"fmt"
	"math/cmplx"

	"github.com/gomatvis/gomatvis/cuda"
)

// StageTimes are the device times of one Execute's stages in
// milliseconds, from CUDA events (ExecuteTimed).
type StageTimes struct {
	Spread, Deconv, FFT, Interp float32
}

// Total is the sum of the stages.
func (st StageTimes) Total() float32 { return st.Spread + st.Deconv + st.FFT + st.Interp }

// Execute queues the transform of the strengths c (N complex values of the
// transform's precision per vector, in the caller's order of the points,
// vector v at v·N) into f (M per vector, in the caller's order of the
// targets, vector v at v·M). It returns once the work is queued; the
// caller synchronizes the stream.
func (t *Transform) Execute(c, f cuda.DevicePtr) error {
	return t.execute(c, f, nil, false)
}

// ExecuteInterleaved is Execute with each target's vectors together in f
// (vector v of target k at k·Vectors() + v: the layout of a visibility's
// feed pairs) that records afterSpread, when not 0, once the spread is
// queued (a caller timing the spread with its own stages).
func (t *Transform) ExecuteInterleaved(c, f cuda.DevicePtr, afterSpread cuda.Event) error {
	var ev []cuda.Event
	if afterSpread != 0 {
		ev = []cuda.Event{0, afterSpread, 0, 0, 0}
	}
	return t.execute(c, f, ev, true)
}

// ExecuteTimed is Execute that records an event between the stages,
// waits for the stream and returns each stage's device time.
func (t *Transform) ExecuteTimed(c, f cuda.DevicePtr) (StageTimes, error) {
	var ev [5]cuda.Event
	defer func() {
		for _, e := range ev {
			if e != 0 {
				_ = t.c.DestroyEvent(e)
			}
		}
	}()
	for i := range ev {
		var err error
		if ev[i], err = t.c.NewEvent(); err != nil {
			return StageTimes{}, fmt.Errorf("nufftgpu: %w", err)
		}
	}
	if err := t.execute(c, f, ev[:], false); err != nil {
		return StageTimes{}, err
	}
	if err := t.c.SyncEvent(ev[4]); err != nil {
		return StageTimes{}, fmt.Errorf("nufftgpu: %w", err)
	}
	var ms [4]float32
	for i := range ms {
		var err error
		if ms[i], err = t.c.Elapsed(ev[i], ev[i+1]); err != nil {
			return StageTimes{}, fmt.Errorf("nufftgpu: %w", err)
		}
	}
	return StageTimes{Spread: ms[0], Deconv: ms[1], FFT: ms[2], Interp: ms[3]}, nil
}

// execute queues the four stages, recording ev[i] (those not 0) before
// stage i and ev[4] after the last when ev is not nil; interleaved puts
// each target's vectors together in f.
func (t *Transform) execute(c, f cuda.DevicePtr, ev []cuda.Event, interleaved bool) error {
	l := &t.lay
	nv := int64(t.nv)
	p, q := t.pts, t.tgt
	if t.stale {
		return fmt.Errorf("nufftgpu: Execute: the %d points were placed under the point map of the plan before Retarget; Place them again", p.n)
	}
	if p.n == 0 { // no points: every result is zero
		for _, e := range ev {
			if e != 0 {
				if err := t.c.Record(e, t.s); err != nil {
					return fmt.Errorf("nufftgpu: %w", err)
				}
			}
		}
		return t.c.Memset8(f, 0, nv*int64(q.n)*2*t.prec.realBytes(), t.s)
	}
	vstride, tstride := outputStrides(interleaved, int64(q.n), nv)
	mark := func(i int) error {
		if ev == nil || ev[i] == 0 {
			return nil
		}
		return t.c.Record(ev[i], t.s)
	}
	cb := 2 * t.prec.realBytes()
	nf := [3]int32{int32(l.NF[0]), int32(l.NF[1]), int32(l.NF[2])}
	n2 := [3]int32{int32(l.N2[0]), int32(l.N2[1]), int32(l.N2[2])}
	steps := []func() error{
		func() error { return mark(0) },
		func() error { return t.c.Memset8(t.grid, 0, nv*int64(t.outerPoints())*cb, t.s) },
		func() error {
			return t.k.spreadPoints(t.s, int64(p.n), c, p.order, p.phase, p.first, p.off, l.Beta, t.grid, nf[0], nf[1], nf[2])
		},
		func() error { return mark(1) },
		// Only the nf modes of each axis are written: the rest of the
		// padded grid must be zero, and the in-place FFT overwrote it.
		func() error { return t.c.Memset8(t.pad, 0, nv*int64(t.padPoints())*cb, t.s) },
		func() error {
			return t.k.deconvolve(t.s, int64(t.outerPoints()), t.grid, t.deconv[0], t.deconv[1], t.deconv[2], t.pad,
				nf[0], nf[1], nf[2], n2[0], n2[1], n2[2])
		},
		func() error { return mark(2) },
		func() error { return t.ffts() },
		func() error { return mark(3) },
		func() error {
			return t.k.interpolate(t.s, int64(q.n), t.pad, q.first, q.off, q.phase, q.order, l.Beta, n2[0], n2[1], n2[2], vstride, tstride, f)
		},
		func() error { return mark(4) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("nufftgpu: %w", err)
		}
	}
	return nil
}

// ffts transforms each vector's padded grid in place.
func (t *Transform) ffts() error {
	step := int64(t.padPoints()) * 2 * t.prec.realBytes()
	for v := range int64(t.nv) {
		p := t.pad.Offset(v * step)
		if err := t.fft.Exec(p, p, t.lay.Sign); err != nil {
			return err
		}
	}
	return nil
}

// ExecuteHost is Execute from and to host memory (complex128 whatever the
// precision): it uploads c, runs the transform, waits and downloads f.
func (t *Transform) ExecuteHost(c, f []complex128) error {
	np, nq := t.pts.n, t.tgt.n
	if len(c) != t.nv*np || len(f) != t.nv*nq {
		return fmt.Errorf("nufftgpu: %d strengths and %d results, the transform has %d vectors of %d points and %d targets", len(c), len(f), t.nv, np, nq)
	}
	for j, v := range c {
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			return fmt.Errorf("nufftgpu: strength c[%d] = %v is not finite", j, v)
		}
	}
	cb := 2 * t.prec.realBytes() * int64(t.nv)
	var err error
	if t.in == 0 || t.inFor < np {
		if err := t.release(t.in, t.out); err != nil {
			return fmt.Errorf("nufftgpu: %w", err)
		}
		t.in, t.out = 0, 0
		if t.in, err = t.alloc(int64(np) * cb); err != nil {
			return err
		}
		t.inFor = np
		if t.out, err = t.alloc(int64(nq) * cb); err != nil {
			return err
		}
	}
	if t.prec == Double {
		err = cuda.Upload(t.c, t.in, c, t.s)
	} else {
		err = cuda.Upload(t.c, t.in, toComplex64(c), t.s)
	}
	if err != nil {
		return fmt.Errorf("nufftgpu: upload strengths: %w", err)
	}
	if err := t.Execute(t.in, t.out); err != nil {
		return err
	}
	return t.download(f)
}

// download waits for the stream and copies the results into f.
func (t *Transform) download(f []complex128) error {
	if t.prec == Double {
		return wrapErr("download results", cuda.Download(t.c, f, t.out, t.s))
	}
	f32 := make([]complex64, len(f))
	if err := cuda.Download(t.c, f32, t.out, t.s); err != nil {
		return wrapErr("download results", err)
	}
	for i, v := range f32 {
		f[i] = complex128(v)
	}
	return nil
}

func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("nufftgpu: %s: %w", what, err)
}

// outputStrides are the result layout's strides (nu_interp: vector v of
// target k at v·vstride + k·tstride) for m targets and nv vectors: one
// block of m per vector, or each target's nv vectors together.
func outputStrides(interleaved bool, m, nv int64) (vstride, tstride int64) {
	if interleaved {
		return 1, nv
	}
	return m, 1
}
