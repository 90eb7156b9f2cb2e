package cblas

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

// CoreTypeEnv is the environment variable with which OpenBLAS's
// DYNAMIC_ARCH builds can be told which kernels to use instead of the ones
// they detect ("Haswell", "SkylakeX", …).
const CoreTypeEnv = "OPENBLAS_CORETYPE"

// Kernel describes the system library's compute kernels.
type Kernel struct {
	// Library is the shared object's file name ("" for gonum).
	Library string `json:"library,omitempty"`
	// CoreName is openblas_get_corename's answer, the kernel set in use
	// ("Haswell", "SkylakeX", "Prescott", …); "" for other libraries.
	CoreName string `json:"corename,omitempty"`
	// Config is openblas_get_config's answer (version, build options,
	// kernel, thread limit).
	Config string `json:"config,omitempty"`
	// CoreType is OPENBLAS_CORETYPE as set in the environment, "" when
	// unset (the library then picks the kernels itself).
	CoreType string `json:"coretype,omitempty"`
}

// String names the library and kernel on one line.
func (k Kernel) String() string {
	if k.Library == "" {
		return "gonum (pure Go)"
	}
	s := k.Library
	if k.CoreName != "" {
		s += ", kernel " + k.CoreName
	}
	if k.CoreType != "" {
		s += " (" + CoreTypeEnv + "=" + k.CoreType + ")"
	}
	if k.Config != "" {
		s += ": " + k.Config
	}
	return s
}

// Kernel reports the library's kernel.
func (s *System) Kernel() Kernel {
	k := Kernel{Library: s.path, CoreType: os.Getenv(CoreTypeEnv)}
	if s.corename != nil {
		k.CoreName = strings.TrimSpace(s.corename())
	}
	if s.config != nil {
		k.Config = strings.TrimSpace(s.config())
	}
	return k
}

// CPUFeatures are the vector extensions of the host CPU that decide which
// OpenBLAS kernels suit it.
type CPUFeatures struct {
	AVX2 bool
	// AVX512 is AVX-512 F, BW, DQ and VL together, what OpenBLAS's
	// SkylakeX kernels need.
	AVX512 bool
}

// HostCPU reads the features of the first CPU in /proc/cpuinfo; the zero
// value (no warning is then given) where it cannot be read.
func HostCPU() CPUFeatures { return featuresOf(hostFlags()) }

// hostFlags returns the first CPU's flags in /proc/cpuinfo, nil where it
// cannot be read.
func hostFlags() []string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseCPUFlags(f)
}

// parseCPUFlags returns the flags of the first "flags" line of a
// /proc/cpuinfo, nil without one.
func parseCPUFlags(r io.Reader) []string {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "flags" {
			return strings.Fields(v)
		}
	}
	return nil
}

// hasAll reports whether flags holds every one of names.
func hasAll(flags []string, names ...string) bool {
	for _, n := range names {
		if !slices.Contains(flags, n) {
			return false
		}
	}
	return true
}

func featuresOf(flags []string) CPUFeatures {
	return CPUFeatures{AVX2: hasAll(flags, "avx2", "fma"), AVX512: hasAll(flags, "avx512f", "avx512bw", "avx512dq", "avx512vl")}
}

// kernelNeeds returns the /proc/cpuinfo flags an OpenBLAS x86-64 kernel
// set executes beyond SSE2. Forced (OPENBLAS_CORETYPE) onto a CPU without
// them, a kernel dies of SIGILL at its first product: on AMD Zen 5,
// Opteron's and the Bulldozer family's do (bench/RESULTS.md).
func kernelNeeds(corename string) []string {
	switch strings.ToLower(corename) {
	case "opteron", "opteron_sse3":
		return []string{"3dnowext"}
	case "bulldozer", "piledriver", "steamroller", "excavator":
		return []string{"fma4"}
	case "sandybridge":
		return []string{"avx"}
	case "haswell", "zen":
		return []string{"avx2", "fma"}
	case "skylakex":
		return []string{"avx512f", "avx512bw", "avx512dq", "avx512vl"}
	case "cooperlake", "sapphirerapids":
		return []string{"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"}
	}
	return nil
}

// missing returns the flags k's kernels need that flags lacks; nil when
// flags is nil (unknown CPU).
func (k Kernel) missing(flags []string) []string {
	if flags == nil {
		return nil
	}
	var out []string
	for _, f := range kernelNeeds(k.CoreName) {
		if !slices.Contains(flags, f) {
			out = append(out, f)
		}
	}
	return out
}

// avx2Kernel reports whether an OpenBLAS kernel set is written for AVX2
// (with FMA) or AVX-512; any other on a CPU with AVX2 leaves most of it
// unused.
func avx2Kernel(corename string) bool {
	switch strings.ToLower(corename) {
	case "haswell", "zen", "skylakex", "cooperlake", "sapphirerapids":
		return true
	}
	return false
}

// Warnings returns what the user should know about running kernel k on a
// CPU with features cpu: a kernel set older than the CPU (OpenBLAS 0.3.21,
// Debian 12's, runs its generic Prescott kernels on AVX-512 VMs it does not
// recognise, 8–12 times slower), with the OPENBLAS_CORETYPE that suits it.
func (k Kernel) Warnings(cpu CPUFeatures) []string {
	if k.CoreName == "" || !cpu.AVX2 || avx2Kernel(k.CoreName) {
		return nil
	}
	ext, try := "AVX2", CoreTypeEnv+"=Haswell"
	if cpu.AVX512 {
		ext, try = "AVX-512", CoreTypeEnv+"=SkylakeX (or Haswell)"
	}
	forced := ""
	if k.CoreType != "" {
		forced = fmt.Sprintf(" (forced by %s=%s)", CoreTypeEnv, k.CoreType)
	}
	return []string{fmt.Sprintf("%s runs OpenBLAS's pre-AVX2 %s kernels%s on a CPU with %s: the Gram product may be several times slower; try %s (gomatvis checks a small product against its pure-Go herk at start-up and falls back to that, with a warning, if they disagree) or a newer OpenBLAS",
		k.Library, k.CoreName, forced, ext, try)}
}

