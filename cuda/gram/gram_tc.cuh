// gram_tc.cuh: C = Zᴴ·Z for any M on the FP16 tensor cores at float32
// accuracy (tc_f16.cuh's split operands), reading Z from device memory.
// Part of gram.cu; the tile sizes come from package gram as -D macros.
//
// Z holds the simulator's M rows (antenna-feeds) of K values (sources ×
// axes), each value already scaled by the power of two zscale and split
// into two f16x2 words, big (Re, Im) and small (Re, Im) (tc_split, or the
// simulator's Z kernel, which writes them directly, so the split costs
// neither a pass over Z nor arithmetic in the product's inner loop). Row i
// takes the 8·ldz bytes of a complex64 row, as two planes: its ldz big
// words, then its ldz small words (ldz a multiple of 4). Planes, not
// {big, small} pairs: a fragment's four big words come from four 4-byte
// shared loads straight into the register quad the tensor-core
// instruction reads; from pairs, the compiler spends a move per register.
//
// The lower triangle of C is cut into TC_BT×TC_BT tiles; block b takes
// tile tiles[b / nsplit] (all of the triangle's, or only those that hold
// requested entries: a baseline subset) and the K range b % nsplit, so a
// small M still fills the card. Each block writes its tile's partial sum
// to its own TC_BT×TC_BT slot of part (lower triangle only) and
// gram_tc_reduce adds the splits in double. Blocks of 4 warps, each warp a
// 32×32 corner of the tile; on a diagonal tile the corner strictly above
// the diagonal does nothing and rows and columns share one copy of Z.
//
// Z goes global → shared with cp.async (TC_NSTAGE stages in flight,
// zero-filled past M and K) and one 8-byte shared load gives a fragment register's big and
// small parts. The tensor cores accumulate TC_KT columns in float32
// (their own adds truncate), then that stage's sum is added to the
// running one with ordinary float32 adds, so the truncation covers
// 3·TC_KT/8 products at most.
#pragma once
#include "tc_f16.cuh"

#if !defined(TC_BT) || !defined(TC_WM) || !defined(TC_KT) || !defined(TC_THREADS) || !defined(TC_NSTAGE) || \
    !defined(TC_MINB) || !defined(TC_RB) || !defined(TC_RG)
#error "gram_tc: TC_BT, TC_WM, TC_KT, TC_THREADS, TC_NSTAGE, TC_MINB, TC_RB and TC_RG come from package gram (-D)"
#endif
static_assert(TC_NSTAGE >= 2, "gram_tc: at least two shared-memory stages");
static_assert(TC_BT == 64 && TC_WM == 32 && TC_THREADS == 128, "gram_tc: the warp layout is 2×2 warps of 32×32");
static_assert(TC_KT % 8 == 0, "gram_tc: TC_KT is a multiple of 8 columns (one m16n8k16 K step)");
static_assert(TC_THREADS % (TC_KT / 2) == 0 && TC_BT % (2 * TC_THREADS / TC_KT) == 0, "gram_tc: tc_load's copy layout");

// Row stride of a shared Z plane, in 4-byte words: ≡ 4 (mod 32), so a
// warp's fragment loads (8 rows × 4 columns) hit 32 distinct banks.
#define TC_LDW (TC_KT + 4)
#define TC_PLANE (TC_BT * TC_LDW)  // words of one plane of one half
#define TC_STAGE (4 * TC_PLANE)    // words per stage: rows' big, rows' small, columns' big, columns' small

// cp_async16 copies the first nbytes of the 16 at src (four words) to dst
// and zeros the rest (nbytes 0: past M or K).
__device__ __forceinline__ void cp_async16(unsigned* dst, const unsigned* src, int nbytes) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(nbytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// lds32 loads the 4 bytes at shared address a.
__device__ __forceinline__ unsigned lds32(unsigned a) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}

// tc_load queues the copy of Z's columns k0 … k0+TC_KT−1 of rows r0 … and
// (unless diag) c0 … into stage st, 16 bytes (4 words of one plane) per
// copy: thread t copies piece t % TC_CPR of a row (big plane first) of
// rows t / TC_CPR + j·TC_RPP, so a warp reads whole 128-byte plane
// segments and the per-copy arithmetic is one address step.
#define TC_CPR (TC_KT / 2)            // 16-byte copies per row and stage (both planes)
#define TC_RPP (TC_THREADS / TC_CPR)  // rows per pass of the block
__device__ __forceinline__ void tc_load(unsigned* st, const unsigned* __restrict__ z, long long ldz, int M, int K,
                                        int r0, int c0, int k0, bool diag) {
  const int c = threadIdx.x % TC_CPR, plane = c / (TC_CPR / 2), w = 4 * (c % (TC_CPR / 2)), k = k0 + w;
  const int nb = 4 * max(0, min(4, K - k));
#pragma unroll
  for (int half = 0; half < 2; half++) {
    if (half && diag) break;
    const int base = half ? c0 : r0;
    unsigned* dst = st + (2 * half + plane) * TC_PLANE + (threadIdx.x / TC_CPR) * TC_LDW + w;
#pragma unroll
    for (int j = 0; j < TC_BT / TC_RPP; j++) {
      const int row = base + threadIdx.x / TC_CPR + j * TC_RPP;
      const bool ok = row < M && nb > 0;
      cp_async16(dst + j * TC_RPP * TC_LDW, ok ? z + (2 * (long long)row + plane) * ldz + k : z, ok ? nb : 0);
    }
  }
}

