// Package gram computes Hermitian Gram products C += Zᴴ·Z on the GPU, the
// step that dominates a visibility simulation, by several cuBLAS strategies
// whose speed differs a lot between cards (on an H200, cherk is a slow path
// that a cgemm doing twice the arithmetic beats), and chooses between them
// by measuring.
//
// Z is column-major K×M (each of the M rows of the simulator's Z matrix is
// a contiguous run of K values, leading dimension ldz ≥ K); C is M×M,
// column-major with leading dimension M. All work is queued on the stream of
// the cuBLAS handle given to New, with no host synchronisation.
package gram

import (
	"embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/kernels"
)

// kernelFiles are this package's CUDA programs, beside the Go that
// launches them: gram.cu (with gram_tc.cuh and gram_wg.cuh) and
// mmarate.cu, the tensor cores' rate benchmark; kernels.Program adds the
// shared headers.
//
//go:embed *.cu *.cuh
var kernelFiles embed.FS

// Strategy names one way to compute the product.
type Strategy string

// The strategies. "-up" ones run in complex128 on single-precision data:
// the simulator's Z kernel writes complex128 directly for them, so there is
// no separate widening pass in a simulation.
const (
	Cherk    Strategy = "cherk"        // complex64 herk, lower triangle, then mirror
	Cgemm    Strategy = "cgemm"        // complex64 gemm, full square
	Cgemm3m  Strategy = "cgemm3m"      // complex64 gemm, Gauss 3-multiply
	Zherk    Strategy = "zherk"        // complex128 herk, lower triangle, then mirror
	Zgemm    Strategy = "zgemm"        // complex128 gemm, full square
	TF32     Strategy = "cgemm-tf32"   // GemmEx with TF32 tensor cores: fails the fp32 accuracy gate
	BF16x9   Strategy = "cgemm-bf16x9" // GemmEx, fp32 emulated with bf16 products (cuBLAS 13)
	TCF16    Strategy = "tc-f16"       // our kernel: split-FP16 tensor-core products, lower triangle, Z split (Gram.Split)
	TCF16WG  Strategy = "tc-f16-wg"    // the same product on Hopper's wgmma (sm_90 only)
	triCgemm          = "tri-cgemm-"   // + number of row blocks: blocked lower triangle in cgemm
	triZgemm          = "tri-zgemm-"   // the same in complex128
)

// TriCgemm is the blocked-triangle complex64 strategy with nb row blocks:
// row block i computes C[rows_i, 0:end_i] with one cgemm, so only the lower
// triangle (plus the diagonal blocks) is computed.
func TriCgemm(nb int) Strategy { return Strategy(triCgemm + strconv.Itoa(nb)) }

// TriZgemm is TriCgemm in complex128.
func TriZgemm(nb int) Strategy { return Strategy(triZgemm + strconv.Itoa(nb)) }

// Double reports whether the strategy works on complex128 Z and C.
func (s Strategy) Double() bool {
	return s == Zherk || s == Zgemm || strings.HasPrefix(string(s), triZgemm)
}

// SplitZ reports whether the strategy reads Z as scaled FP16 words
// (Gram.Split's format, 8 bytes per value, ldz a multiple of 4) rather
// than complex64.
func (s Strategy) SplitZ() bool { return s == TCF16 || s == TCF16WG }

// LowerOnly reports whether only the lower triangle of C is valid after
// the product (Mirror completes it).
func (s Strategy) LowerOnly() bool {
	return s == Cherk || s == Zherk || s.SplitZ() || strings.HasPrefix(string(s), "tri-")
}

