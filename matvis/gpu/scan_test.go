package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/kernels"
)

// The exclusive scan of the compaction and the sort against a plain Go
// loop, on fresh random counts and a poisoned output, at sizes around one
// tile (one block) and up to a prodslice sort's 977 × 360 counts (one
// block a tile).
func TestScanMatchesGoLoop(t *testing.T) {
	g := openGPU(t)
	code, headers, err := kernels.Program("vis.cu")
	gputest.Must(t, err)
	opts := append([]string{"-DR_T=float", "-DZ_T=float2", "-DACC_T=float2", "-DOUT_T=float2",
		fmt.Sprintf("-DNBAND=%d", sortBands), fmt.Sprintf("-DNAZBIN=%d", sortAzBins)}, sharedDefines()...)
	mod, err := g.c.Compile(cuda.Source{Name: "vis.cu", Code: code, Headers: headers}, opts...)
	gputest.Must(t, err)
	defer mod.Unload()
	k, err := loadVisKernels(mod, false, false)
	gputest.Must(t, err)
	s, err := g.c.NewStream()
	gputest.Must(t, err)
	defer g.c.DestroyStream(s)
	for _, n := range []int{1, 100, scanTile - 1, scanTile, scanTile + 1, 196 * 360, 977 * 360} {
		rng := rand.New(rand.NewPCG(rand.Uint64(), uint64(n)))
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(rng.IntN(1025))
		}
		want := make([]int32, n)
		total := int32(0)
		for i, v := range in {
			want[i] = total
			total += v
		}
		dIn, err := cuda.AllocFor[int32](g.c, n)
		gputest.Must(t, err)
		dOut, err := cuda.AllocFor[int32](g.c, n+1) // + the total
		gputest.Must(t, err)
		tmp, err := g.c.Alloc(scanScratch(int64(n)))
		gputest.Must(t, err)
		gputest.Must(t, cuda.Upload(g.c, dIn, in, s))
		gputest.Must(t, g.c.Memset8(dOut, 0xA5, int64(n+1)*4, s))
		gputest.Must(t, k.scan(s, int32(n), dIn, dOut, dOut.Offset(int64(n)*4), tmp))
		got := make([]int32, n+1)
		gputest.Must(t, cuda.Download(g.c, got, dOut, s))
		gputest.Must(t, g.c.SyncStream(s))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("n=%d: out[%d] = %d, want %d", n, i, got[i], want[i])
			}
		}
		if got[n] != total {
			t.Errorf("n=%d: total %d, want %d", n, got[n], total)
		}
		for _, p := range []cuda.DevicePtr{dIn, dOut, tmp} {
			g.c.Free(p)
		}
	}
}
