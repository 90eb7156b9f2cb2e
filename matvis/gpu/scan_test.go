package gpu

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/kernels"
)

// compactionKernels compiles vis.cu (float ENU) and returns its kernels
// with their residency, a stream and a look-back state of words status
// words (zeroed), all released when t ends.
func compactionKernels(t *testing.T, g *Backend, words int) (*visKernels, cuda.Stream, *lookback) {
	t.Helper()
	code, headers, err := kernels.Program(kernelFiles, "vis.cu")
	gputest.Must(t, err)
	opts := append([]string{"-DR_T=float", "-DZ_T=float2", "-DACC_T=float2", "-DOUT_T=float2"}, sharedDefines()...)
	mod, err := g.c.Compile(cuda.Source{Name: "vis.cu", Code: code, Headers: headers}, opts...)
	gputest.Must(t, err)
	t.Cleanup(func() { mod.Unload() })
	k, err := loadVisKernels(mod, false, false, false)
	gputest.Must(t, err)
	gputest.Must(t, k.residency(g.c.Info().SMs))
	s, err := g.c.NewStream()
	gputest.Must(t, err)
	t.Cleanup(func() { g.c.DestroyStream(s) })
	lb := &lookback{words: words}
	lb.status, err = g.c.Alloc(int64(words) * 8)
	gputest.Must(t, err)
	t.Cleanup(func() { g.c.Free(lb.status) })
	gputest.Must(t, g.c.Memset8(lb.status, 0, int64(words)*8, s))
	return k, s, lb
}

// The exclusive scan of the compaction and the sort against a plain Go
// loop, on fresh random counts and a poisoned output, at sizes around one
// tile (one block) and up to a prodslice sort's 977 × 360 counts (one
// block a tile): by look-back in one launch and in three launches.
func TestScanMatchesGoLoop(t *testing.T) {
	g := openGPU(t)
	k, s, lb := compactionKernels(t, g, 64)
	t.Logf("look-back scan: %d blocks resident", k.scanResident)
	for _, n := range []int{1, 100, scanTile - 1, scanTile, scanTile + 1, 196 * 360, 977 * 360} {
		rng := sharedtest.RNG(t, uint64(n))
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
		for _, path := range []struct {
			name string
			lb   *lookback
		}{{"look-back", lb}, {"three launches", nil}} {
			gputest.Must(t, g.c.Memset8(dOut, 0xA5, int64(n+1)*4, s))
			gputest.Must(t, k.scan(s, int32(n), dIn, dOut, dOut.Offset(int64(n)*4), tmp, path.lb))
			got := make([]int32, n+1)
			gputest.Must(t, cuda.Download(g.c, got, dOut, s))
			gputest.Must(t, g.c.SyncStream(s))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, n=%d: out[%d] = %d, want %d", path.name, n, i, got[i], want[i])
				}
			}
			if got[n] != total {
				t.Errorf("%s, n=%d: total %d, want %d", path.name, n, got[n], total)
			}
		}
		for _, p := range []cuda.DevicePtr{dIn, dOut, tmp} {
			g.c.Free(p)
		}
	}
}

