package npy

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"runtime"
	"testing"
)

// TestWriteStreams checks that Write encodes the data in bounded blocks:
// writing 32 MB allocates far less than the data (it used to copy them
// whole, doubling a large output's memory), and the bytes are those of
// encoding/binary's little-endian encoding across block boundaries.
func TestWriteStreams(t *testing.T) {
	n := 2*writeBlock/16 + 3 // three blocks, the last one short
	c128 := make([]complex128, n)
	for i := range c128 {
		c128[i] = complex(float64(i), -float64(i)/3)
	}
	c64 := make([]complex64, n)
	f32 := make([]float32, n)
	for i := range c64 {
		c64[i] = complex64(c128[i])
		f32[i] = float32(i) * 1.5
	}
	for _, data := range []any{c128, c64, f32, []float64{math.Inf(-1), 0, math.NaN()}, []int64{-1, math.MaxInt64}} {
		var got bytes.Buffer
		if err := Write(&got, []int{lenOf(data)}, data); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := binary.Write(&want, binary.LittleEndian, data); err != nil {
			t.Fatal(err)
		}
		if body := got.Bytes()[got.Len()-want.Len():]; !bytes.Equal(body, want.Bytes()) {
			t.Fatalf("%T: data bytes differ from encoding/binary's", data)
		}
	}

	big := make([]complex128, 2<<20) // 32 MB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := Write(io.Discard, []int{len(big)}, big); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*writeBlock {
		t.Fatalf("writing %d MB allocated %.1f MB, want at most %d MB", len(big)*16>>20, float64(alloc)/(1<<20), 2*writeBlock>>20)
	}
}

func lenOf(data any) int {
	switch d := data.(type) {
	case []complex128:
		return len(d)
	case []complex64:
		return len(d)
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []int64:
		return len(d)
	}
	return -1
}