// blocks parses the row-block count of a blocked strategy (0 if none).
func (s Strategy) blocks() int {
	for _, p := range []string{triCgemm, triZgemm} {
		if rest, ok := strings.CutPrefix(string(s), p); ok {
			n, err := strconv.Atoi(rest)
			if err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// Gram runs products on one cuBLAS handle's stream.
type Gram struct {
	c        *cuda.Context
	b        *cuda.Blas
	s        cuda.Stream
	mod      *cuda.Module
	mirror32 cuda.Function
	mirror64 cuda.Function
	upcast   cuda.Function
	tc       tensorCore
}

// New compiles the helper kernels and binds to b, whose stream is s.
func New(c *cuda.Context, b *cuda.Blas, s cuda.Stream) (*Gram, error) {
	code, headers, err := kernels.Program(kernelFiles, "gram.cu")
	if err != nil {
		return nil, err
	}
	// Arch-specific: on an sm_90 card the module holds the wgmma product.
	mod, err := c.Compile(cuda.Source{Name: "gram.cu", Code: code, Headers: headers, ArchSpecific: true}, tcDefines()...)
	if err != nil {
		return nil, fmt.Errorf("gram kernels: %w", err)
	}
	g := &Gram{c: c, b: b, s: s, mod: mod}
	for _, f := range []struct {
		dst  *cuda.Function
		name string
	}{{&g.mirror32, "herm_mirror_f32"}, {&g.mirror64, "herm_mirror_f64"}, {&g.upcast, "upcast_c64_c128"},
		{&g.tc.f16, "gram_tc_f16"}, {&g.tc.wg, "gram_wg_f16"}, {&g.tc.reduce, "gram_tc_reduce"}, {&g.tc.split, "tc_split"}} {
		if *f.dst, err = mod.Function(f.name); err != nil {
			mod.Unload()
			return nil, err
		}
	}
	if err := g.tc.f16.SetMaxDynamicShared(tcShared); err != nil {
		mod.Unload()
		return nil, fmt.Errorf("gram_tc_f16: %w", err)
	}
	if g.tc.wgOK = mod.Target == "sm_90a"; g.tc.wgOK {
		if err := g.tc.wg.SetMaxDynamicShared(wgShared); err != nil {
			mod.Unload()
			return nil, fmt.Errorf("gram_wg_f16: %w", err)
		}
	}
	return g, nil
}

// Close unloads the helper kernels and frees the tensor-core product's
// scratch (the cuBLAS handle stays the caller's).
func (g *Gram) Close() error {
	g.freePartials()
	if g.tc.tiles != 0 {
		g.c.Free(g.tc.tiles)
	}
	return g.mod.Unload()
}

// Accumulate queues C = Zᴴ·Z + beta·C with strategy st (beta 1
// accumulates over chunks). For LowerOnly strategies only the lower
// triangle of C is updated; call Mirror once after the last chunk.
func (g *Gram) Accumulate(st Strategy, z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, beta float64) error {
	return g.AccumulateScaled(st, z, ldz, m, k, c, 1, beta)
}

// AccumulateScaled queues C = alpha·Zᴴ·Z + beta·C: alpha −1 subtracts a
// Gram product (a full-Stokes sky's negative eigenvalues).
func (g *Gram) AccumulateScaled(st Strategy, z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, alpha, beta float64) error {
	if m <= 0 || k < 0 || ldz < k || ldz < 1 {
		return fmt.Errorf("gram: bad shape m=%d k=%d ldz=%d", m, k, ldz)
	}
	if k == 0 && beta == 1 {
		return nil // nothing visible in this chunk
	}
	var err error
	switch {
	case st == Cherk:
		err = g.b.Cherk(cuda.Lower, cuda.OpC, m, k, float32(alpha), z, ldz, float32(beta), c, m)
	case st == Zherk:
		err = g.b.Zherk(cuda.Lower, cuda.OpC, m, k, alpha, z, ldz, beta, c, m)
	case st == Cgemm:
		err = g.b.Cgemm(cuda.OpC, cuda.OpN, m, m, k, complex64(complex(alpha, 0)), z, ldz, z, ldz, complex64(complex(beta, 0)), c, m)
	case st == Cgemm3m:
		err = g.b.Cgemm3m(cuda.OpC, cuda.OpN, m, m, k, complex64(complex(alpha, 0)), z, ldz, z, ldz, complex64(complex(beta, 0)), c, m)
	case st == Zgemm:
		err = g.b.Zgemm(cuda.OpC, cuda.OpN, m, m, k, complex(alpha, 0), z, ldz, z, ldz, complex(beta, 0), c, m)
	case st == TF32:
		err = g.b.GemmEx(cuda.OpC, cuda.OpN, m, m, k, complex(alpha, 0), z, ldz, z, ldz, complex(beta, 0), c, m, cuda.C32F, cuda.Compute32FFastTF32)
	case st == BF16x9:
		err = g.b.GemmEx(cuda.OpC, cuda.OpN, m, m, k, complex(alpha, 0), z, ldz, z, ldz, complex(beta, 0), c, m, cuda.C32F, cuda.Compute32FEmuBF16x9)
	case st.SplitZ():
		err = g.tensorCore(st, z, ldz, m, k, c, alpha, beta)
	case st.blocks() > 0:
		err = g.triangle(st, z, ldz, m, k, c, alpha, beta)
	default:
		return fmt.Errorf("gram: unknown strategy %q", st)
	}
	if err != nil {
		return fmt.Errorf("gram %s (m=%d k=%d): %w", st, m, k, err)
	}
	return nil
}

// triangle does the blocked lower triangle: nb row blocks of about m/nb
// rows (multiples of 32 for aligned tiles), block i computing
// C[r0:r1, 0:r1] = Z[:, r0:r1]ᴴ · Z[:, 0:r1] in one gemm.
func (g *Gram) triangle(st Strategy, z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, alpha, beta float64) error {
	nb := st.blocks()
	esize := int64(8)
	if st.Double() {
		esize = 16
	}
	step := (m + nb - 1) / nb
	step = (step + 31) / 32 * 32
	// Largest blocks (bottom rows) first: they fill the card while the
	// small ones at the top finish.
	for r1 := m; r1 > 0; {
		r0 := max(r1-step, 0)
		rows := r1 - r0
		a := z.Offset(int64(r0) * int64(ldz) * esize)
		cc := c.Offset(int64(r0) * esize)
		var err error
		if st.Double() {
			err = g.b.Zgemm(cuda.OpC, cuda.OpN, rows, r1, k, complex(alpha, 0), a, ldz, z, ldz, complex(beta, 0), cc, m)
		} else {
			err = g.b.Cgemm(cuda.OpC, cuda.OpN, rows, r1, k, complex64(complex(alpha, 0)), a, ldz, z, ldz, complex64(complex(beta, 0)), cc, m)
		}
		if err != nil {
			return err
		}
		r1 = r0
	}
	return nil
}

// Mirror fills the strict upper triangle of the m×m C from the lower one
// (conjugated); double selects complex128.
func (g *Gram) Mirror(c cuda.DevicePtr, m int, double bool) error {
	f := g.mirror32
	if double {
		f = g.mirror64
	}
	nt := uint32((m + 31) / 32)
	return f.Launch(cuda.Dim3{X: nt, Y: nt, Z: 1}, cuda.Dim3{X: 32, Y: 8, Z: 1}, 0, g.s, c, int32(m), int64(m))
}

// Upcast widens n complex64 values to complex128.
func (g *Gram) Upcast(in, out cuda.DevicePtr, n int64) error {
	return g.upcast.Launch(cuda.Grid1(int(n), 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, g.s, in, out, n)
}
