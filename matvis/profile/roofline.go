package profile

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/roof"
)

// Ceiling is one measured or published limit of a machine (roof.Ceiling).
type Ceiling = roof.Ceiling

// Ceilings are a device's roofs (roof.Ceilings).
type Ceilings = roof.Ceilings

// GramShape is the Gram product of one chunk: C (M×M) = Z·Zᴴ with Z M×K
// (roof.GramShape).
type GramShape = roof.GramShape

// CeilingMeter measures a device's ceilings, the Gram product at the run's
// exact shape among them (roof.CeilingMeter). The CPU's is CPUMeter; the
// GPU backend (matvis/gpu) implements it through cuBLAS with CUDA events,
// and Run uses the backend's own when the backend is one.
type CeilingMeter = roof.CeilingMeter

// CPUMeter measures the CPU: memory bandwidth by a parallel copy of a
// buffer much larger than the caches, and the herk rate at the run's shape
// through matvis/cblas (4·M²·K FLOPs per herk: M²/2 complex multiply-adds
// of 8 real operations each, over K).
type CPUMeter struct {
	Herk    cblas.Herk
	Workers int // copy goroutines (0: GOMAXPROCS)
	// CopyBytes is the copied buffer's size (0: 256 MiB).
	CopyBytes int
	// Repeats is the number of timed repetitions, the best kept (0: 5).
	Repeats int
}

// MeasureCeilings implements CeilingMeter.
func (m CPUMeter) MeasureCeilings(ctx context.Context, s GramShape) (Ceilings, error) {
	reps := m.Repeats
	if reps <= 0 {
		reps = 5
	}
	out := Ceilings{Device: cpuModel()}
	bw, err := m.copyRate(ctx, reps)
	if err != nil {
		return out, err
	}
	out.Bandwidth = append(out.Bandwidth, Ceiling{
		Name: "memory copy", Value: bw, Unit: "B/s", Measured: true,
		Note: "best of parallel copies; bytes read + written",
	})
	if m.Herk != nil && s.M > 0 && s.K > 0 {
		rate, err := m.herkRate(ctx, s, max(2, reps/2))
		if err != nil {
			return out, err
		}
		word := map[int]string{1: "cherk", 2: "zherk"}[s.Precision]
		out.Compute = append(out.Compute, Ceiling{
			Name: fmt.Sprintf("%s M=%d K=%d", word, s.M, s.K), Value: rate, Unit: "FLOP/s", Measured: true,
			Note: "best of runs through " + m.Herk.Name() + "; 4·M²·K FLOPs",
		})
	}
	return out, nil
}

func (m CPUMeter) copyRate(ctx context.Context, reps int) (float64, error) {
	n := m.CopyBytes
	if n <= 0 {
		n = 256 << 20
	}
	w := m.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	src := make([]float64, n/8)
	dst := make([]float64, n/8)
	for i := range src {
		src[i] = float64(i) // touch every page before timing
	}
	best := 0.0
	for range reps + 1 { // the first pass faults dst's pages in; not kept
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("profile: copy bandwidth: %w", err)
		}
		t := time.Now()
		blocks.Run(len(src), w, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
		if d := time.Since(t).Seconds(); d > 0 && dst[len(dst)-1] == src[len(src)-1] {
			best = max(best, 2*float64(n)/d)
		}
	}
	return best, nil
}

