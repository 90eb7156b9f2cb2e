// vis_fused.cuh: gram_fused, the fused beam+tau+Z+Gram path. Part of vis.cu,
// which includes the stages in order after its prologue (the real and complex
// types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its own.
#pragma once

// ---------------------------------------------------------------------------
// Beam, tau, Z and the Gram product in one kernel (compiled when FG_MT is
// defined; precision 1, M = nf·nant ≤ 32·FG_MT). For small M the cuBLAS
// product is short next to writing Z to device memory and reading it back
// (at M = 128 the Z of 10⁵ sources is 205 MB even in complex64), so here Z
// never leaves shared memory. Each block takes slices of FG_TS sources
// (grid stride) and has two kinds of warps:
//  - FG_NP producer warps compute a slice's Z columns (column k*FG_TS + s
//    holds Z[·, (k, s)], complex64) as beam_tau_z does, into one of
//    FG_NBUF shared buffers. The beam gathers need many warps in flight
//    (they are L1-bound), so the producers are most of the block;
//  - FG_NC consumer warps accumulate conj(Z_r)·Z_c over the slice. The
//    lower triangle is cut into 32×16 tiles (row block ti, column block
//    tj ≤ 2ti+1: only the diagonal tiles do redundant work); consumer warp
//    c takes tiles c, c+FG_NC, …, one at a time, its accumulators kept in
//    shared memory between slices, so a consumer needs few registers and
//    the register file goes to the producers.
// Named barriers hand the Z buffers over (FULL: producers → consumers,
// EMPTY: back), so Z production runs while the tensor cores work. Each
// block writes its partial sum to part[block][r + c*M]; gram_reduce adds
// the blocks in double. Rows and columns past M read zeros and are not
// written.
//
// The products run on the tensor cores as three products per term of
// split operands (x = big + small; big·big + big·small + small·big,
// float32 accumulation): float32-level accuracy — one product of 11-bit
// operands (plain TF32 or FP16) is not, and is never used. The splits are
// TF32 (below) or, with FG_F16, FP16 of power-of-two-scaled values (the
// default: twice the K per tensor-core instruction). The complex product
// is a real one over k' = (column, Re|Im): with X = Re Z, Y = Im Z,
//   Re C = Xᵀ X + Yᵀ Y,  Im C = Xᵀ Y − Yᵀ X,
// i.e. Aᵀ·B1 and Aᵀ·B2 with A = B1 = (X; Y) and B2 = (Y; −X). In one
// m16n8k8 step the 8 values of k' are 4 columns × (Re, Im): lane
// (g = lane/4, t = lane%4) holds column 4s+t's Re in k' slot t and its Im
// in slot t+4, so one 8-byte shared load gives both halves of a fragment.
#if !defined(FG_NP) || !defined(FG_NC) || !defined(FG_NBUF)
#error "FG_NP, FG_NC, FG_NBUF: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
#ifdef FG_MT
// FG_MT and FG_TS are the run's (matvis/gpu's fgMT, fgTS), given with it.
#ifndef FG_TS
#error "FG_TS: matvis/gpu passes it with FG_MT"
#endif
#define FG_THREADS (32 * (FG_NC + FG_NP))
// Named barriers 1 .. 2·FG_NBUF (FULL and EMPTY per buffer) of the 16.
static_assert(2 * FG_NBUF < 16, "FG_NBUF: at most 7 Z buffers (named barriers)");
#define FG_NTILE (FG_MT * (FG_MT + 1))  // 32×16 tiles of the lower triangle
// Row stride of a shared Z column (complex values). ≡ 4 (mod 16): the
// fragment loads of a half-warp (4 columns × 4 rows, 8 bytes each) fall in
// distinct banks.
#define FG_MP (32 * FG_MT + 4)
#define FG_BUF (2 * FG_TS * FG_MP)  // complex values per Z buffer

// split_tf32: x ≈ big + small, both rounded to TF32 (round to nearest).
__device__ __forceinline__ void split_tf32(float x, unsigned* big, unsigned* small) {
  unsigned b, s;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b) : "f"(x));
  const float r = x - __uint_as_float(b);
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(s) : "f"(r));
  *big = b, *small = s;
}

