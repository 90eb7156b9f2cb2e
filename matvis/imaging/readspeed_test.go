package imaging

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestFromMSReadSpeed times FromMS on the MS named by GOMATVIS_READ_MS
// (for profiling the read: go test -run FromMSReadSpeed -cpuprofile …);
// it runs only when that is set, and asserts only that the read works.
func TestFromMSReadSpeed(t *testing.T) {
	path := os.Getenv("GOMATVIS_READ_MS")
	if path == "" {
		t.Skip("set GOMATVIS_READ_MS to an MS to time FromMS on it")
	}
	for range 3 {
		t0 := time.Now()
		v, _, err := FromMS(path, "I")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("FromMS: %d rows × %d channels in %.3f s", len(v.UVW), len(v.Freqs), time.Since(t0).Seconds())
	}
}

// TestMeanEqualsCombine: mean's bits equal combine's (a complex division)
// for one or two correlations of random values, zeros of either sign,
// infinities and NaNs.
func TestMeanEqualsCombine(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.SmallestNonzeroFloat32}
	pick := func() float32 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30)))
	}
	bits := func(z complex128) [2]uint64 { return [2]uint64{math.Float64bits(real(z)), math.Float64bits(imag(z))} }
	for range 100000 {
		corr := make([]complex64, 4)
		for i := range corr {
			corr[i] = complex(pick(), pick())
		}
		idx := []int{rng.IntN(4)}
		if rng.IntN(2) == 0 {
			idx = []int{0, 3}
		}
		pp := polPick{idx: idx}
		want, _ := pp.combine(func(i int) complex128 { return complex128(corr[i]) }, func(int) bool { return false })
		if got := pp.mean(corr); bits(got) != bits(want) {
			t.Fatalf("correlations %v, picked %v: mean %v, combine %v", corr, idx, got, want)
		}
	}
}
