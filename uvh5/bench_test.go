package uvh5

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// BenchmarkWriteStreaming writes visdata of about 128 MiB and 1 GiB
// (Nfreqs 256, Npols 4, 32 antennas: 528 baselines per time) one time
// (528 rows, 8.6 MB of visibilities) per WriteBlock, flags and nsamples
// defaulted. It reports throughput of visdata bytes (Create excluded: it
// writes the header, O(Nblts) like the Header the caller holds), the peak
// live heap (garbage included, sampled every 2 ms) above the heap after
// Create while the blocks are written and the file closed, and the bytes
// allocated per WriteBlock: neither grows with Nblts.
//
//	go test -run '^$' -bench WriteStreaming -benchtime 1x ./uvh5/
func BenchmarkWriteStreaming(b *testing.B) {
	for _, c := range []struct {
		name   string
		ntimes int
	}{{"128MiB", 16}, {"1GiB", 124}} {
		b.Run(c.name, func(b *testing.B) {
			h := testHeader(rand.New(rand.NewPCG(1, 2)), 32, c.ntimes, 256)
			row := h.Nfreqs() * h.Npols()
			nbls := h.Nbls()
			block := make([]complex128, nbls*row)
			for i := range block {
				block[i] = complex(float64(i), -float64(i))
			}
			b.SetBytes(int64(h.Nblts()) * int64(row) * 16)
			dir := b.TempDir()
			var peak, base, perBlock uint64
			for b.Loop() {
				b.StopTimer()
				w, err := Create(filepath.Join(dir, "bench.uvh5"), h)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				base = liveHeap()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				stop := sampleHeap(&peak)
				for t := range c.ntimes {
					if err := w.WriteBlock(t*nbls, block, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				stop()
				runtime.ReadMemStats(&after)
				perBlock = (after.TotalAlloc - before.TotalAlloc) / uint64(c.ntimes)
			}
			b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(base)/(1<<20), "base-heap-MiB")
			b.ReportMetric(float64(perBlock)/(1<<20), "alloc-MiB/block")
		})
	}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the largest live heap seen until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	*peak = liveHeap()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				*peak = max(*peak, liveHeap())
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// BenchmarkReadFile reads back a 128 MiB-visdata file written by Writer
// (header, visdata, flags, nsamples).
func BenchmarkReadFile(b *testing.B) {
	h := testHeader(rand.New(rand.NewPCG(1, 2)), 32, 16, 256)
	vis := make([]complex128, h.Nblts()*h.Nfreqs()*h.Npols())
	path := filepath.Join(b.TempDir(), "read.uvh5")
	if err := WriteFile(path, h, vis); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(vis)) * 16)
	for b.Loop() {
		f, err := ReadFile(path)
		if err != nil || len(f.Vis) != len(vis) {
			b.Fatal(err)
		}
	}
}
