package choicecache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOversizedValidFileMisses: a file past maxBytes is a miss even when
// it parses — the size bound, not the parse, refuses it (the oversized
// file of TestGetPut is zeros, which the parse alone would refuse).
func TestOversizedValidFileMisses(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	// {"k": "v"} padded with spaces to one byte over the bound: valid JSON.
	body := `{"k": "v"` + strings.Repeat(" ", maxBytes) + "}"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := Get[string](p, "k"); ok {
		t.Errorf("a valid %d-byte file (bound %d) hit with %q", len(body), maxBytes, v)
	}
	small := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(small, []byte(`{"k": "v"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := Get[string](small, "k"); !ok || v != "v" {
		t.Errorf("the same entry in a small file: %q %v, want v true", v, ok)
	}
}

// TestPathIsUnderGomatvis: Path names a file in the gomatvis folder of
// the user's cache directory ($XDG_CACHE_HOME on Linux, by os.UserCacheDir's
// contract), so that gomatvis's caches do not mix with other programs'.
func TestPathIsUnderGomatvis(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("SKIPPED, not checked: no user cache directory here: %v", err)
	}
	if got, want := Path("x.json"), filepath.Join(base, "gomatvis", "x.json"); got != want {
		t.Errorf("Path(x.json) = %q, want %q", got, want)
	}
}
