package nufftgpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/cudaemu"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// emuDriver runs nufft.cu's stages as the device path does — nu_place on
// raw coordinates, nu_spread, nu_deconv, an FFT, nu_interp into results
// interleaved per target — on the host (internal/cudaemu), with a plain
// O(N²)-per-line DFT in cuFFT's place (exp(sign·2πi·jk/N), unnormalized,
// row-major: cuda.FFT.Exec's definition). Input on stdin, little-endian:
// n, m, nf[3], n2[3], sign (int64); β, point scale[3], shift[3], lo[3],
// hi[3] (float64); the NU_DIM point axes (n reals each); the strengths
// (NU_NV·n complex); the targets' first indices (NU_DIM·m int32),
// offsets (NU_DIM·m reals), post-phases (m complex) and order (m int32);
// the three deconvolution factors (nf[d] reals, 1 for an inactive axis).
// Output: the NU_NV·m interleaved results.
const emuDriver = `
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "nufft.cu"

template <class T> std::vector<T> rd(long long n) {
  std::vector<T> v(n > 0 ? n : 1);
  if (n > 0 && fread(v.data(), sizeof(T), n, stdin) != (size_t)n) { fprintf(stderr, "short input\n"); std::exit(2); }
  return v;
}

// dft transforms axis a of the row-major array g (dims n) in place.
static void dft(cplx* g, const int n[3], int a, int sign) {
  long long stride = 1;
  for (int d = a + 1; d < 3; d++) stride *= n[d];
  long long total = (long long)n[0] * n[1] * n[2];
  std::vector<double> re(n[a]), im(n[a]), tc(n[a]), ts(n[a]);
  for (int r = 0; r < n[a]; r++) tc[r] = cos(sign * 2 * PI * r / n[a]), ts[r] = sin(sign * 2 * PI * r / n[a]);
  for (long long base = 0; base < total; base++) {
    if ((base / stride) % n[a] != 0) continue;  // the first of its line
    for (int k = 0; k < n[a]; k++) {
      double sr = 0, si = 0;
      for (int j = 0; j < n[a]; j++) {
        const int r = (int)((long long)j * k % n[a]);
        cplx v = g[base + j * stride];
        sr += v.x * tc[r] - v.y * ts[r];
        si += v.x * ts[r] + v.y * tc[r];
      }
      re[k] = sr, im[k] = si;
    }
    for (int k = 0; k < n[a]; k++) g[base + k * stride] = cmake<real>((real)re[k], (real)im[k]);
  }
}

int main() {
  long long h[9];
  if (fread(h, 8, 9, stdin) != 9) return 2;
  long long n = h[0], m = h[1];
  int nf[3] = {(int)h[2], (int)h[3], (int)h[4]}, n2[3] = {(int)h[5], (int)h[6], (int)h[7]};
  int sign = (int)h[8];
  double p[13];
  if (fread(p, 8, 13, stdin) != 13) return 2;
  std::vector<real> x[3];
  for (int d = 0; d < NU_DIM; d++) x[d] = rd<real>(n);
  for (int d = NU_DIM; d < 3; d++) x[d] = x[0];
  auto c = rd<cplx>(NU_NV * n);
  auto qfirst = rd<int>(NU_DIM * m);
  auto qoff = rd<real>(NU_DIM * m);
  auto post = rd<cplx>(m);
  auto qorder = rd<int>(m);
  std::vector<real> dc[3];
  for (int d = 0; d < 3; d++) dc[d] = rd<real>(nf[d]);
  const int thr = 256;
  std::vector<int> first(NU_DIM * n), order(n);
  std::vector<real> off(NU_DIM * n);
  std::vector<cplx> pre(n);
  EMU_LAUNCH(nu_place, (n + thr - 1) / thr, thr, n, x[0].data(), x[1].data(), x[2].data(), p[1], p[2], p[3], p[4], p[5],
             p[6], p[7], p[8], p[9], p[10], p[11], p[12], first.data(), off.data(), order.data(), pre.data());
  long long G = (long long)nf[0] * nf[1] * nf[2], P = (long long)n2[0] * n2[1] * n2[2];
  std::vector<real> grid(2 * NU_NV * G, 0);
  EMU_LAUNCH(nu_spread, (n + thr - 1) / thr, thr, n, c.data(), order.data(), pre.data(), first.data(), off.data(), p[0],
             grid.data(), nf[0], nf[1], nf[2]);
  std::vector<cplx> pad(NU_NV * P, cmake<real>(0, 0));
  EMU_LAUNCH(nu_deconv, (G + thr - 1) / thr, thr, G, (const cplx*)grid.data(), dc[0].data(), dc[1].data(), dc[2].data(),
             pad.data(), nf[0], nf[1], nf[2], n2[0], n2[1], n2[2]);
  for (int q = 0; q < NU_NV; q++)
    for (int a = 0; a < 3; a++)
      if (n2[a] > 1) dft(pad.data() + q * P, n2, a, sign);
  std::vector<cplx> f(NU_NV * m);
  EMU_LAUNCH(nu_interp, (m + thr - 1) / thr, thr, m, pad.data(), qfirst.data(), qoff.data(), post.data(), qorder.data(),
             p[0], n2[0], n2[1], n2[2], 1LL, (long long)NU_NV, f.data());
  fwrite(f.data(), sizeof(cplx), f.size(), stdout);
  return 0;
}
`

