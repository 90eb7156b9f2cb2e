package nufftgpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// Targets are a plan's targets made ready for the device on the host —
// the coordinates split into first indices and offsets, the order, the
// post-phases and the kernel corrections, in the transform's precision,
// as the bytes the device buffers take — so that a caller can make the
// next channel's in another goroutine while the device works, and
// RetargetTo only copies them.
type Targets struct {
	lay  nufft.Layout
	prec Precision
	buf  []byte
	// parts are where buf's pieces end, in the order of RetargetTo's
	// device buffers: first, off, order, post, then each active axis's
	// correction.
	parts []int
}

// NewTargets prepares plan pl's targets for a transform of precision
// prec. It touches no device, and any number may be made at once.
func NewTargets(pl *nufft.Plan, prec Precision) (*Targets, error) {
	if prec != Single && prec != Double {
		return nil, fmt.Errorf("nufftgpu: %v: want Single or Double", prec)
	}
	l := pl.Layout()
	if l.PrePhased {
		return nil, fmt.Errorf("nufftgpu: targets: the plan's targets are not centred at 0 (plan with nufft.Options.Real)")
	}
	if len(l.QOrder) != l.M || len(l.Post) != l.M {
		return nil, fmt.Errorf("nufftgpu: %d targets with %d indices and %d phases: the plan's layout is incomplete", l.M, len(l.QOrder), len(l.Post))
	}
	tg := &Targets{lay: l, prec: prec}
	first, off := splitCoords(l.Q, l.Dim, l.M, l.W)
	b := make([]byte, 0, targetBytes(l, prec))
	mark := func() { tg.parts = append(tg.parts, len(b)) }
	for _, v := range first {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	mark()
	b = appendReals(b, off, prec)
	mark()
	for _, v := range l.QOrder {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	mark()
	for _, z := range l.Post {
		b = appendReals(b, []float64{real(z), imag(z)}, prec)
	}
	mark()
	for d := range l.Dim {
		b = appendReals(b, l.Deconv[d], prec)
		mark()
	}
	tg.buf = b
	return tg, nil
}

// Bytes is the host memory the targets hold.
func (tg *Targets) Bytes() int64 { return int64(len(tg.buf)) }

// targetBytes is the size of NewTargets' buffer.
func targetBytes(l nufft.Layout, prec Precision) int {
	r := int(prec.realBytes())
	n := l.Dim*l.M*(4+r) + l.M*(4+2*r)
	for d := range l.Dim {
		n += len(l.Deconv[d]) * r
	}
	return n
}

// appendReals appends v to b in precision prec, little-endian (the byte
// order of CUDA's hosts and devices).
func appendReals(b []byte, v []float64, prec Precision) []byte {
	for _, x := range v {
		if prec == Single {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
		} else {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// stage is pinned host memory that one RetargetTo's copies read from,
// free again once its event has passed.
type stage struct {
	buf  *cuda.HostBuffer
	done cuda.Event
	used bool // done was recorded
}

// RetargetTo makes the transform's targets, phases and corrections tg's,
// whose grids, kernel, dimension and precision must be the transform's
// (a lower channel planned on the highest channel's grids:
// nufft.Options.MinGrid). The copies are queued on the transform's
// stream from pinned memory of its own (two stages, each reused once its
// copies are done), so the host does not wait for the work queued
// before: that work reads the old targets, what is queued after the new.
// The point map (nufft.Layout.PointScale, PointShift) depends on the
// targets' extent, so points placed before stay only where tg's map is
// the transform's; otherwise Execute refuses until they are placed again
// (Place or SetPoints).
func (t *Transform) RetargetTo(tg *Targets) error {
	l := tg.lay
	if l.Dim != t.lay.Dim || l.W != t.lay.W || l.Beta != t.lay.Beta || l.NF != t.lay.NF || l.N2 != t.lay.N2 || l.Sign != t.lay.Sign || tg.prec != t.prec {
		return fmt.Errorf("nufftgpu: Retarget: targets of %d-D grid %v, kernel %d (β %g), sign %+d, %v; the transform's is %d-D %v, %d (β %g), %+d, %v",
			l.Dim, l.NF, l.W, l.Beta, l.Sign, tg.prec, t.lay.Dim, t.lay.NF, t.lay.W, t.lay.Beta, t.lay.Sign, t.prec)
	}
	if err := t.reserveCoords(&t.tgt, l.Dim, l.M, t.prec.realBytes()); err != nil {
		return err
	}
	st, err := t.freeStage(int64(len(tg.buf)))
	if err != nil {
		return err
	}
	copy(cuda.HostSlice[byte](st.buf), tg.buf)
	dst := []cuda.DevicePtr{t.tgt.first, t.tgt.off, t.tgt.order, t.tgt.phase, t.deconv[0], t.deconv[1], t.deconv[2]}
	from := 0
	for i, to := range tg.parts {
		if err := t.c.CopyHtoD(dst[i], unsafe.Add(st.buf.Ptr(), from), int64(to-from), t.s); err != nil {
			return fmt.Errorf("nufftgpu: Retarget: %w", err)
		}
		from = to
	}
	if err := t.c.Record(st.done, t.s); err != nil {
		return fmt.Errorf("nufftgpu: Retarget: %w", err)
	}
	st.used = true
	if l.PointScale != t.lay.PointScale || l.PointShift != t.lay.PointShift {
		t.stale = t.stale || t.pts.n > 0
	}
	t.lay, t.tgt.n = l, l.M
	return nil
}

// freeStage is the next of the two stages, once the copies that last
// read it are done, holding at least n bytes.
func (t *Transform) freeStage(n int64) (*stage, error) {
	st := &t.stages[t.nextStage]
	t.nextStage = 1 - t.nextStage
	if st.used {
		if err := t.c.SyncEvent(st.done); err != nil {
			return nil, fmt.Errorf("nufftgpu: Retarget: %w", err)
		}
	}
	if st.done == 0 {
		var err error
		if st.done, err = t.c.NewEvent(); err != nil {
			return nil, fmt.Errorf("nufftgpu: Retarget: %w", err)
		}
	}
	if st.buf == nil || st.buf.Len() < n {
		if err := t.c.FreeHost(st.buf); err != nil {
			return nil, fmt.Errorf("nufftgpu: Retarget: %w", err)
		}
		var err error
		if st.buf, err = t.c.AllocHost(n); err != nil {
			return nil, fmt.Errorf("nufftgpu: Retarget: %w", err)
		}
	}
	return st, nil
}

// closeStages waits for the stages' copies and frees them.
func (t *Transform) closeStages() error {
	var errs []error
	for i := range t.stages {
		st := &t.stages[i]
		if st.used {
			errs = append(errs, t.c.SyncEvent(st.done))
		}
		if st.done != 0 {
			errs = append(errs, t.c.DestroyEvent(st.done))
		}
		errs = append(errs, t.c.FreeHost(st.buf))
		*st = stage{}
	}
	return errors.Join(errs...)
}