// ErrDisagree says a CBLAS library's herk disagrees with gonum's beyond
// rounding.
var ErrDisagree = errors.New("cblas: herk disagrees with the pure-Go reference")

// Verify compares h's herk with gonum's on small random products in both
// precisions and beta = 0 and 1, and returns an error wrapping ErrDisagree
// when an entry differs by more than a rounding bound relative to its
// row norms (1e-4 in complex64 and 1e-11 in complex128, against
// k·2⁻²⁴ ≈ 2e-5 and k·2⁻⁵³ ≈ 3e-14 for these sizes). A wrong kernel
// (OpenBLAS forced to a core type the CPU or build mishandles) is off by
// order one.
func Verify(h Herk) error {
	rng := rand.New(rand.NewPCG(8, 21))
	// Odd sizes reach the kernels' edge code as well as their main loops.
	for _, sh := range []struct{ n, k int }{{5, 9}, {37, 301}} {
		n, k := sh.n, sh.k
		a := make([]complex128, n*k)
		a64 := make([]complex64, n*k)
		for i := range a {
			a64[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
			a[i] = complex128(a64[i])
		}
		for _, beta := range []float64{0, 1} {
			want, got := make([]complex128, n*n), make([]complex128, n*n)
			want64, got64 := make([]complex64, n*n), make([]complex64, n*n)
			for i := range got {
				got[i] = complex(float64(i%7), 0)
				want[i], got64[i], want64[i] = got[i], complex64(got[i]), complex64(got[i])
			}
			Gonum{}.Zherk(n, k, 1, a, k, beta, want, n)
			h.Zherk(n, k, 1, a, k, beta, got, n)
			Gonum{}.Cherk(n, k, 1, a64, k, float32(beta), want64, n)
			h.Cherk(n, k, 1, a64, k, float32(beta), got64, n)
			if err := agree(n, want, got, 1e-11); err != nil {
				return fmt.Errorf("%w: %s zherk %d×%d, beta %g: %w", ErrDisagree, h.Name(), n, k, beta, err)
			}
			w, g := widen(want64), widen(got64)
			if err := agree(n, w, g, 1e-4); err != nil {
				return fmt.Errorf("%w: %s cherk %d×%d, beta %g: %w", ErrDisagree, h.Name(), n, k, beta, err)
			}
		}
	}
	return nil
}

func widen(c []complex64) []complex128 {
	out := make([]complex128, len(c))
	for i, v := range c {
		out[i] = complex128(v)
	}
	return out
}

// agree compares the upper triangles of two n×n Gram matrices entry by
// entry, relative to √(C_ii·C_jj), which bounds |C_ij|.
func agree(n int, want, got []complex128, tol float64) error {
	for i := range n {
		for j := i; j < n; j++ {
			scale := math.Sqrt(real(want[i*n+i]) * real(want[j*n+j]))
			if d := cmplx.Abs(got[i*n+j] - want[i*n+j]); !(d <= tol*scale) {
				return fmt.Errorf("C[%d,%d] = %v, want %v", i, j, got[i*n+j], want[i*n+j])
			}
		}
	}
	return nil
}

// Choice is Choose's answer: the herk to use, the system library's kernel
// when one loaded, and what the user should be told.
type Choice struct {
	Herk   Herk
	Kernel Kernel
	// Warnings are one-line messages for stderr or a summary.
	Warnings []string
}

// Choose loads the system CBLAS, checks that the CPU has the features its
// kernels use and that it agrees with gonum (Verify), and returns it with
// warnings about its kernel (see Kernel.Warnings), or gonum when none
// loads or the loaded one disagrees (with a warning saying so). It never
// sets OPENBLAS_CORETYPE itself.
func Choose() Choice {
	s, err := LoadSystem()
	if err != nil {
		return Choice{Herk: Gonum{}}
	}
	return choose(s, s.Kernel(), hostFlags())
}

// choose is Choose for a loaded library s with kernel k on a CPU with
// flags (nil: unknown).
func choose(s Herk, k Kernel, flags []string) Choice {
	if miss := k.missing(flags); len(miss) > 0 {
		return Choice{Herk: Gonum{}, Kernel: k, Warnings: []string{fmt.Sprintf("%s's %s kernels use CPU features this CPU lacks (%s) and would stop the program with SIGILL; using the pure-Go gonum herk instead (several times slower)%s", k.Library, k.CoreName, strings.Join(miss, ", "), coreTypeHint(k))}}
	}
	if err := Verify(s); err != nil {
		return Choice{Herk: Gonum{}, Kernel: k, Warnings: []string{fmt.Sprintf("%v; using the pure-Go gonum herk instead (several times slower)%s", err, coreTypeHint(k))}}
	}
	return Choice{Herk: s, Kernel: k, Warnings: k.Warnings(featuresOf(flags))}
}

// coreTypeHint suggests unsetting a forced core type that gives wrong
// results.
func coreTypeHint(k Kernel) string {
	if k.CoreType == "" {
		return ""
	}
	return fmt.Sprintf("; %s=%s is set: this OpenBLAS cannot run that core type on this CPU, unset it", CoreTypeEnv, k.CoreType)
}

// Describe returns h's kernel: the system library's, or the zero Kernel
// (gonum) for other implementations.
func Describe(h Herk) Kernel {
	if s, ok := h.(*System); ok {
		return s.Kernel()
	}
	return Kernel{}
}