// emuInput encodes a plan's layout, the raw points x and strengths c in
// emuDriver's format, reals in precision prec.
func emuInput(l nufft.Layout, x [][]float64, c []complex128, prec Precision) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	reals := func(v []float64) {
		if prec == Single {
			f := make([]float32, len(v))
			for i, r := range v {
				f[i] = float32(r)
			}
			w(f)
			return
		}
		w(v)
	}
	cplxs := func(v []complex128) {
		if prec == Single {
			w(toComplex64(v))
			return
		}
		w(v)
	}
	w([]int64{int64(len(x[0])), int64(l.M), int64(l.NF[0]), int64(l.NF[1]), int64(l.NF[2]), int64(l.N2[0]), int64(l.N2[1]), int64(l.N2[2]), int64(l.Sign)})
	par := []float64{l.Beta}
	par = append(par, l.PointScale[:]...)
	par = append(par, l.PointShift[:]...)
	for d := range 3 {
		par = append(par, l.PointLo[d]-placeMargin)
	}
	for d := range 3 {
		par = append(par, l.PointHi[d]+placeMargin)
	}
	w(par)
	for d := range l.Dim {
		reals(x[d])
	}
	cplxs(c)
	first, off := splitCoords(l.Q, l.Dim, l.M, l.W)
	w(first)
	reals(off)
	cplxs(l.Post)
	w(l.QOrder)
	for d := range 3 {
		dc := []float64{1}
		if d < l.Dim {
			dc = l.Deconv[d]
		}
		reals(dc)
	}
	return b.Bytes()
}

// TestHostEmulation runs nufft.cu's kernels on the host (internal/cudaemu:
// the file compiled by g++ against a mock of CUDA's dialect, one thread
// at a time, a plain DFT for cuFFT) the way the GPU backend's path runs
// them — points placed from raw coordinates by nu_place, two strength
// vectors, results interleaved per target — and compares with the direct
// sum: within bound(ε), 2-D and 3-D, fp64 and fp32, targets off centre
// on the plan made with Options.Real. No device: it checks the kernels'
// arithmetic and indexing; NVRTC and the device's atomics are
// TestPlaceRetarget's.
func TestHostEmulation(t *testing.T) {
	rng := sharedtest.RNG(t, 43)
	for _, tc := range []struct {
		dim  int
		prec Precision
		eps  float64
	}{{2, Double, 1e-9}, {2, Single, 1e-5}, {3, Double, 1e-9}, {3, Single, 1e-5}} {
		const nv = 2
		box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}[:tc.dim]
		_, _, s := nufftest.Problem(rng, tc.dim, 1, 120, 1, 25, 0, 3)
		pl, err := nufft.NewPlan(box, s, nufft.Options{Eps: tc.eps, Sign: 1, Real: true})
		if err != nil {
			t.Fatal(err)
		}
		l := pl.Layout()
		const n = 700
		x, c := boxProblem(rng, box, n, nv) // x[0][3] a rounding past the edge: placed where it is
		rt := map[Precision]string{Single: "float", Double: "double"}[tc.prec]
		bin := cudaemu.Build(t, emuDriver, cudaemu.ProgramFiles(t, kernelFiles, "nufft.cu"), "-DR_T="+rt, fmt.Sprintf("-DNU_DIM=%d", tc.dim),
			fmt.Sprintf("-DNU_W=%d", l.W), fmt.Sprintf("-DNU_NV=%d", nv), "-DPI=3.141592653589793238462643383279502884")
		out := cudaemu.Run(t, bin, emuInput(l, x, c, tc.prec))
		got := cudaemu.Complex(t, out, nv*l.M, tc.prec == Single)
		for v := range nv {
			want, err := nufft.Direct(x, c[v*n:(v+1)*n], s, 1)
			if err != nil {
				t.Fatal(err)
			}
			col := make([]complex128, l.M)
			for k := range col {
				col[k] = got[k*nv+v]
			}
			e := nufftest.RelErr(col, want)
			t.Logf("%d-D %v eps=%g vector %d, grid %v kernel %d: vs direct %.3g (%.2f eps)", tc.dim, tc.prec, tc.eps, v, l.N2[:tc.dim], l.W, e, e/tc.eps)
			if !(e <= bound(tc.eps, tc.prec)) || math.IsNaN(e) {
				t.Errorf("%d-D %v eps=%g vector %d: vs direct %.3g > %.3g", tc.dim, tc.prec, tc.eps, v, e, bound(tc.eps, tc.prec))
			}
		}
	}
}

// TestOutputStrides: the strides nu_interp writes with put vector v of
// target k at v·m + k (Execute) or k·nv + v (ExecuteInterleaved), every
// place once.
func TestOutputStrides(t *testing.T) {
	const m, nv = 7, 4
	for _, inter := range []bool{false, true} {
		vs, ts := outputStrides(inter, m, nv)
		seen := map[int64]bool{}
		for v := range int64(nv) {
			for k := range int64(m) {
				want := v*m + k
				if inter {
					want = k*nv + v
				}
				if got := v*vs + k*ts; got != want || seen[got] {
					t.Fatalf("interleaved %v: vector %d target %d at %d, want %d once", inter, v, k, got, want)
				}
				seen[v*vs+k*ts] = true
			}
		}
	}
}
