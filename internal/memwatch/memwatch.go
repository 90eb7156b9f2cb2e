// Package memwatch measures the peak Go heap while a piece of work runs, by
// sampling runtime/metrics on a ticker. Go keeps no high-water mark of its
// own heap, so sampling is the only way to see a peak; runtime/metrics is
// read without stopping the world (unlike runtime.ReadMemStats), so the
// sampler barely disturbs the work it watches.
package memwatch

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is live plus not-yet-swept heap objects, the closest metric to
// "bytes the program holds on the heap".
const heapObjects = "/memory/classes/heap/objects:bytes"

// Watch samples the heap until Stop.
type Watch struct {
	base     uint64
	peak     uint64
	stop     chan struct{}
	done     sync.WaitGroup
	interval time.Duration
}

// HeapBytes reads the current heap object bytes.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Start runs a garbage collection (so the baseline holds live data only),
// records the baseline and samples every interval (0: 200 µs).
func Start(interval time.Duration) *Watch {
	if interval <= 0 {
		interval = 200 * time.Microsecond
	}
	runtime.GC()
	w := &Watch{base: HeapBytes(), stop: make(chan struct{}), interval: interval}
	w.peak = w.base
	w.done.Add(1)
	go w.loop()
	return w
}

func (w *Watch) loop() {
	defer w.done.Done()
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.peak = max(w.peak, HeapBytes())
		}
	}
}

// Stop ends sampling and returns the baseline and the peak heap bytes seen.
func (w *Watch) Stop() (base, peak uint64) {
	close(w.stop)
	w.done.Wait()
	w.peak = max(w.peak, HeapBytes())
	return w.base, w.peak
}
