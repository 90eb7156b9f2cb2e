package nufftgpu

import (
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestTimings times the visibility-shaped 2-D transform (10⁶ sources on
// the sky, 350·349 = 122150 baselines of a 300-wavelength array) per
// precision: CUDA-event medians of each stage over 20 runs after 3
// warm-up runs, and the wall time of one Execute with its
// synchronization. It checks nothing but that the runs succeed; it runs
// only when NUFFTGPU_TIMINGS=1.
func TestTimings(t *testing.T) {
	if os.Getenv("NUFFTGPU_TIMINGS") != "1" {
		t.Skip("SKIPPED: set NUFFTGPU_TIMINGS=1 to time the device transform")
	}
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 31)
	cases := []struct {
		d    int
		n, m int
		sh   float64
		prec Precision
		eps  float64
	}{
		{2, 1_000_000, 122_150, 2 * math.Pi * 300, Single, 1e-6},
		{2, 1_000_000, 122_150, 2 * math.Pi * 300, Double, 1e-12},
	}
	for _, tc := range cases {
		x, c, s := nufftest.Problem(rng, tc.d, tc.n, tc.m, 1, tc.sh, 0, 0)
		t0 := time.Now()
		pl, tr := newTransform(t, dv, x, s, tc.eps, 1, tc.prec)
		plan := time.Since(t0)
		st, wall := timeTransform(t, dv, tr, c)
		t.Logf("TIMING d=%d n=%d m=%d %v eps=%g grid %v: plan+upload %.0f ms; event medians spread %.3f deconv %.3f fft %.3f interp %.3f total %.3f ms; wall median %.3f ms",
			tc.d, tc.n, tc.m, tc.prec, tc.eps, pl.Grid(), plan.Seconds()*1e3, st.Spread, st.Deconv, st.FFT, st.Interp, st.Total(), wall.Seconds()*1e3)
	}
}

// timeTransform runs tr 3 times, then 20 timed: the per-stage medians of
// the events, and the median wall time of Execute plus its sync.
func timeTransform(t *testing.T, dv device, tr *Transform, c []complex128) (StageTimes, time.Duration) {
	t.Helper()
	cb := 2 * tr.prec.realBytes() * int64(tr.nv)
	in, err := dv.c.Alloc(int64(tr.lay.N) * cb)
	gputest.Must(t, err)
	defer dv.c.Free(in)
	out, err := dv.c.Alloc(int64(tr.lay.M) * cb)
	gputest.Must(t, err)
	defer dv.c.Free(out)
	gputest.Must(t, tr.putComplex(in, c))
	for range 3 {
		_, err := tr.ExecuteTimed(in, out)
		gputest.Must(t, err)
	}
	var sp, dc, ff, ip []float32
	var walls []time.Duration
	for range 20 {
		st, err := tr.ExecuteTimed(in, out)
		gputest.Must(t, err)
		sp, dc, ff, ip = append(sp, st.Spread), append(dc, st.Deconv), append(ff, st.FFT), append(ip, st.Interp)
		t0 := time.Now()
		gputest.Must(t, tr.Execute(in, out))
		gputest.Must(t, dv.c.SyncStream(dv.s))
		walls = append(walls, time.Since(t0))
	}
	slices.Sort(walls)
	return StageTimes{median(sp), median(dc), median(ff), median(ip)}, walls[len(walls)/2]
}

func median(v []float32) float32 {
	slices.Sort(v)
	return v[len(v)/2]
}
