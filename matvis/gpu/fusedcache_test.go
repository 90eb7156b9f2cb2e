package gpu

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFusedCacheRoundTrip: a decision written is read back under its key
// only; a missing, empty or corrupt file, or no path, reads as no
// decision; a second key keeps the first.
func TestFusedCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "fused-choices.json")
	if _, ok := readFusedCache(path, "a"); ok {
		t.Fatal("a decision read from a file that does not exist")
	}
	writeFusedCache(path, "a", fusedDecision{fused: true, why: "measured: fused 1 ms"})
	writeFusedCache(path, "b", fusedDecision{fused: false, why: "measured: fused 3 ms"})
	for _, c := range []struct {
		key   string
		ok    bool
		fused bool
	}{{"a", true, true}, {"b", true, false}, {"c", false, false}} {
		d, ok := readFusedCache(path, c.key)
		if ok != c.ok || d.fused != c.fused || (ok && d.why == "") {
			t.Errorf("key %q: %+v, %v; want fused %v, found %v", c.key, d, ok, c.fused, c.ok)
		}
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := readFusedCache(path, "a"); ok {
		t.Error("a decision read from a corrupt file")
	}
	if _, ok := readFusedCache("", "a"); ok {
		t.Error("a decision read with no cache path")
	}
	writeFusedCache("", "a", fusedDecision{fused: true, why: "x"}) // no path: nothing written, no panic
}