// d += a·b, one m16n8k8 TF32 tensor-core product, float32 accumulation.
__device__ __forceinline__ void mma_tf32(float d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#ifdef FG_F16
// The FP16 variant (FG_F16): each float32 value x·scale (scale a power of
// two that brings |x·scale| to ≤ 1) is split into two FP16 parts
// (tc_f16.cuh) and m16n8k16 FP16 products — twice the K of an m16n8k8
// TF32 product at the same tensor-core cycle count — are summed in
// float32. k' runs over 8 columns × (Re, Im): lane (g, t) holds column
// 8s+t's (Re, Im) in k' slots 2t, 2t+1 and column 8s+4+t's in 2t+8, 2t+9,
// one f16x2 register each (first element in the low half).
#include "tc_f16.cuh"
#endif

// mma_pass: one tensor-core product (the variant's: FP16 with FG_F16,
// else TF32) into each of a 32×16 tile's 8 accumulators [m-tile][n-tile]
// [Re C | Im C], with A fragments a[m-tile] and B fragments
// b[n-tile][Re C | Im C].
__device__ __forceinline__ void mma_pass(float acc[2][2][2][4], const unsigned a[2][4], const unsigned b[2][2][2]) {
#pragma unroll
  for (int mi = 0; mi < 2; mi++)
#pragma unroll
    for (int ni = 0; ni < 2; ni++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
#ifdef FG_F16
        mma_f16(acc[mi][ni][h], a[mi], b[ni][h][0], b[ni][h][1]);
#else
        mma_tf32(acc[mi][ni][h], a[mi], b[ni][h][0], b[ni][h][1]);
#endif
      }
}

// Named barriers (0 is __syncthreads): FULL of buffer b is 1 + b, EMPTY
// is 1 + FG_NBUF + b; every thread of the block takes part in each.
__device__ __forceinline__ void bar_sync(int id) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(FG_THREADS) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(FG_THREADS) : "memory");
}

// Producer: the Z columns of one slice into buffer zb.
__device__ __forceinline__ void fused_produce(float2* zb, int slice, int ptid, int n, int p0, const real* ce,
    const real* cn, const real* cu, const double* amp, int nant, const double* antpos, const int* beamOf,
    const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
    int polarized, int feedY, double omega) {
  // Thread = (source of the slice, antenna group): consecutive lanes take
  // consecutive sources in the (zenith band, azimuth) order, as in
  // beam_tau_z, so the beam gathers coalesce.
  const int groups = 32 * FG_NP / FG_TS;
  const int sl = ptid % FG_TS, ag = ptid / FG_TS;
  const int apg = (nant + groups - 1) / groups;
  const int a0 = ag * apg, a1 = min(a0 + apg, nant);
  const int s = slice * FG_TS + sl;
  const int nf = polarized ? 2 : 1;
  if (s < n) {
    const long long q = p0 + s;
    const double e = (double)ce[q], nn = (double)cn[q], u = (double)cu[q];
    const double am = amp[q];
    SrcBeam sb;
    src_beam_init(sb, e, nn);
    for (int a = a0; a < a1; a++) {
      src_beam_eval(sb, beamOf[a], bdesc, gdesc, coef, polarized, feedY);
      double pr, pi;
      phasor(antpos, a, omega, e, nn, u, am, &pr, &pi);
      if (polarized) {
#pragma unroll
        for (int f = 0; f < 2; f++)
#pragma unroll
          for (int k = 0; k < 2; k++) zb[(k * FG_TS + sl) * FG_MP + a * 2 + f] = zval<float2>(sb.v[2 * f + k], pr, pi);
      } else {
        zb[sl * FG_MP + a] = zval<float2>(sb.v[0], pr, pi);
      }
    }
    return;
  }
  for (int a = a0; a < a1; a++)
    for (int f = 0; f < nf; f++)
      for (int k = 0; k < nf; k++) zb[(k * FG_TS + sl) * FG_MP + a * nf + f] = make_float2(0.f, 0.f);
}

