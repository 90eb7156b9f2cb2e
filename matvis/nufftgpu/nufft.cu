// nufft.cu: the device stages of the type-3 non-uniform FFT of
// matvis/nufftgpu (the method of Barnett, Magland & af Klinteberg, SIAM J.
// Sci. Comput. 41(5), C479-C504, 2019, planned on the host by
// matvis/nufft): spreading of the pre-phased strengths onto the outer grid,
// deconvolution into the padded grid, and interpolation of the FFT-ed
// padded grid at the targets with the post-phase and kernel correction.
//
// Compiled once per transform shape: R_T (float or double), NU_DIM (1, 2
// or 3 active axes), NU_W (the kernel's width in grid points) and NU_NV
// (the strength vectors transformed together) come as -D macros, so that
// the per-axis weight arrays and the per-vector values have compile-time
// sizes and stay in registers. The NU_NV vectors share the points and
// targets (a polarized sky's feed-pair products): each kernel weight is
// computed once for all of them. Vector v's strengths, grids and results
// are the v-th of NU_NV equal blocks of their buffers.
#include "common.cuh"

#ifndef R_T
#error "R_T (float or double) must be defined"
#endif
#ifndef NU_DIM
#define NU_DIM 2
#endif
#ifndef NU_W
#define NU_W 8
#endif
#ifndef NU_NV
#define NU_NV 1
#endif

typedef R_T real;
typedef C<R_T> cplx;

// Kernel widths per axis: an inactive axis has one point of weight 1.
#define NU_W0 NU_W
#define NU_W1 (NU_DIM >= 2 ? NU_W : 1)
#define NU_W2 (NU_DIM >= 3 ? NU_W : 1)

__device__ __forceinline__ float exp_r(float x) { return expf(x); }
__device__ __forceinline__ double exp_r(double x) { return exp(x); }

// weight is φ(2·x/W), φ(z) = exp(β(√(1−z²) − 1)) on |z| < 1, for a grid
// point x = off + a cells from the point (the host split each coordinate
// into an integer first index and the small offset off = first − x, in
// double, so that in float the weights lose nothing to the size of the
// coordinate: a coordinate of 4000 cells in float would be off by 2e-4 of
// a cell, far above an fp32 ε).
__device__ __forceinline__ real weight(real x, real beta) {
  const real z = x * (real(2) / real(NU_W));
  const real arg = real(1) - z * z;
  return arg > real(0) ? exp_r(beta * (sqrt_r(arg) - real(1))) : real(0);
}

// weights fills wt[a] = weight(off + a) for the W grid points from first.
template <int W>
__device__ __forceinline__ void weights(real wt[W], real off, real beta) {
#pragma unroll
  for (int a = 0; a < W; a++) wt[a] = weight(off + real(a), beta);
}

// axisWeights loads axis d's first index and weights of item i (one of n),
// or index 0 and weight 1 when the axis is inactive.
template <int W>
__device__ __forceinline__ int axisWeights(real wt[W], int d, long long i, long long n, const int* first,
                                           const real* off, real beta) {
  if (W == 1) {
    wt[0] = real(1);
    return 0;
  }
  weights<W>(wt, off[d * n + i], beta);
  return first[d * n + i];
}

// The outermost axis (0, always active) is looped over, not unrolled, its
// weight computed in the loop: unrolling all three axes of a 3-D kernel
// of width 13 for 4 vectors (8788 atomics) took NVRTC minutes (seen
// 2026-12-01); the two inner axes, unrolled, keep their weights in
// registers.

// wrapIndex reduces i into [0, n): the kernels reach at most W < n points
// past either edge.
__device__ __forceinline__ int wrapIndex(int i, int n) {
  if (i < 0) return i + n;
  if (i >= n) return i - n;
  return i;
}

// nu_spread adds each sorted point's pre-phased strength c[perm[i]]·pre[i]
// times the kernel into the outer grid (nf0·nf1·nf2 complex values,
// interleaved re/im, zeroed by the caller), for each of the NU_NV vectors.
// One thread per point.
//
// Race-free by atomics: neighbouring points share grid cells, and the adds
// are atomicAdd on each real part, which the hardware serializes per cell
// (native for float and, from sm_60, for double). The points are in grid-bin
// order (matvis/nufft's binOrder), so a warp's adds land in a few cache
// lines of L2, where the atomics are resolved. Only the summation order
// varies between runs: the results differ by rounding, not by a race.
extern "C" __global__ void nu_spread(long long n, const cplx* c, const int* perm, const cplx* pre, const int* first,
                                     const real* off, double beta, real* grid, int nf0, int nf1, int nf2) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const real b = real(beta);
  real w1[NU_W1], w2[NU_W2];
  const int f0 = first[i];
  const real o0 = off[i];
  int f1 = axisWeights<NU_W1>(w1, 1, i, n, first, off, b);
  int f2 = axisWeights<NU_W2>(w2, 2, i, n, first, off, b);
  const long long gridSize = (long long)nf0 * nf1 * nf2;
  const cplx ph = pre[i];
  const int j = perm[i];
  cplx v[NU_NV];
#pragma unroll
  for (int q = 0; q < NU_NV; q++) v[q] = cmul<real>(c[q * n + j], ph);