// tc_pass: one product of split operands into each of the warp's 16
// accumulators [m-tile][n-tile][Re C | Im C], consecutive products
// independent of each other.
__device__ __forceinline__ void tc_pass(float acc[2][4][2][4], const unsigned a[2][4], const unsigned b[4][2][2]) {
#pragma unroll
  for (int mi = 0; mi < 2; mi++)
#pragma unroll
    for (int ni = 0; ni < 4; ni++)
#pragma unroll
      for (int h = 0; h < 2; h++) mma_f16(acc[mi][ni][h], a[mi], b[ni][h][0], b[ni][h][1]);
}

// tc_stage adds one stage's product to the warp's running sums: rows sa
// (the warp's 32 rows), columns sb (its 32 columns).
__device__ __forceinline__ void tc_stage(float (&run)[2][4][2][4], const unsigned* sa, const unsigned* sb, int g, int t4) {
  float acc[2][4][2][4];
  frag_zero(acc);
#pragma unroll
  for (int k8 = 0; k8 < TC_KT; k8 += 8) {
    // A fragments (row g or g+8 of an m-tile; k' slots 2t4.. of column
    // k8+t4, 2t4+8.. of column k8+4+t4), big and small planes.
    unsigned ab[2][4], as[2][4];
#pragma unroll
    for (int mi = 0; mi < 2; mi++) {
      const unsigned* p = sa + (mi * 16 + g) * TC_LDW + k8 + t4;
      const int off[4] = {0, 8 * TC_LDW, 4, 8 * TC_LDW + 4};
#pragma unroll
      for (int j = 0; j < 4; j++) ab[mi][j] = p[off[j]], as[mi][j] = p[off[j] + TC_PLANE];
    }
    // B fragments [n-tile][Re C: B1 | Im C: B2][register].
    unsigned bb[4][2][2], bs[4][2][2];
#pragma unroll
    for (int ni = 0; ni < 4; ni++) {
      const unsigned* p = sb + (ni * 8 + g) * TC_LDW + k8 + t4;
#pragma unroll
      for (int j = 0; j < 2; j++) {
        bb[ni][0][j] = p[4 * j], bs[ni][0][j] = p[4 * j + TC_PLANE];
        bb[ni][1][j] = rot_h2(bb[ni][0][j]), bs[ni][1][j] = rot_h2(bs[ni][0][j]);
      }
    }
    tc_pass(acc, as, bb);
    tc_pass(acc, ab, bs);
    tc_pass(acc, ab, bb);
  }
  frag_add(run, acc);
}

