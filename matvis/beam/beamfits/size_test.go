package beamfits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/membudget"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestLoadSizedBeforeReading: a beamfits whose loading exceeds the budget
// is refused with the numbers before its data are read, and one that
// fits is loaded. The HERA beam is 2 635 200 bytes with a (2, 2, 1, 2, 2,
// 91, 180) float64 primary image (astropy): 262 080 pixels, so loading
// needs 2 635 200 + 262 080 × 16 = 6 828 480 B — over 6668 kB of
// MemAvailable (6 828 032 B), within 6669 kB (6 829 056 B).
func TestLoadSizedBeforeReading(t *testing.T) {
	path := sharedtest.HERABeam(t)
	cases := []struct {
		availKB int64
		wants   []string // none: loaded
	}{
		{6668, []string{"loading beamfits " + path, "needs 6.83 MB", "file data 2.64 MB", "decoded image 4.19 MB (262080 pixels × 16 B", "the limit is 6.83 MB (available memory)"}},
		{6669, nil},
	}
	for _, tc := range cases {
		proc := t.TempDir()
		if err := os.WriteFile(filepath.Join(proc, "meminfo"), []byte(fmt.Sprintf("MemAvailable: %d kB\n", tc.availKB)), 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := load(path, membudget.Machine{Proc: proc})
		if tc.wants == nil {
			if err != nil || g == nil {
				t.Errorf("MemAvailable %d kB: %v, want the beam loaded", tc.availKB, err)
			}
			continue
		}
		if !errors.Is(err, membudget.ErrTooLarge) {
			t.Fatalf("MemAvailable %d kB: %v, want ErrTooLarge", tc.availKB, err)
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("MemAvailable %d kB: %v lacks %q", tc.availKB, err, w)
			}
		}
	}
}