func (m CPUMeter) herkRate(ctx context.Context, s GramShape, reps int) (float64, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	flops := 4 * float64(s.M) * float64(s.M) * float64(s.K)
	best := 0.0
	run := func(f func()) error {
		for range reps + 1 { // one warm-up (thread pool start-up)
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("profile: herk rate: %w", err)
			}
			t := time.Now()
			f()
			if d := time.Since(t).Seconds(); d > 0 {
				best = max(best, flops/d)
			}
		}
		return nil
	}
	if s.Precision == 1 {
		a := make([]complex64, s.M*s.K)
		for i := range a {
			a[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		}
		c := make([]complex64, s.M*s.M)
		if err := run(func() { m.Herk.Cherk(s.M, s.K, 1, a, s.K, 0, c, s.M) }); err != nil {
			return 0, err
		}
	} else {
		a := make([]complex128, s.M*s.K)
		for i := range a {
			a[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		c := make([]complex128, s.M*s.M)
		if err := run(func() { m.Herk.Zherk(s.M, s.K, 1, a, s.K, 0, c, s.M) }); err != nil {
			return 0, err
		}
	}
	return best, nil
}

// datasheet are one accelerator's published peak rates, each a Ceiling
// (not measured).
type datasheet struct {
	hbm, fp32, fp64Tensor, fp16Tensor, int8Tensor Ceiling
}

// datasheetRoofs returns the published roofs of a known accelerator
// (matched by a substring of the device name); ok is false for others.
func datasheetRoofs(device string) (d datasheet, ok bool) {
	if !strings.Contains(device, "H200") {
		return d, false
	}
	// NVIDIA H200 SXM datasheet, dense rates (the sparse ones are twice):
	// FP32 (non-tensor) and FP64 tensor are both 67 TFLOP/s, one roof
	// (two would draw on top of each other); FP16/BF16 tensor 989.5
	// TFLOP/s and INT8 tensor 1979 TOPS are the modes split-operand Gram
	// products can use at float32 accuracy ([gram]); HBM3e 4.8 TB/s.
	fp := Ceiling{Name: "H200 FP32 = FP64 tensor (datasheet)", Value: 67e12, Unit: "FLOP/s"}
	return datasheet{
		hbm:        Ceiling{Name: "H200 HBM3e (datasheet)", Value: 4.8e12, Unit: "B/s"},
		fp32:       fp,
		fp64Tensor: fp,
		fp16Tensor: Ceiling{Name: "H200 FP16 tensor (datasheet)", Value: 989.5e12, Unit: "FLOP/s"},
		int8Tensor: Ceiling{Name: "H200 INT8 tensor (datasheet, OP/s)", Value: 1979e12, Unit: "FLOP/s"},
	}, true
}

// Datasheet returns published ceilings for known accelerators (matched by
// a substring of the device name), nil for others. They are drawn dashed
// beside the measured ones.
func Datasheet(device string) []Ceiling {
	d, ok := datasheetRoofs(device)
	if !ok {
		return nil
	}
	return []Ceiling{d.hbm, d.fp32, d.fp16Tensor, d.int8Tensor}
}

// AddDatasheet appends device's Datasheet ceilings to c, each to the
// bandwidth or compute list by its unit (nothing for an unknown device).
func AddDatasheet(c *Ceilings, device string) {
	for _, d := range Datasheet(device) {
		if d.Unit == "B/s" {
			c.Bandwidth = append(c.Bandwidth, d)
		} else {
			c.Compute = append(c.Compute, d)
		}
	}
}

// WorkShape is what the per-stage counts depend on, for one chunk.
type WorkShape struct {
	NAnt, NBeamUsed, NFeed, Precision int
	// Sources is the chunk's source count, Visible those above the horizon.
	Sources, Visible int
	Gridded          bool
	// ENUFlops is the coordinate method's cost per source and time (15
	// for a 3×3 rotation, 0 for precomputed vectors).
	ENUFlops float64
	// ZBytes is one element of Z as written and read (0: 8·Precision);
	// 16 when a complex128 Gram strategy runs on precision-1 data.
	ZBytes int
}

// StageWork is the counted work of one stage for one chunk.
type StageWork struct {
	Stage string  `json:"stage"`
	FLOPs float64 `json:"flops"`
	Bytes float64 `json:"bytes"`
}

// Intensity is FLOPs per byte.
func (w StageWork) Intensity() float64 {
	if w.Bytes == 0 {
		return 0
	}
	return w.FLOPs / w.Bytes
}

// CountWork counts each stage's FLOPs and compulsory memory traffic for one
// chunk, the convention the roofline uses. Real additions and
// multiplications count 1; a transcendental (sqrt, sincos, exp, asin,
// atan2) counts 1 too, so the counts are lower bounds of the arithmetic.
// Bytes are the arrays a stage must read and write once (float64 angles
// and beams, Z in the run's precision); cached re-reads (a gridded beam's
// 4×4 stencil) are not counted. With V visible of N sources, A antennas, B
// beams, F feeds, c = 8·precision bytes per complex:
//
//	coords:  N·(ENU + 1) + 9V FLOPs;  24N + 24V bytes (ENU in, az/za and the index out)
//	beam:    B·V·(4 + F²·(66 gridded | 1 analytic)) FLOPs;  B·V·(16 + 16F²) bytes
//	tau_z:   2V + A·V·(10 + 6F²) FLOPs;  (B·16F² + 32)·V + A·F²·V·c bytes
//	matprod: 4·(AF)²·(FV) FLOPs;  AF·FV·c + 2·(AF)²·c bytes (Z in, C in and out)
func CountWork(s WorkShape) []StageWork {
	n, v := float64(s.Sources), float64(s.Visible)
	a, b, f := float64(s.NAnt), float64(s.NBeamUsed), float64(s.NFeed)
	c := 8 * float64(max(s.Precision, 1))
	if s.ZBytes > 0 {
		c = float64(s.ZBytes)
	}
	perComp := 1.0
	if s.Gridded {
		perComp = 66 // 16 taps × (re, im) multiply-adds + the weights
	}
	m, k := a*f, f*v
	return []StageWork{
		{"coords", n*(s.ENUFlops+1) + 9*v, 24*n + 24*v},
		{"beam", b * v * (4 + f*f*perComp), b * v * (16 + 16*f*f)},
		{"tau_z", 2*v + a*v*(10+6*f*f), (b*16*f*f+32)*v + a*f*f*v*c},
		{"matprod", 4 * m * m * k, m*k*c + 2*m*m*c},
	}
}

// StageBeamTauZ names the fused beam + τ + Z stage on the roofline.
const StageBeamTauZ = "beam+tau_z"

// FuseBeamTauZ replaces the beam and tau_z stages of CountWork's result by
// one fused stage (StageBeamTauZ), for a backend that interpolates the
// beams inside the τ/Z kernel: the FLOPs add up, and the interpolated-beam
// array, which the fused kernel keeps in registers, is neither written nor
// read (B·V·16F² bytes each way less).
func FuseBeamTauZ(work []StageWork, s WorkShape) []StageWork {
	out, fused, found := mergeStages(work, func(st string) bool { return st == "beam" || st == "tau_z" })
	if found != 2 {
		return work
	}
	b, v, f := float64(s.NBeamUsed), float64(s.Visible), float64(s.NFeed)
	fused.Stage = StageBeamTauZ
	fused.Bytes -= 2 * b * v * 16 * f * f
	// After coords, in pipeline order.
	res := append([]StageWork{}, out[:1]...)
	res = append(res, fused)
	return append(res, out[1:]...)
}

// mergeStages sums the stages for which in is true into one StageWork
// (unnamed) and returns the others in order and how many were merged.
func mergeStages(work []StageWork, in func(string) bool) (rest []StageWork, merged StageWork, n int) {
	for _, w := range work {
		if !in(w.Stage) {
			rest = append(rest, w)
			continue
		}
		merged.FLOPs += w.FLOPs
		merged.Bytes += w.Bytes
		n++
	}
	return rest, merged, n
}

// StageGramFused names the stage of a kernel that does beam, τ, Z and the
// Gram product at once (the GPU's gram_fused) on the roofline.
const StageGramFused = "beam+tau_z+matprod"

// FuseGram replaces the beam, τ/Z and matprod stages (fused or not by
// FuseBeamTauZ) by one stage (StageGramFused), for a backend whose Gram
// product runs in the kernel that makes Z: the FLOPs add up, and Z, which
// that kernel keeps in shared memory, is neither written nor read
// (A·F·F·V·c bytes each way less).
func FuseGram(work []StageWork, s WorkShape) []StageWork {
	hasProduct := slices.ContainsFunc(work, func(w StageWork) bool { return w.Stage == "matprod" })
	out, fused, _ := mergeStages(work, func(st string) bool {
		return st == "beam" || st == "tau_z" || st == StageBeamTauZ || st == "matprod"
	})
	if !hasProduct {
		return work
	}
	c := 8 * float64(max(s.Precision, 1))
	if s.ZBytes > 0 {
		c = float64(s.ZBytes)
	}
	m, k := float64(s.NAnt)*float64(s.NFeed), float64(s.NFeed)*float64(s.Visible)
	fused.Stage = StageGramFused
	fused.Bytes -= 2 * m * k * c
	return append(out, fused)
}

// The transform path's roofline stages (CountTransformWork): the
// strengths with the spreading onto the outer grid, timed as tau_z, and
// the deconvolution, FFT and interpolation to the baselines, timed as
// matprod (matvis/nufftcpu's and the GPU transform path's stage timing).
const (
	StageSpread = "strengths+spread"
	StageFFT    = "fft+interp"
)

// CountTransformWork counts the stages of a run whose product was the
// type-3 transforms tr (matvis.GramImpl.Transform), for one integration
// (its one chunk), in CountWork's convention: coords and beam as there;
// per transform, with V visible sources, T targets, kernel width w in d
// dimensions, outer grid G1 and padded grid G2 of c-byte complex values,
//
//	strengths+spread: V·(6F² + 10dw + 4wᵈ) FLOPs (the feed-pair product,
//	                  the kernel weights, a complex add per tap);
//	                  V·(c + 8d) + 2·G1·c bytes (strengths and coordinates
//	                  in, the outer grid zeroed and written once)
//	fft+interp:       G1 + 5·G2·log₂G2 (halved for real strengths) +
//	                  T·(10dw + 4wᵈ + 6) FLOPs; G1·c + 2·G2·c + T·(c + 8d)
//	                  bytes (the grid read, the padded grid through the FFT
//	                  once, the results and target coordinates)
//
// times the transforms of an integration (tr.PerTime); the strengths'
// feed-pair products are counted once per source, not per transform.
func CountTransformWork(s WorkShape, tr matvis.TransformShape) []StageWork {
	base := CountWork(s)
	v, f := float64(s.Visible), float64(s.NFeed)
	c := 8 * float64(max(s.Precision, 1))
	d, w := float64(tr.Dim), float64(tr.Width)
	taps := math.Pow(w, d)
	g1, g2, t := float64(tr.Outer), float64(tr.Padded), float64(tr.Targets)
	n := float64(max(tr.PerTime, 1))
	fft := 5 * g2 * math.Log2(max(g2, 2))
	if tr.RealStrengths {
		fft /= 2
	}
	spread := StageWork{StageSpread, v*6*f*f + n*v*(10*d*w+4*taps), n * (v*(c+8*d) + 2*g1*c)}
	rest := StageWork{StageFFT, n * (g1 + fft + t*(10*d*w+4*taps+6)), n * (g1*c + 2*g2*c + t*(c+8*d))}
	return []StageWork{base[0], base[1], spread, rest}
}