#pragma unroll 1
  for (int a0 = 0; a0 < NU_W0; a0++) {
    int r0 = wrapIndex(f0 + a0, nf0);
    const real w0 = weight(o0 + real(a0), b);
#pragma unroll
    for (int a1 = 0; a1 < NU_W1; a1++) {
      int r1 = wrapIndex(f1 + a1, nf1);
      real w01 = w0 * w1[a1];
      long long row = ((long long)r0 * nf1 + r1) * nf2;
#pragma unroll
      for (int a2 = 0; a2 < NU_W2; a2++) {
        long long k = row + wrapIndex(f2 + a2, nf2);
        real wt = w01 * w2[a2];
#pragma unroll
        for (int q = 0; q < NU_NV; q++) {
          atomicAdd(&grid[2 * (q * gridSize + k)], v[q].x * wt);
          atomicAdd(&grid[2 * (q * gridSize + k) + 1], v[q].y * wt);
        }
      }
    }
  }
}

// padIndex is outer-grid index i of an axis of nf points placed on the
// padded axis of n2: mode i − nf/2, wrapped (matvis/nufft's deconvolveInto).
__device__ __forceinline__ int padIndex(int i, int nf, int n2) {
  int m = i - nf / 2;
  return m < 0 ? m + n2 : m;
}

// nu_deconv writes every outer-grid value times the three axes'
// deconvolution factors to its place in the padded grid (zeroed by the
// caller: the rest of it stays zero), for each of the NU_NV vectors. One
// thread per outer-grid value.
extern "C" __global__ void nu_deconv(long long nout, const cplx* grid, const real* d0, const real* d1, const real* d2,
                                     cplx* pad, int nf0, int nf1, int nf2, int n20, int n21, int n22) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nout) return;
  int i2 = (int)(i % nf2);
  long long r = i / nf2;
  int i1 = (int)(r % nf1);
  int i0 = (int)(r / nf1);
  real s = d0[i0] * d1[i1] * d2[i2];
  long long k = ((long long)padIndex(i0, nf0, n20) * n21 + padIndex(i1, nf1, n21)) * n22 + padIndex(i2, nf2, n22);
  const long long padSize = (long long)n20 * n21 * n22;
#pragma unroll
  for (int q = 0; q < NU_NV; q++) pad[q * padSize + k] = cscale<real>(grid[q * nout + i], s);
}

// nu_interp evaluates, for each sorted target i and each of the NU_NV
// vectors, the kernel-weighted sum of the transformed padded grid around
// it, times post[i], into f[q·vstride + qorder[i]·tstride] (the caller's
// order; vstride m, tstride 1: one block per vector; vstride 1, tstride
// NU_NV: each target's vectors together). One thread per target; sums in
// R_T.
extern "C" __global__ void nu_interp(long long m, const cplx* pad, const int* first, const real* off, const cplx* post,
                                     const int* qorder, double beta, int n20, int n21, int n22, long long vstride,
                                     long long tstride, cplx* f) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const real b = real(beta);
  real w1[NU_W1], w2[NU_W2];
  const int f0 = first[i];
  const real o0 = off[i];
  int f1 = axisWeights<NU_W1>(w1, 1, i, m, first, off, b);
  int f2 = axisWeights<NU_W2>(w2, 2, i, m, first, off, b);
  const long long padSize = (long long)n20 * n21 * n22;
  cplx sum[NU_NV];
#pragma unroll
  for (int q = 0; q < NU_NV; q++) sum[q] = cmake<real>(0, 0);
#pragma unroll 1
  for (int a0 = 0; a0 < NU_W0; a0++) {
    int r0 = wrapIndex(f0 + a0, n20);
    const real w0 = weight(o0 + real(a0), b);
#pragma unroll
    for (int a1 = 0; a1 < NU_W1; a1++) {
      int r1 = wrapIndex(f1 + a1, n21);
      long long row = ((long long)r0 * n21 + r1) * n22;
      real w01 = w0 * w1[a1];
#pragma unroll
      for (int a2 = 0; a2 < NU_W2; a2++) {
        long long k = row + wrapIndex(f2 + a2, n22);
        real wt = w01 * w2[a2];
#pragma unroll
        for (int q = 0; q < NU_NV; q++) {
          cplx g = pad[q * padSize + k];
          sum[q].x += g.x * wt;
          sum[q].y += g.y * wt;
        }
      }
    }
  }
  const cplx ph = post[i];
  const int j = qorder[i];
#pragma unroll
  for (int q = 0; q < NU_NV; q++) f[q * vstride + j * tstride] = cmul<real>(ph, sum[q]);
}

// nu_place places n points whose coordinates another kernel made on the
// device (x0, x1, x2: one array per active axis, the caller's order): the
// outer-grid coordinate x·scale + shift (the plan's point map, in double),
// clamped to [lo, hi] — the plan's extent and half a cell of the grid's
// margin (Transform.Place), so that a point a rounding outside is placed
// where it is and one far outside, or NaN, goes there rather than to an
// index off the grid —,
// split into first index and offset as the host does (coords.go), with
// order i and pre-phase 1 (points in the caller's order, targets centred
// at 0). One thread per point.
extern "C" __global__ void nu_place(long long n, const real* x0, const real* x1, const real* x2, double s0, double s1,
                                    double s2, double h0, double h1, double h2, double lo0, double lo1, double lo2,
                                    double hi0, double hi1, double hi2, int* first, real* off, int* order, cplx* pre) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const real* x[3] = {x0, x1, x2};
  const double sc[3] = {s0, s1, s2}, sh[3] = {h0, h1, h2}, lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};
#pragma unroll
  for (int d = 0; d < NU_DIM; d++) {
    double p = fmin(fmax((double)x[d][i] * sc[d] + sh[d], lo[d]), hi[d]);
    double f = ceil(p - 0.5 * NU_W);
    first[d * n + i] = (int)f;
    off[d * n + i] = (real)(f - p);
  }
  order[i] = (int)i;
  pre[i] = cmake<real>(1, 0);
}
