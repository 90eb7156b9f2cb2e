package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/npy"
)

// TestReadTopoRefusesNonUnitVectors: --topo vectors used to be accepted
// whatever their length, scaling every source's beam and fringe lookups.
func TestReadTopoRefusesNonUnitVectors(t *testing.T) {
	dir := t.TempDir()
	// Two times, three sources, all pointing at the zenith.
	unit := func() []float64 {
		d := make([]float64, 2*3*3)
		for ti := 0; ti < 2; ti++ {
			for s := 0; s < 3; s++ {
				d[ti*9+2*3+s] = 1
			}
		}
		return d
	}
	cases := []struct {
		name string
		edit func(d []float64) // d is (2, 3, 3): [t][component][source]
		want string            // "" when accepted
	}{
		{"unit", func([]float64) {}, ""},
		{"float32 rounding", func(d []float64) { d[9+6+1] = float64(float32(1 + 1e-7)) }, ""},
		{"scaled", func(d []float64) { d[9+6+1] = 2 }, "time 1, source 1: |v| = 2"},
		{"slightly off", func(d []float64) { d[6] = 1 + 1e-5 }, "time 0, source 0"},
		{"zero", func(d []float64) { d[9+6+2] = 0 }, "time 1, source 2: |v| = 0"},
		{"nan", func(d []float64) { d[0] = math.NaN() }, "finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := unit()
			c.edit(d)
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".npy")
			if err := npy.WriteFileAtomic(p, []int{2, 3, 3}, d); err != nil {
				t.Fatal(err)
			}
			_, err := readTopo(p)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p)):
				t.Errorf("error %v, want one naming %s and saying %q", err, p, c.want)
			}
		})
	}
}

// TestReadTopoAcceptsTopoOutput: what `gomatvis topo` writes must pass the
// unit-length check.
func TestReadTopoAcceptsTopoOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "topo.npy")
	if code, _, stderr := runCLI(t, "topo", "example", "-o", out); code != 0 {
		t.Fatalf("gomatvis topo: exit %d: %s", code, stderr)
	}
	if _, err := readTopo(out); err != nil {
		t.Fatal(err)
	}
}