#ifdef FG_STACKED
// Stacked beams (FG_STACKED, polarized runs whose beams are all gridded on
// one grid geometry, gdesc[0]): coef holds, per grid node, the 4
// components of each of FG_NBP beams (padded with zeros) together,
// coef[(node*FG_NBP + b)*4 + c]. One warp interpolates all beams at one
// source: lane l takes the 16-byte pieces l, l+32, … of a node's row (piece
// p: beam p/2, components 2(p%2) and 2(p%2)+1), so each load of the warp
// reads 512 contiguous bytes; the per-thread gathers of beam_tau_z read
// scattered 16-byte pieces of 32 sources, which makes them L1-bound.
#define FG_PIECES (FG_NBP * 2)
#define FG_PR ((FG_PIECES + 31) / 32)  // pieces per lane

// A source's spline footprint on the common grid: row offsets (×naz),
// columns and weights, and the taps per axis (order+1; 0: outside the
// grid). gram_foot writes one per source of the chunk before gram_fused,
// so the producers do no trigonometry (which would otherwise be done by
// every warp at every source, in double).
struct FusedFoot {
  int row[4], col[4];
  float wz[4], wa[4];
  int taps;
};
static_assert(sizeof(FusedFoot) == FUSED_FOOT_BYTES, "FusedFoot: matvis/gpu allocates FUSED_FOOT_BYTES per source");

extern "C" __global__ void gram_foot(int n, int p0, const real* ce, const real* cn, const GeomDesc* __restrict__ gdesc,
                                     FusedFoot* foot) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const long long q = p0 + s;
  double az, za;
  azza((double)ce[q], (double)cn[q], &az, &za);
  const GeomDesc g = gdesc[0];
  FusedFoot f;
  int row[4] = {0, 0, 0, 0}, col[4] = {0, 0, 0, 0};
  real wz[4] = {0, 0, 0, 0}, wa[4] = {0, 0, 0, 0};
  f.taps = grid_footprint(g, az, za, row, col, wz, wa) ? g.order + 1 : 0;
#pragma unroll
  for (int k = 0; k < 4; k++) f.row[k] = row[k], f.col[k] = col[k], f.wz[k] = wz[k], f.wa[k] = wa[k];
  foot[s] = f;
}

// fused_produce_stacked: the Z columns of one slice into zb. pw is the
// producer warp, bvw its FG_PIECES float4 of beam values; foot the
// chunk's footprints (gram_foot).
__device__ __forceinline__ void fused_produce_stacked(float2* zb, float4* bvw, const FusedFoot* __restrict__ foot,
    int slice, int pw, int lane, int n, int p0, const real* ce, const real* cn, const real* cu, const double* amp,
    int nant, const double* antpos, const int* beamOf, const float2* __restrict__ coef, double omega) {
  const float4* c4 = reinterpret_cast<const float4*>(coef);
  for (int sl = pw; sl < FG_TS; sl += FG_NP) {
    const int s = slice * FG_TS + sl;
    if (s >= n) {
      for (int a = lane; a < nant; a += 32)
#pragma unroll
        for (int f = 0; f < 2; f++)
#pragma unroll
          for (int k = 0; k < 2; k++) zb[(k * FG_TS + sl) * FG_MP + a * 2 + f] = make_float2(0.f, 0.f);
      continue;
    }
    // Beam values of every beam at this source (as src_beam_eval: row
    // sums weighted by wa, then by wz).
    float4 v[FG_PR];
#pragma unroll
    for (int r = 0; r < FG_PR; r++) v[r] = make_float4(0.f, 0.f, 0.f, 0.f);
    const FusedFoot* fp = foot + s;
    const int taps = fp->taps;
    for (int i = 0; i < taps; i++) {
      float4 rs[FG_PR];
#pragma unroll
      for (int r = 0; r < FG_PR; r++) rs[r] = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int j = 0; j < taps; j++) {
        const float w = fp->wa[j];
        const float4* node = c4 + (long long)(fp->row[i] + fp->col[j]) * FG_PIECES;
#pragma unroll
        for (int r = 0; r < FG_PR; r++) {
          const int pc = lane + 32 * r;
          if (pc < FG_PIECES) {
            const float4 t = __ldg(node + pc);
            rs[r].x += w * t.x, rs[r].y += w * t.y, rs[r].z += w * t.z, rs[r].w += w * t.w;
          }
        }
      }
      const float w = fp->wz[i];
#pragma unroll
      for (int r = 0; r < FG_PR; r++) v[r].x += w * rs[r].x, v[r].y += w * rs[r].y, v[r].z += w * rs[r].z, v[r].w += w * rs[r].w;
    }
#pragma unroll
    for (int r = 0; r < FG_PR; r++)
      if (lane + 32 * r < FG_PIECES) bvw[lane + 32 * r] = v[r];
    __syncwarp();
    // Z of every antenna: its beam's 4 components times its phasor.
    const long long q = p0 + s;
    const double e = (double)ce[q], nn = (double)cn[q], u = (double)cu[q];
    const double am = amp[q];
    for (int a = lane; a < nant; a += 32) {
      const int b = beamOf[a];
      const float4 lo = bvw[2 * b], hi = bvw[2 * b + 1];
      const creal c[4] = {cmake<real>(lo.x, lo.y), cmake<real>(lo.z, lo.w), cmake<real>(hi.x, hi.y), cmake<real>(hi.z, hi.w)};
      double pr, pi;
      phasor(antpos, a, omega, e, nn, u, am, &pr, &pi);
#pragma unroll
      for (int f = 0; f < 2; f++)
#pragma unroll
        for (int k = 0; k < 2; k++) zb[(k * FG_TS + sl) * FG_MP + a * 2 + f] = zval<float2>(c[2 * f + k], pr, pi);
    }
    __syncwarp();  // bvw is rewritten for the next source
  }
}
#endif

