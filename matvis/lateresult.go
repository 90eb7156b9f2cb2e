package matvis

import (
	"fmt"
	"slices"
)

// A LateResult is a Result whose visibility storage is allocated in the
// background while a backend sets up and runs its first integrations.
//
// Why: a large result (2 GB at prodslice, 64 channels × 16 times) costs
// its allocation on the critical path when the Go heap has any freed
// span inside it — the runtime then zeroes the whole object at once, on
// one thread, faulting in every page (2.5–2.8 s measured on the H200's
// host, bench/RESULTS.md), where a fresh mapping would fault page by page
// as the integrations are written. A LateResult takes those seconds
// beside the device's work: integrations finished before the storage
// exists are held in their own small buffers and copied in once it does.
//
// A LateResult is used by one goroutine (the backend's); only the
// allocation runs on another.
type LateResult struct {
	res   *Result
	ready chan lateStorage // the allocation, sent once
	got   bool             // res holds the storage
	held  []heldIntegration
	// maxHeld bounds len(held): past it a Put waits for the storage, so
	// that holding never costs more memory than a quarter of the result
	// (or 512 MiB) beside it.
	maxHeld int
	// perIntegration is the number of values one integration has.
	perIntegration int
}

type lateStorage struct {
	vis64  []complex64
	vis128 []complex128
}

// heldIntegration is an integration finished before the storage existed.
type heldIntegration struct {
	f, t   int
	vis64  []complex64
	vis128 []complex128
}

// flushPerPut bounds how many held integrations one Put copies into the
// storage once it exists, so that the copies spread over the following
// integrations instead of stalling one of them.
const flushPerPut = 2

// NewLateResult starts the allocation of sim's output in the background
// when background is true (else it allocates now, as NewResult); Result
// is usable at once for everything but its visibilities, which Put fills
// and Wait completes. A simulation made by SubsetInto already has its
// storage.
func NewLateResult(sim *Simulation, background bool) *LateResult {
	l := &LateResult{perIntegration: integrationSize(sim.OutputShape())}
	if !background || sim.out != nil {
		l.res, l.got = NewResult(sim), true
		return l
	}
	shape := sim.OutputShape()
	l.res = &Result{Shape: shape, Precision: sim.Options.Precision, Done: make([]bool, sim.NFreq()*sim.NTime())}
	n := integrationSize(shape) * shape[0] * shape[1]
	perBytes := int64(l.perIntegration) * int64(8*sim.Options.Precision)
	l.maxHeld = int(max(1, min(sim.OutputBytes()/4, 512<<20)/max(perBytes, 1)))
	l.ready = make(chan lateStorage, 1)
	go func(p int) {
		if p == 1 {
			l.ready <- lateStorage{vis64: make([]complex64, n)}
		} else {
			l.ready <- lateStorage{vis128: make([]complex128, n)}
		}
	}(l.res.Precision)
	return l
}

// integrationSize is the number of values per (frequency, time).
func integrationSize(shape []int) int {
	n := 1
	for _, d := range shape[2:] {
		n *= d
	}
	return n
}

// Result is the result being filled: its Stats, Plan and Done may be set
// at any time; its visibilities are complete only after Wait.
func (l *LateResult) Result() *Result { return l.res }

// Put64 stores integration (f, t) of a precision-1 result, copying v
// (the caller may reuse it at once), and checks that it is finite.
func (l *LateResult) Put64(f, t int, v []complex64) error {
	return put(l, f, t, v, 1, func() []complex64 { return l.res.Vis64 },
		func(h *heldIntegration) { h.vis64 = slices.Clone(v) })
}

// Put128 is Put64 for a precision-2 result.
func (l *LateResult) Put128(f, t int, v []complex128) error {
	return put(l, f, t, v, 2, func() []complex128 { return l.res.Vis128 },
		func(h *heldIntegration) { h.vis128 = slices.Clone(v) })
}

// put is Put64 and Put128: storage is the result's slice of v's type,
// hold keeps a copy of v in a held integration.
func put[T complex64 | complex128](l *LateResult, f, t int, v []T, precision int, storage func() []T, hold func(*heldIntegration)) error {
	if err := l.checkPut(f, t, len(v), precision); err != nil {
		return err
	}
	if bad := firstNonFinite(v); bad >= 0 {
		return l.res.nonFinite(f, t, bad, complex128(v[bad]))
	}
	if len(l.held) >= l.maxHeld {
		l.Wait()
	}
	if l.poll() {
		copy(storage()[l.offset(f, t):], v)
	} else {
		h := heldIntegration{f: f, t: t}
		hold(&h)
		l.held = append(l.held, h)
	}
	l.flush(flushPerPut)
	return nil
}

// checkPut refuses an integration outside the grid or of the wrong size
// or precision: a backend's bug, reported instead of a corrupt result.
func (l *LateResult) checkPut(f, t, n, precision int) error {
	r := l.res
	switch {
	case f < 0 || f >= r.Shape[0] || t < 0 || t >= r.Shape[1]:
		return fmt.Errorf("result: integration (freq %d, time %d) outside the %d × %d grid", f, t, r.Shape[0], r.Shape[1])
	case n != l.perIntegration:
		return fmt.Errorf("result: integration (freq %d, time %d) has %d values, want %d", f, t, n, l.perIntegration)
	case precision != r.Precision:
		return fmt.Errorf("result: precision-%d values for a precision-%d result", precision, r.Precision)
	}
	return nil
}

func (l *LateResult) offset(f, t int) int {
	return (f*l.res.Shape[1] + t) * l.perIntegration
}

// poll reports whether the storage is in res, taking it if the
// allocation has finished.
func (l *LateResult) poll() bool {
	if l.got {
		return true
	}
	select {
	case s := <-l.ready:
		l.take(s)
		return true
	default:
		return false
	}
}

func (l *LateResult) take(s lateStorage) {
	l.res.Vis64, l.res.Vis128 = s.vis64, s.vis128
	l.got = true
}

// flush copies up to n held integrations (all when n < 0) into the
// storage, once it exists.
func (l *LateResult) flush(n int) {
	if !l.got {
		return
	}
	for len(l.held) > 0 && n != 0 {
		h := l.held[len(l.held)-1]
		if h.vis64 != nil {
			copy(l.res.Vis64[l.offset(h.f, h.t):], h.vis64)
		} else {
			copy(l.res.Vis128[l.offset(h.f, h.t):], h.vis128)
		}
		l.held[len(l.held)-1] = heldIntegration{}
		l.held = l.held[:len(l.held)-1]
		n--
	}
}

// Wait waits for the storage, copies every held integration into it and
// returns the result. Integrations never Put stay zero.
func (l *LateResult) Wait() *Result {
	if !l.got {
		l.take(<-l.ready)
	}
	l.flush(-1)
	l.held = nil
	return l.res
}

// Held is the number of integrations waiting for the storage (for tests
// and statistics).
func (l *LateResult) Held() int { return len(l.held) }
