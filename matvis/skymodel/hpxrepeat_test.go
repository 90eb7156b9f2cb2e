package skymodel

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// hpxIndsPatched is testdata/skyh5/hpx_ring_K_full.skyh5 (nside 4, 25
// pixels) with its hpx_inds dataset edited by edit, written to a fresh
// file. The indices are found in the file as the int64 sequence the
// reader's component names spell.
func hpxIndsPatched(t *testing.T, edit func(inds []int64)) string {
	t.Helper()
	src := filepath.Join("testdata", "skyh5", "hpx_ring_K_full.skyh5")
	sky, err := ReadSkyH5File(src)
	if err != nil {
		t.Fatal(err)
	}
	var inds []int64
	for _, name := range sky.Names() {
		p, err := strconv.ParseInt(name[strings.LastIndexByte(name, '_')+1:], 10, 64)
		if err != nil {
			t.Fatalf("component name %q", name)
		}
		inds = append(inds, p)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	old := binary.LittleEndian.AppendUint64(nil, 0)[:0]
	for _, p := range inds {
		old = binary.LittleEndian.AppendUint64(old, uint64(p))
	}
	at := bytes.Index(data, old)
	if at < 0 || bytes.Index(data[at+1:], old) >= 0 {
		t.Fatalf("hpx_inds %v not found once in %s", inds, src)
	}
	edit(inds)
	for i, p := range inds {
		binary.LittleEndian.PutUint64(data[at+8*i:], uint64(p))
	}
	path := filepath.Join(t.TempDir(), "patched.skyh5")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSkyH5RepeatedPixel (issue 41 item 4): a HEALPix SkyH5 whose
// hpx_inds holds a pixel twice (its flux counted twice, another pixel
// missing) is refused naming both positions and the pixel, as is an
// index of 12·nside² or more; the unedited file and a permutation of its
// pixels are read.
func TestSkyH5RepeatedPixel(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(inds []int64)
		want []string // nil: read
	}{
		{"unedited", func([]int64) {}, nil},
		{"permuted", func(in []int64) { in[0], in[24] = in[24], in[0] }, nil},
		{"element 7 repeats 3", func(in []int64) { in[7] = in[3] }, []string{"/Header/hpx_inds", "element 7 repeats element 3", "each pixel must appear once"}},
		{"last repeats first", func(in []int64) { in[24] = in[0] }, []string{"element 24 repeats element 0"}},
		{"index 12·nside²", func(in []int64) { in[24] = 192 }, []string{"/Header/hpx_inds", "element 24: invalid pixel index for nside 4"}},
		{"negative index", func(in []int64) { in[5] = -1 }, []string{"element 5: invalid pixel index"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSkyH5File(hpxIndsPatched(t, c.edit))
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != nil && err == nil:
				t.Fatal("read")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestRepeatedPixelTwin: repeatedPixel (in-place, bitmap and sorted-copy
// paths) agrees with the obvious quadratic search on fresh random index
// lists, with and without a repeat, sorted and not: whether there is a
// repeat, and that the positions named are a repeated pixel's first two.
func TestRepeatedPixelTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	slow := func(inds []float64) (int, int, bool) {
		for j := range inds {
			for i := range j {
				if inds[i] == inds[j] {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	for trial := range 2000 {
		n := 1 + rng.IntN(40)
		npix := int64(n + rng.IntN(3000)) // below and above the bitmap's 64·n
		inds := make([]float64, n)
		for k, p := range rng.Perm(int(npix))[:n] {
			inds[k] = float64(p)
		}
		if rng.IntN(3) == 0 {
			slices.Sort(inds)
		}
		if n > 1 && rng.IntN(2) == 0 {
			inds[rng.IntN(n)] = inds[rng.IntN(n)]
		}
		wi, wj, wok := slow(inds)
		gi, gj, gok := repeatedPixel(inds, npix)
		bad := gok != wok
		if wok && !bad { // any repeat will do, named by its first two positions
			bad = inds[gi] != inds[gj] || gi != firstOf(inds, inds[gi]) || gj != gi+1+firstOf(inds[gi+1:], inds[gi])
		}
		if bad {
			t.Fatalf("trial %d: %v (npix %d): repeatedPixel = %d, %d, %v; the quadratic search %d, %d, %v", trial, inds, npix, gi, gj, gok, wi, wj, wok)
		}
	}
}

func firstOf(v []float64, x float64) int {
	for i, y := range v {
		if y == x {
			return i
		}
	}
	return -1
}
