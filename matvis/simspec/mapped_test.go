package simspec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestParallelReadsGuarded: the cores that read a large array's pieces
// each read inside the guard (a mapped file's fault is caught only on the
// goroutine whose guard is running), and a piece whose guarded read
// failed — a file that shrank — is read again by the sequential reader,
// not taken half-read: on fresh random specs, a guard that refuses every
// read gives the very Spec the unguarded parse gives.
func TestParallelReadsGuarded(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for _, flat := range []bool{false, true} {
		doc := []byte(bigSpec(rng, 2000+rng.IntN(2000), flat, nil))
		var want Spec
		if err := parseSpecOn(doc, &want, 1, 0, unguarded); err != nil {
			t.Fatal(err)
		}
		var calls atomic.Int64
		counting := func(read func() error) error { calls.Add(1); return read() }
		var got Spec
		if err := parseSpecOn(doc, &got, 3, 1024, counting); err != nil {
			t.Fatal(err)
		}
		// ra_rad, dec_rad and flux_jy, each in 3 pieces.
		if n := calls.Load(); n < 9 {
			t.Errorf("flat %v: the guard ran %d times, want once per piece of each large array (9 or more)", flat, n)
		}
		if !reflect.DeepEqual(got.Sources, want.Sources) {
			t.Errorf("flat %v: the guarded parallel read differs from the sequential one", flat)
		}
		refusing := func(func() error) error { return errors.New("simulated fault") }
		var fallback Spec
		if err := parseSpecOn(doc, &fallback, 3, 1024, refusing); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fallback.Sources, want.Sources) {
			t.Errorf("flat %v: with every parallel read failing, the result differs from the sequential read", flat)
		}
	}
}

// TestReadFileMapped: ReadFile reads the spec's bytes where they are
// mapped, so what it allocates is the numbers (8 bytes for the ~20 that
// spell one) and not a copy of the file too (1.39× the file when it was
// read into a buffer); its Spec is Decode's of the same bytes.
func TestReadFileMapped(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	p := filepath.Join(t.TempDir(), "spec.json")
	doc := bigSpec(rng, 100000, false, nil)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := inputfile.Map(p, MaxSpecBytes)
	if err != nil {
		t.Fatal(err)
	}
	mapped := m.Mapped()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var s *Spec
	n := inputtest.Allocated(func() { s, err = ReadFile(p) })
	if err != nil {
		t.Fatal(err)
	}
	want, err := decode([]byte(doc), filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("ReadFile's Spec differs from decode's of the same bytes")
	}
	t.Logf("%d bytes allocated for a %d-byte spec (%.2f×), mapped %v", n, len(doc), float64(n)/float64(len(doc)), mapped)
	if mapped && float64(n) > 0.7*float64(len(doc)) {
		t.Errorf("%d bytes allocated for a mapped %d-byte spec, want at most 0.7× (its numbers, not a copy of its bytes)", n, len(doc))
	}
}