// tile_of gives the row and column blocks of 32×16 tile t of the lower
// triangle (row block ti has column blocks 0..2ti+1).
__device__ __forceinline__ void tile_of(int t, int* ti, int* tj) {
  int i = 0;
  while ((i + 1) * (i + 2) <= t) i++;
  *ti = i, *tj = t - i * (i + 1);
}

extern "C" __global__ void __launch_bounds__(FG_THREADS, 1) gram_fused(int n, int p0, const real* ce, const real* cn,
    const real* cu, const double* amp, int nant, const double* antpos, const int* beamOf,
    const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
    int polarized, int feedY, double omega, int M, float2* __restrict__ part, const void* __restrict__ footv,
    float zscale) {
  // footv: the chunk's footprints (gram_foot) on the stacked path.
  // FG_NBUF Z buffers, then the tiles' accumulators: tile t's 8 float4
  // (m-tile, n-tile, Re|Im) of lane l at accs[(t*8 + q4)*32 + l].
  extern __shared__ __align__(16) float2 zs[];
  float4* accs = reinterpret_cast<float4*>(zs + FG_NBUF * FG_BUF);
#ifdef FG_STACKED
  // Then per producer warp its beam values.
  float4* bv = accs + FG_NTILE * 8 * 32;
#endif
  const int tid = threadIdx.x;
  for (int i = tid; i < FG_NBUF * FG_BUF; i += FG_THREADS) zs[i] = make_float2(0.f, 0.f);
  for (int i = tid; i < FG_NTILE * 8 * 32; i += FG_THREADS) accs[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  __syncthreads();
  const int nslice = (n + FG_TS - 1) / FG_TS;
  const int niter = blockIdx.x < nslice ? (nslice - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int w = tid >> 5, lane = tid & 31;

  if (w >= FG_NC) {
    // Producer warps. Iteration i fills buffer i % FG_NBUF once the
    // consumers have released it (from iteration i − FG_NBUF).
    for (int i = 0; i < niter; i++) {
      const int b = i % FG_NBUF;
      if (i >= FG_NBUF) bar_sync(1 + FG_NBUF + b);
#ifdef FG_STACKED
      const int pw = w - FG_NC;
      fused_produce_stacked(zs + b * FG_BUF, bv + pw * FG_PIECES, reinterpret_cast<const FusedFoot*>(footv),
                            blockIdx.x + i * gridDim.x, pw, lane, n, p0, ce, cn, cu, amp, nant, antpos, beamOf, coef, omega);
#else
      fused_produce(zs + b * FG_BUF, blockIdx.x + i * gridDim.x, tid - 32 * FG_NC, n, p0, ce, cn, cu, amp, nant,
                    antpos, beamOf, bdesc, gdesc, coef, polarized, feedY, omega);
#endif
      bar_arrive(1 + b);
    }
    return;
  }

  // Consumer warp w: tiles w, w + FG_NC, … as two 16-row m-tiles × two
  // 8-column n-tiles of m16n8 fragments, real and imaginary.
  const int g = lane >> 2, t4 = lane & 3;
  const int ncol = (polarized ? 2 : 1) * FG_TS;
  for (int i = 0; i < niter; i++) {
    const int b = i % FG_NBUF;
    bar_sync(1 + b);
    const float2* zb = zs + b * FG_BUF;
    for (int t = w; t < FG_NTILE; t += FG_NC) {
      int ti, tj;
      tile_of(t, &ti, &tj);
      // The slice's sum starts from zero in registers and is added to the
      // tile's running sum with float32 adds (round to nearest): the
      // tensor cores' own accumulation then covers one slice only.
      float acc[2][2][2][4];
      frag_zero(acc);
#ifdef FG_F16
      for (int k8 = 0; k8 < ncol; k8 += 8) {
        const float2* z0 = zb + (k8 + t4) * FG_MP;
        const float2* z1 = zb + (k8 + 4 + t4) * FG_MP;
        unsigned ab[2][4], as[2][4];
#pragma unroll
        for (int mi = 0; mi < 2; mi++) {
          const int r = ti * 32 + mi * 16 + g;
          const float2 v0 = z0[r], v1 = z0[r + 8], v2 = z1[r], v3 = z1[r + 8];
          split_h2(v0.x * zscale, v0.y * zscale, &ab[mi][0], &as[mi][0]);  // row g, k' 2t, 2t+1
          split_h2(v1.x * zscale, v1.y * zscale, &ab[mi][1], &as[mi][1]);  // row g+8
          split_h2(v2.x * zscale, v2.y * zscale, &ab[mi][2], &as[mi][2]);  // row g, k' 2t+8, 2t+9
          split_h2(v3.x * zscale, v3.y * zscale, &ab[mi][3], &as[mi][3]);  // row g+8
        }
        unsigned bb[2][2][2], bs[2][2][2];
#pragma unroll
        for (int ni = 0; ni < 2; ni++) {
          const int c = tj * 16 + ni * 8 + g;
          const float2 w0 = z0[c], w1 = z1[c];
          split_h2(w0.x * zscale, w0.y * zscale, &bb[ni][0][0], &bs[ni][0][0]);
          split_h2(w1.x * zscale, w1.y * zscale, &bb[ni][0][1], &bs[ni][0][1]);
          bb[ni][1][0] = rot_h2(bb[ni][0][0]), bs[ni][1][0] = rot_h2(bs[ni][0][0]);
          bb[ni][1][1] = rot_h2(bb[ni][0][1]), bs[ni][1][1] = rot_h2(bs[ni][0][1]);
        }
        mma_pass(acc, as, bb);
        mma_pass(acc, ab, bs);
        mma_pass(acc, ab, bb);
      }
      frag_scale(acc, 1.f / (zscale * zscale));  // exact: zscale is a power of two
#else
      for (int k4 = 0; k4 < ncol; k4 += 4) {
        const float2* zc = zb + (k4 + t4) * FG_MP;
        unsigned ab[2][4], as[2][4];
#pragma unroll
        for (int mi = 0; mi < 2; mi++) {
          const float2 lo = zc[ti * 32 + mi * 16 + g], hi = zc[ti * 32 + mi * 16 + g + 8];
          split_tf32(lo.x, &ab[mi][0], &as[mi][0]);  // (row g, k' t): Re
          split_tf32(hi.x, &ab[mi][1], &as[mi][1]);  // (row g+8, k' t)
          split_tf32(lo.y, &ab[mi][2], &as[mi][2]);  // (row g, k' t+4): Im
          split_tf32(hi.y, &ab[mi][3], &as[mi][3]);  // (row g+8, k' t+4)
        }
        // B fragments, big and small: [ni][Re C: B1 | Im C: B2][reg].
        // B1 = (X; Y), B2 = (Y; −X) (TF32 negation is exact).
        unsigned bb[2][2][2], bs[2][2][2];
#pragma unroll
        for (int ni = 0; ni < 2; ni++) {
          const float2 v = zc[tj * 16 + ni * 8 + g];
          unsigned xb, xs, yb, ys;
          split_tf32(v.x, &xb, &xs);
          split_tf32(v.y, &yb, &ys);
          bb[ni][0][0] = xb, bb[ni][0][1] = yb, bs[ni][0][0] = xs, bs[ni][0][1] = ys;
          bb[ni][1][0] = yb, bb[ni][1][1] = xb ^ 0x80000000u, bs[ni][1][0] = ys, bs[ni][1][1] = xs ^ 0x80000000u;
        }
        // Three passes (small·big, big·small, big·big), each over the 8
        // independent accumulators, so consecutive tensor-core products
        // do not wait on each other.
        mma_pass(acc, as, bb);
        mma_pass(acc, ab, bs);
        mma_pass(acc, ab, bb);
      }
#endif
#pragma unroll
      for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 2; ni++)
#pragma unroll
          for (int h = 0; h < 2; h++) {
            float4* p = &accs[(t * 8 + (mi * 2 + ni) * 2 + h) * 32 + lane];
            const float4 v = *p;
            *p = make_float4(v.x + acc[mi][ni][h][0], v.y + acc[mi][ni][h][1], v.z + acc[mi][ni][h][2],
                             v.w + acc[mi][ni][h][3]);
          }
    }
    if (i + FG_NBUF < niter) bar_arrive(1 + FG_NBUF + b);
  }

  // Accumulator q of an m16n8 fragment: row g + 8·(q/2), column 2t + q%2.
  float2* out = part + (long long)blockIdx.x * M * M;
  for (int t = w; t < FG_NTILE; t += FG_NC) {
    int ti, tj;
    tile_of(t, &ti, &tj);
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
      for (int ni = 0; ni < 2; ni++) {
        const float4 re = accs[(t * 8 + (mi * 2 + ni) * 2) * 32 + lane];
        const float4 im = accs[(t * 8 + (mi * 2 + ni) * 2 + 1) * 32 + lane];
        const float vr[4] = {re.x, re.y, re.z, re.w}, vi[4] = {im.x, im.y, im.z, im.w};
#pragma unroll
        for (int q = 0; q < 4; q++) {
          const int r = ti * 32 + mi * 16 + g + 8 * (q >> 1), c = tj * 16 + ni * 8 + 2 * t4 + (q & 1);
          if (r < M && c <= r) out[r + (long long)c * M] = make_float2(vr[q], vi[q]);
        }
      }
  }
}

// gram_reduce adds the nblk partial lower triangles of gram_fused to the
// accumulator acc (lower triangle), summed in double. Eight loads in
// flight per thread: the partials are read once, from L2 when they fit.
extern "C" __global__ void gram_reduce(int nblk, int M, const float2* __restrict__ part, ACC_T* acc) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= M * M) return;
  const int r = t % M, c = t / M;
  if (r < c) return;
  const long long mm = (long long)M * M;
  double sx[8], sy[8];
#pragma unroll
  for (int h = 0; h < 8; h++) sx[h] = 0, sy[h] = 0;
  int b = 0;
  for (; b + 8 <= nblk; b += 8) {
#pragma unroll
    for (int h = 0; h < 8; h++) {
      float2 v = part[(b + h) * mm + t];
      sx[h] += v.x, sy[h] += v.y;
    }
  }
  for (; b < nblk; b++) {
    float2 v = part[b * mm + t];
    sx[0] += v.x, sy[0] += v.y;
  }
  double x = 0, y = 0;
#pragma unroll
  for (int h = 0; h < 8; h++) x += sx[h], y += sy[h];
  acc[t].x += x;
  acc[t].y += y;
}
#endif
