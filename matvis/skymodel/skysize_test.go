package skymodel

import (
	"errors"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/membudget"
)

// TestSkyH5SizedBeforeReading: a SkyH5 whose sky (sized from /Header)
// exceeds the budget is refused with the numbers; one that fits is read.
// good_point.skyh5 has 3 spectral-index components of one channel and
// names of 1 B: stokes 4·1·3·8 = 96 B, positions 48 B, names 3·17 = 51 B,
// spectra 48 B, and as much again for the reading: 486 B.
func TestSkyH5SizedBeforeReading(t *testing.T) {
	const path = "testdata/skyh5/good_point.skyh5"
	cases := []struct {
		maxMemory int64
		wants     []string // none: read
	}{
		{485, []string{path, "the sky (3 components × 1 channels, from /Header) needs 486 B", "stokes 96 B (4 × 1 channels × 3 components × 8 B)", "names 51 B", "the limit is 485 B (max_memory)", "--max-memory"}},
		{486, nil},
		{1 << 20, nil},
	}
	for _, tc := range cases {
		sky, err := ReadFileOptions(path, ReadOptions{MaxMemory: tc.maxMemory})
		if tc.wants == nil {
			if err != nil || len(sky.RA()) != 3 {
				t.Errorf("max_memory %d: %v, want the 3-component sky read", tc.maxMemory, err)
			}
			continue
		}
		if !errors.Is(err, membudget.ErrTooLarge) {
			t.Fatalf("max_memory %d: %v, want ErrTooLarge", tc.maxMemory, err)
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("max_memory %d: %v lacks %q", tc.maxMemory, err, w)
			}
		}
	}
}

// TestSkyTermsSaturate: a header declaring an absurd shape sizes to the
// largest int64 instead of wrapping around to a small number.
func TestSkyTermsSaturate(t *testing.T) {
	hd := skyh5Header{n: 1 << 40, nf: 1 << 40}
	total := int64(0)
	for _, term := range skyTerms(hd, 1) {
		total = membudget.Add(total, term.Bytes)
	}
	if total <= 0 || total < 1<<62 {
		t.Errorf("%d bytes for 2⁴⁰ components × 2⁴⁰ channels, want a saturated size", total)
	}
}