// The one-launch horizon compaction (look-back, several rounds a block
// when the sky has more blocks of sources than the card holds) gives the
// three-launch one's visible sources, order and count bit for bit, on
// fresh random directions (uploaded ENU, mode 0) and fluxes, outputs
// poisoned.
func TestCompactMatchesThreeLaunches(t *testing.T) {
	g := openGPU(t)
	for _, nsrc := range []int{1, 255, 256, 257, 5000, 200000, 1000000} {
		blocks := (nsrc + threadsCoords - 1) / threadsCoords
		k, s, lb := compactionKernels(t, g, blocks)
		rng := sharedtest.RNG(t, uint64(nsrc))
		var enu [3][]float64
		flux := make([]float64, nsrc)
		for i := range nsrc {
			z := 2*rng.Float64() - 1
			phi := 2 * math.Pi * rng.Float64()
			r := math.Sqrt(1 - z*z)
			enu[0] = append(enu[0], r*math.Cos(phi))
			enu[1] = append(enu[1], r*math.Sin(phi))
			enu[2] = append(enu[2], z)
			flux[i] = rng.ExpFloat64()
		}
		var src srcVectors
		for j := range src {
			p, err := cuda.AllocFor[float64](g.c, nsrc)
			gputest.Must(t, err)
			defer g.c.Free(p)
			gputest.Must(t, cuda.Upload(g.c, p, enu[j], s))
			src[j] = p
		}
		dFlux, err := cuda.AllocFor[float64](g.c, nsrc)
		gputest.Must(t, err)
		defer g.c.Free(dFlux)
		gputest.Must(t, cuda.Upload(g.c, dFlux, flux, s))
		outputs := func() ([4][]float64, int32) {
			var slot compactSlot
			for _, p := range []*cuda.DevicePtr{&slot.e, &slot.n, &slot.u, &slot.amp} {
				*p, err = g.c.Alloc(int64(nsrc) * 8)
				gputest.Must(t, err)
				gputest.Must(t, g.c.Memset8(*p, 0xFF, int64(nsrc)*8, s))
			}
			cnt, err := g.c.Alloc(4 * int64(blocks+2))
			gputest.Must(t, err)
			defer g.c.Free(cnt)
			par := make([]float64, parN)
			if done, err := k.compact(s, int64(nsrc), 0, src, par, dFlux, 1, 0, slot, cnt, lb); !done || err != nil {
				t.Fatalf("nsrc=%d: one-launch compaction not run (%v)", nsrc, err)
			}
			var got [4][]float64
			read := func(p cuda.DevicePtr, n int) []float64 {
				h := make([]float32, n)
				gputest.Must(t, cuda.Download(g.c, h, p, s))
				out := make([]float64, n)
				for i, v := range h {
					out[i] = float64(v)
				}
				return out
			}
			total := make([]int32, 1)
			gputest.Must(t, cuda.Download(g.c, total, cnt, s))
			gputest.Must(t, g.c.SyncStream(s))
			nv := int(total[0])
			got[0], got[1], got[2] = read(slot.e, nv), read(slot.n, nv), read(slot.u, nv)
			got[3] = make([]float64, nv)
			gputest.Must(t, cuda.Download(g.c, got[3], slot.amp, s))
			gputest.Must(t, g.c.SyncStream(s))
			for _, p := range []cuda.DevicePtr{slot.e, slot.n, slot.u, slot.amp} {
				g.c.Free(p)
			}
			return got, total[0]
		}
		one, n1 := outputs()
		// The three-launch path on the same inputs: the look-back state
		// refused, so compact declines.
		saved := lb.words
		lb.words = 0
		var slot compactSlot
		for _, p := range []*cuda.DevicePtr{&slot.e, &slot.n, &slot.u, &slot.amp} {
			*p, err = g.c.Alloc(int64(nsrc) * 8)
			gputest.Must(t, err)
			defer g.c.Free(*p)
			gputest.Must(t, g.c.Memset8(*p, 0xFF, int64(nsrc)*8, s))
		}
		bc, err := g.c.Alloc(4 * int64(blocks))
		gputest.Must(t, err)
		defer g.c.Free(bc)
		bo, err := g.c.Alloc(4 * int64(blocks))
		gputest.Must(t, err)
		defer g.c.Free(bo)
		tot, err := g.c.Alloc(4)
		gputest.Must(t, err)
		defer g.c.Free(tot)
		tmp, err := g.c.Alloc(scanScratch(int64(blocks)))
		gputest.Must(t, err)
		defer g.c.Free(tmp)
		par := make([]float64, parN)
		if done, _ := k.compact(s, int64(nsrc), 0, src, par, dFlux, 1, 0, slot, tot, lb); done {
			t.Fatal("compact ran without look-back words")
		}
		lb.words = saved
		gputest.Must(t, k.countVisible(s, blocks, int64(nsrc), 0, src, par, bc))
		gputest.Must(t, k.scan(s, int32(blocks), bc, bo, tot, tmp, nil))
		gputest.Must(t, k.scatterVisible(s, blocks, int64(nsrc), 0, src, par, bo, dFlux, 1, 0, slot))
		total := make([]int32, 1)
		gputest.Must(t, cuda.Download(g.c, total, tot, s))
		gputest.Must(t, g.c.SyncStream(s))
		if total[0] != n1 {
			t.Fatalf("nsrc=%d: %d visible in one launch, %d in three", nsrc, n1, total[0])
		}
		nv := int(n1)
		e3 := make([]float32, nv)
		a3 := make([]float64, nv)
		gputest.Must(t, cuda.Download(g.c, e3, slot.e, s))
		gputest.Must(t, cuda.Download(g.c, a3, slot.amp, s))
		gputest.Must(t, g.c.SyncStream(s))
		for i := range nv {
			if float64(e3[i]) != one[0][i] || a3[i] != one[3][i] || math.IsNaN(one[2][i]) || !(one[2][i] > 0) {
				t.Fatalf("nsrc=%d: visible source %d differs: east %v vs %v, amp %v vs %v, up %v", nsrc, i, one[0][i], e3[i], one[3][i], a3[i], one[2][i])
			}
		}
		t.Logf("nsrc=%d: %d visible, the same in one launch (%d blocks resident) and in three (%d blocks)", nsrc, nv, k.compactResident, blocks)
	}
}
