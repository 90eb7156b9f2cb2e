package obsparam

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestReadRefusesNonRegular: the obsparam file itself and the telescope
// config and layout it names are refused when they are a FIFO, /dev/zero
// or a directory, at once and by name (readBounded stat-checked and then
// opened the path, which a FIFO put in its place would block).
func TestReadRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "obs.yaml", func(p string) error { _, err := Read(p); return err })
	for _, what := range []string{"telescope config file", "layout file"} {
		t.Run(what, func(t *testing.T) {
			inputtest.RefusesNonRegular(t, "x", func(p string) error { _, err := readBounded(p, what); return err })
		})
	}
}

// TestReadBoundedRegular checks readBounded's limit and its happy path
// after the change of its open.
func TestReadBoundedRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(p, []byte("freq: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := readBounded(p, "obsparam file")
	if err != nil || string(b) != "freq: {}\n" {
		t.Fatalf("readBounded = %q, %v", b, err)
	}
	if err := os.Truncate(p, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := readBounded(p, "obsparam file"); err == nil {
		t.Fatal("a file over MaxFileBytes was read")
	}
}