extern "C" __global__ void __launch_bounds__(TC_THREADS, TC_MINB)
    gram_tc_f16(const unsigned* __restrict__ z, long long ldz, int M, int K, const int2* __restrict__ tiles, int nsplit,
                float zscale, float2* __restrict__ part) {
  extern __shared__ __align__(16) unsigned sm[];
  const int2 tile = tiles[blockIdx.x / nsplit];
  const int ti = tile.x, tj = tile.y;
  const int s = blockIdx.x % nsplit;
  const bool diag = ti == tj;
  const int r0 = ti * TC_BT, c0 = tj * TC_BT;
  const int nkt = (K + TC_KT - 1) / TC_KT;
  const int kt0 = (int)((long long)s * nkt / nsplit), kt1 = (int)((long long)(s + 1) * nkt / nsplit);
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t4 = lane & 3;
  const int wr = w >> 1, wc = w & 1;
  const bool idle = diag && wc > wr;
  const int srow = wr * 32, scol = wc * 32;
  const int colHalf = diag ? 0 : 2 * TC_PLANE;  // the columns' planes (a diagonal tile's are the rows')

  float run[2][4][2][4];
  frag_zero(run);

  // TC_NSTAGE-deep pipeline: stages kt+1 … kt+TC_NSTAGE−1 are in flight
  // while stage kt is multiplied. One barrier per stage: past it, stage kt
  // has landed for every thread and every warp is done with stage kt−1,
  // whose buffer the next copy refills.
#pragma unroll
  for (int i = 0; i < TC_NSTAGE - 1; i++) {
    if (kt0 + i < kt1) tc_load(sm + i * TC_STAGE, z, ldz, M, K, r0, c0, (kt0 + i) * TC_KT, diag);
    cp_async_commit();
  }
  for (int kt = kt0; kt < kt1; kt++) {
    cp_async_wait<TC_NSTAGE - 2>();
    __syncthreads();
    const int next = kt + TC_NSTAGE - 1;
    if (next < kt1) tc_load(sm + ((next - kt0) % TC_NSTAGE) * TC_STAGE, z, ldz, M, K, r0, c0, next * TC_KT, diag);
    cp_async_commit();
    const unsigned* st = sm + ((kt - kt0) % TC_NSTAGE) * TC_STAGE;
    if (!idle) tc_stage(run, st + srow * TC_LDW, st + colHalf + scol * TC_LDW, g, t4);
  }
  if (idle) return;
  // Accumulator q of an m16n8 fragment: row g + 8·(q/2), column 2t4 + q%2.
  const float unscale = 1.f / (zscale * zscale);  // exact: zscale is a power of two in 2^±60
  float2* out = part + (long long)blockIdx.x * TC_BT * TC_BT;  // (tile, split)'s column-major partial tile
#pragma unroll
  for (int mi = 0; mi < 2; mi++)
#pragma unroll
    for (int ni = 0; ni < 4; ni++)
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int rr = srow + mi * 16 + g + 8 * (q >> 1), cc = wc * 32 + ni * 8 + 2 * t4 + (q & 1);
        if (r0 + rr < M && c0 + cc <= r0 + rr)
          out[rr + cc * TC_BT] = make_float2(run[mi][ni][0][q] * unscale, run[mi][ni][1][q] * unscale);
      }
}

// gram_tc_reduce: C = alpha·Σ_split part + beta·C on the lower triangle
// of the listed tiles of the complex64 C, the splits added in double
// (beta 0 never reads C, as in BLAS). Entries outside the listed tiles are
// left alone. Block b takes TC_RE entries of tile tiles[b / TC_RB] (TC_RB
// blocks a tile), TC_RG threads an entry, each summing every TC_RG-th
// split, so a product of few tiles and many splits (a small M) still has
// enough loads in flight; the groups' sums meet in shared memory.
#define TC_RE (TC_BT * TC_BT / TC_RB)
extern "C" __global__ void __launch_bounds__(TC_RE* TC_RG)
    gram_tc_reduce(int nsplit, int M, const int2* __restrict__ tiles, const float2* __restrict__ part, float2* c,
                   double alpha, double beta) {
  __shared__ double2 sums[TC_RG][TC_RE];
  const int tb = blockIdx.x / TC_RB, le = threadIdx.x % TC_RE, grp = threadIdx.x / TC_RE;
  const int e = (blockIdx.x % TC_RB) * TC_RE + le;
  const int2 tile = tiles[tb];
  const int r = tile.x * TC_BT + e % TC_BT, col = tile.y * TC_BT + e / TC_BT;
  const float2* p = part + (long long)tb * nsplit * TC_BT * TC_BT + e;
  double x = 0, y = 0;
  for (int s = grp; s < nsplit; s += TC_RG) {
    const float2 v = p[(long long)s * TC_BT * TC_BT];
    x += v.x, y += v.y;
  }
  sums[grp][le] = make_double2(x, y);
  __syncthreads();
  if (grp != 0 || r >= M || col > r) return;
  for (int g = 1; g < TC_RG; g++) x += sums[g][le].x, y += sums[g][le].y;
  x *= alpha, y *= alpha;
  const long long t = r + (long long)col * M;
  if (beta != 0) x += beta * (double)c[t].x, y += beta * (double)c[t].y;
  c[t] = make_float2((float)x, (float)y);
}

// tc_split scales the k values of each of rows rows of in (complex64,
// leading dimension ldIn) by zscale and writes them split, as the product
// reads them, into out (leading dimension ldOut ≥ k, a multiple of 4; the
// padding columns zero). For Z that the simulator's kernel did not write
// split: tests and benchmarks.
extern "C" __global__ void tc_split(const float2* __restrict__ in, long long ldIn, unsigned* __restrict__ out,
                                    long long ldOut, int rows, int k, float zscale) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * ldOut) return;
  const long long row = i / ldOut, col = i % ldOut;
  unsigned big = 0, small = 0;
  if (col < k) {
    const float2 v = in[row * ldIn + col];
    split_h2(v.x * zscale, v.y * zscale, &big, &small);
  }
  out[2 * row * ldOut + col] = big;
  out[(2 * row + 1) * ldOut + col] = small;
}
