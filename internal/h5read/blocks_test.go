package h5read

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/h5write"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// The datasets of TestBlocksMatchRaw: each larger than blockBytes, so
// that contiguous reads take several blocks.
const blockTestN = 3*blockBytes/8 + 12345

// writeBlockTest writes random datasets of every type the block readers
// decode, with h5write, and returns the file's path.
func writeBlockTest(t *testing.T) string {
	t.Helper()
	rng := sharedtest.RNG(t, 1)
	n := blockTestN
	f64, f32 := make([]float64, n), make([]float32, n)
	i32, i64, u64 := make([]int32, n), make([]int64, n), make([]uint64, n)
	names, short := make([]string, n), make([]string, n)
	for i := range n {
		f64[i] = math.Float64frombits(rng.Uint64())
		f32[i] = math.Float32frombits(rng.Uint32())
		i32[i], i64[i], u64[i] = int32(rng.Uint32()), int64(rng.Uint64()), rng.Uint64()>>1
		names[i] = fmt.Sprintf("src%d%s", i, strings.Repeat("x", rng.IntN(9)))
		short[i] = strings.Repeat("ab", rng.IntN(4)) // 0 to 6 bytes: width 6, not dividing a block
	}
	path := filepath.Join(t.TempDir(), "blocks.h5")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := h5write.Create(fh)
	if err != nil {
		t.Fatal(err)
	}
	g := f.Root()
	for name, data := range map[string]any{"f64": f64, "f32": f32, "i32": i32, "i64": i64, "u64": u64} {
		if err := g.Array(name, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Strings("names", names); err != nil {
		t.Fatal(err)
	}
	if err := g.Strings("short", short); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawFloats, rawInts and rawStrings decode Raw()'s whole copy one element
// at a time: the readers' twin.
func rawFloats(t *testing.T, d *Dataset) []float64 {
	b, err := d.Raw()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, d.n)
	for i := range out {
		out[i] = decodeFloat(b[i*d.Type.Size:], d.Type)
	}
	return out
}

func rawInts(t *testing.T, d *Dataset) []int64 {
	b, err := d.Raw()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, d.n)
	for i := range out {
		out[i] = decodeInt(b[i*d.Type.Size:(i+1)*d.Type.Size], d.Type)
	}
	return out
}

func rawStrings(t *testing.T, d *Dataset) []string {
	b, err := d.Raw()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, d.n)
	for i := range out {
		s := string(b[i*d.Type.Size : (i+1)*d.Type.Size])
		if k := strings.IndexByte(s, 0); k >= 0 {
			s = s[:k]
		}
		out[i] = s
	}
	return out
}

// TestBlocksMatchRaw: the block-streamed readers give what decoding the
// whole raw copy gives, for datasets of several blocks (random data).
func TestBlocksMatchRaw(t *testing.T) {
	f := open(t, writeBlockTest(t))
	ds := func(name string) *Dataset {
		d, err := f.Dataset("/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if d.class != layoutContiguous || int64(d.Type.Size)*d.n <= blockBytes {
			t.Fatalf("%s: layout %d, %d bytes: not a multi-block contiguous dataset", name, d.class, int64(d.Type.Size)*d.n)
		}
		return d
	}
	for _, name := range []string{"f64", "f32"} {
		d := ds(name)
		got, err := d.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		want := rawFloats(t, d)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s[%d] = %v, raw %v", name, i, got[i], want[i])
			}
		}
	}
	for _, name := range []string{"i32", "i64", "u64"} {
		d := ds(name)
		got, err := d.Int64s()
		if err != nil {
			t.Fatal(err)
		}
		want := rawInts(t, d)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s[%d] = %v, raw %v", name, i, got[i], want[i])
			}
		}
	}
	for _, name := range []string{"names", "short"} {
		d := ds(name)
		got, err := d.Strings()
		if err != nil {
			t.Fatal(err)
		}
		want := rawStrings(t, d)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s[%d] = %q, raw %q", name, i, got[i], want[i])
			}
		}
	}
}

// TestBlocksTruncated: a dataset whose storage runs past the end of the
// file is refused before anything is decoded or allocated for it.
func TestBlocksTruncated(t *testing.T) {
	path := writeBlockTest(t)
	f := open(t, path)
	d, err := f.Dataset("/f64")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f.size = int64(d.addr) + 8*d.n - 1 // as if the file ended one byte early
	if st.Size() <= f.size {
		t.Fatalf("file of %d bytes", st.Size())
	}
	v, err := d.Float64s()
	if err == nil || !strings.Contains(err.Error(), "beyond the end") || !strings.HasPrefix(err.Error(), "/f64: ") {
		t.Fatalf("got %d values, error %v", len(v), err)
	}
}
