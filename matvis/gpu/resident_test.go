package gpu

import "testing"

// TestBufferPool: a kept buffer is taken back only at its own size, last
// kept first, the idle bytes follow, and trim frees every one left.
func TestBufferPool(t *testing.T) {
	var p bufferPool[int]
	if _, ok := p.take(8); ok {
		t.Fatal("an empty pool gave a buffer")
	}
	p.keep(1, 8)
	p.keep(2, 8)
	p.keep(3, 16)
	if p.idle != 32 {
		t.Fatalf("idle %d bytes, want 32", p.idle)
	}
	if b, ok := p.take(8); !ok || b != 2 {
		t.Fatalf("take(8) = %d, %v; want 2, true", b, ok)
	}
	if _, ok := p.take(12); ok {
		t.Fatal("take(12) gave a buffer of another size")
	}
	if p.idle != 24 {
		t.Fatalf("idle %d bytes after a take, want 24", p.idle)
	}
	var freed []int
	p.trim(func(b int) { freed = append(freed, b) })
	if len(freed) != 2 || p.idle != 0 {
		t.Fatalf("trim freed %v, idle %d; want buffers 1 and 3, idle 0", freed, p.idle)
	}
	if _, ok := p.take(16); ok {
		t.Fatal("a trimmed pool gave a buffer")
	}
}
