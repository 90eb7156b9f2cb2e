package part

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCancelledReadsStop: with a cancelled context, a part's Data and
// Verify and a set's npy merge stop with context.Canceled, and the merge
// leaves nothing at its output or metadata (they read every byte before,
// whatever the interrupt).
func TestCancelledReadsStop(t *testing.T) {
	dir := t.TempDir()
	paths := writeParts(t, dir, grid(3, 7, 4), 3, hashA)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Data(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Data: %v, want context.Canceled", err)
	}
	if err := f.Verify(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("File.Verify: %v, want context.Canceled", err)
	}
	if _, err := Verify(ctx, paths[1]); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify: %v, want context.Canceled", err)
	}
	s, err := OpenSet(paths)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, meta := filepath.Join(dir, "m.npy"), filepath.Join(dir, "m.meta.json")
	if err := s.WriteNpy(ctx, out, meta); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteNpy: %v, want context.Canceled", err)
	}
	for _, p := range []string{out, meta} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a cancelled merge wrote %s", p)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(paths) {
		t.Errorf("%d entries after the cancelled merge, want the %d parts", len(ents), len(paths))
	}
	// Not cancelled, the same calls succeed (the wrapper passes reads on).
	if _, err := f.Data(context.Background()); err != nil {
		t.Errorf("Data: %v", err)
	}
	if err := s.WriteNpy(context.Background(), out, meta); err != nil {
		t.Errorf("WriteNpy: %v", err)
	}
}

// TestCancelledUVH5MergeStops: a UVH5 merge with a cancelled context
// stops with context.Canceled and leaves neither the output nor its
// temporary; not cancelled, the same set merges.
func TestCancelledUVH5MergeStops(t *testing.T) {
	dir := t.TempDir()
	paths, _ := benchParts(t, dir, benchLayout(4, 3, 5), 3, OutputUVH5)
	s, err := OpenSet(paths)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "m.uvh5")
	if err := s.WriteUVH5(ctx, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteUVH5: %v, want context.Canceled", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(paths) {
		t.Fatalf("%d entries after the cancelled merge, want the %d parts", len(ents), len(paths))
	}
	if err := s.WriteUVH5(context.Background(), out); err != nil {
		t.Fatalf("WriteUVH5: %v", err)
	}
}
