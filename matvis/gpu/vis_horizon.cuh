// vis_horizon.cuh: Horizon compaction and the device ENU vectors. Part of
// vis.cu, which includes the stages in order after its prologue (the real and
// complex types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its
// own.
#pragma once

// ---------------------------------------------------------------------------
// Horizon compaction: one launch per time (horizon_compact, by decoupled
// look-back) or three (horizon_count, a scan, horizon_scatter), no host
// synchronisation.

// Layout of the per-time parameter block m (double[PAR_N]): the row-major
// 3x3 ENU matrix, then (mode 2) the BCRS-step constants of the time's
// refresh (astro.BCRSParams): eh, em, v, bm1, the row-major bpn matrix and
// the Sun's Schwarzschild radius in au.
// The offsets come from matvis/gpu (defines.go) as -D macros.
#if !defined(PAR_EH) || !defined(PAR_EM) || !defined(PAR_V) || !defined(PAR_BM1) || !defined(PAR_BPN) || \
    !defined(PAR_SRS) || !defined(PAR_N)
#error "PAR_*: compile vis.cu through matvis/gpu, which passes them with -D"
#endif

// ParBlock is the parameter block passed by value: a kernel argument, so a
// time's coordinates need no copy to the device before its kernels;
// __grid_constant__ lets the kernels index it without a local copy.
struct ParBlock {
  double m[PAR_N];
};

// par_shared copies the block to shared memory, where the block's threads
// read it as broadcasts (reads of the argument through a pointer are
// slower); every thread of the block calls it.
__device__ __forceinline__ const double* par_shared(const ParBlock& par, double* sm) {
  for (int i = threadIdx.x; i < PAR_N; i += blockDim.x) sm[i] = par.m[i];
  __syncthreads();
  return sm;
}

// bcrs_step is the ERFA method's "BCRS step" (matvis-conventions §4.2 step
// 2) of one ECI unit vector, in double: Sun light deflection, aberration
// (the last term on the bm1-scaled vector, as matvis), normalisation, then
// the bpn matrix. It follows astro's bcrsStep operation by operation, with
// explicitly rounded operations (no fused multiply-adds) and IEEE division
// and square root, so it gives the CPU's vectors bit for bit.
#define MUL __dmul_rn
#define ADD __dadd_rn
#define SUB __dsub_rn
__device__ __forceinline__ void bcrs_step(const double* __restrict__ m, double* px, double* py, double* pz) {
  double x = *px, y = *py, z = *pz;
  const double e0 = m[PAR_EH], e1 = m[PAR_EH + 1], e2 = m[PAR_EH + 2];
  const double v0 = m[PAR_V], v1 = m[PAR_V + 1], v2 = m[PAR_V + 2];
  const double bm1 = m[PAR_BM1];
  const double srsEm = __ddiv_rn(m[PAR_SRS], m[PAR_EM]);
  // Sun light deflection, p += w * p x (e x p).
  double q = ADD(ADD(MUL(x, ADD(x, e0)), MUL(y, ADD(y, e1))), MUL(z, ADD(z, e2)));
  if (q < 1e-6) q = 1e-6;
  const double w = __ddiv_rn(srsEm, q);
  const double c0 = SUB(MUL(e1, z), MUL(e2, y)), c1 = SUB(MUL(e2, x), MUL(e0, z)), c2 = SUB(MUL(e0, y), MUL(e1, x));
  const double dx = ADD(x, MUL(w, SUB(MUL(y, c2), MUL(z, c1))));
  const double dy = ADD(y, MUL(w, SUB(MUL(z, c0), MUL(x, c2))));
  const double dz = ADD(z, MUL(w, SUB(MUL(x, c1), MUL(y, c0))));
  x = dx, y = dy, z = dz;
  // Aberration.
  const double pdv = ADD(ADD(MUL(x, v0), MUL(y, v1)), MUL(z, v2));
  const double w1 = ADD(1.0, __ddiv_rn(pdv, ADD(1.0, bm1)));
  const double sx = MUL(bm1, x), sy = MUL(bm1, y), sz = MUL(bm1, z);
  x = ADD(ADD(sx, MUL(w1, v0)), MUL(srsEm, SUB(v0, MUL(pdv, sx))));
  y = ADD(ADD(sy, MUL(w1, v1)), MUL(srsEm, SUB(v1, MUL(pdv, sy))));
  z = ADD(ADD(sz, MUL(w1, v2)), MUL(srsEm, SUB(v2, MUL(pdv, sz))));
  const double r = __ddiv_rn(1.0, __dsqrt_rn(ADD(ADD(MUL(x, x), MUL(y, y)), MUL(z, z))));
  x = MUL(x, r), y = MUL(y, r), z = MUL(z, r);
  // Bias-precession-nutation.
  const double* b = m + PAR_BPN;
  *px = ADD(ADD(MUL(b[0], x), MUL(b[1], y)), MUL(b[2], z));
  *py = ADD(ADD(MUL(b[3], x), MUL(b[4], y)), MUL(b[5], z));
  *pz = ADD(ADD(MUL(b[6], x), MUL(b[7], y)), MUL(b[8], z));
}
#undef MUL
#undef ADD
#undef SUB

// enu_d gives source s's ENU vector in double. mode 0: s0..2 are uploaded
// east, north, up. mode 1: s0..2 are the cached (BCRS-step) x, y, z
// vectors and m[0..8] the row-major ENU matrix. mode 2: s0..2 are the ECI
// unit vectors, the BCRS step is done here with m's constants, then the
// matrix is applied (the same sums as astro's ENU, without fused
// multiply-adds).
__device__ __forceinline__ void enu_d(int mode, const double* __restrict__ s0, const double* __restrict__ s1,
                                      const double* __restrict__ s2, const double* __restrict__ m, long long s,
                                      double* e, double* n, double* u) {
  double x = s0[s], y = s1[s], z = s2[s];
  if (mode == 2) bcrs_step(m, &x, &y, &z);
  if (mode >= 1) {
    double ee = __dadd_rn(__dadd_rn(__dmul_rn(m[0], x), __dmul_rn(m[1], y)), __dmul_rn(m[2], z));
    double nn = __dadd_rn(__dadd_rn(__dmul_rn(m[3], x), __dmul_rn(m[4], y)), __dmul_rn(m[5], z));
    double uu = __dadd_rn(__dadd_rn(__dmul_rn(m[6], x), __dmul_rn(m[7], y)), __dmul_rn(m[8], z));
    x = ee, y = nn, z = uu;
  }
  *e = x, *n = y, *u = z;
}

// enu_of is enu_d rounded to the run's real type: precision 1 rounds to
// float32 here, as matvis stores its ENU vectors.
__device__ __forceinline__ void enu_of(int mode, const double* __restrict__ s0, const double* __restrict__ s1,
                                       const double* __restrict__ s2, const double* __restrict__ m, long long s,
                                       real* e, real* n, real* u) {
  double x, y, z;
  enu_d(mode, s0, s1, s2, m, s, &x, &y, &z);
  *e = (real)x, *n = (real)y, *u = (real)z;
}

// enu_all writes every source's double ENU vector (enu_d), horizon or not:
// the tests compare it with the CPU's.
extern "C" __global__ void enu_all(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                   const __grid_constant__ ParBlock par, double* e, double* n, double* u) {
  __shared__ double pm[PAR_N];
  const double* m = par_shared(par, pm);
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nsrc) enu_d(mode, s0, s1, s2, m, s, e + s, n + s, u + s);
}

// Block counts of sources strictly above the horizon (256 threads).
extern "C" __global__ void horizon_count(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                         const __grid_constant__ ParBlock par, int* blockCount) {
  __shared__ double pm[PAR_N];
  const double* m = par_shared(par, pm);
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int vis = 0;
  if (s < nsrc) {
    real e, n, u;
    enu_of(mode, s0, s1, s2, m, s, &e, &n, &u);
    vis = u > (real)0;
  }
  int c = __syncthreads_count(vis);
  if (threadIdx.x == 0) blockCount[blockIdx.x] = c;
}

// Exclusive scans of n counts, by blocks of THREADS_SCAN threads over
// tiles of SCAN_TILE counts through shared memory: coalesced loads and
// stores (SCAN_PER independent loads per thread in flight), each thread
// scans SCAN_PER adjacent counts, warp shuffles and one warp scan the
// thread sums. scan_blocks does every tile in one block; a long scan is
// scan_tile_sums, scan_blocks over the tile sums, then scan_tiles, one
// block a tile.
#define SCAN_PER 8
#define SCAN_TILE (THREADS_SCAN * SCAN_PER)

// scan_tile writes the exclusive scan of counts [base, base+SCAN_TILE) ∩
// [0, n), plus carry, to out and returns the tile's total. Every thread of
// the block calls it; tile and ws are the block's shared scratch.
__device__ int scan_tile(int base, int n, const int* in, int* out, int carry, int* tile, int* ws) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
#pragma unroll
  for (int j = 0; j < SCAN_PER; j++) {
    int i = base + j * THREADS_SCAN + t;
    tile[j * THREADS_SCAN + t] = i < n ? in[i] : 0;
  }
  __syncthreads();
  int loc[SCAN_PER];
  int sum = 0;
#pragma unroll
  for (int k = 0; k < SCAN_PER; k++) {
    loc[k] = sum;
    sum += tile[t * SCAN_PER + k];
  }
  int inc = sum;  // inclusive warp scan of the thread sums
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    int v = __shfl_up_sync(0xffffffffu, inc, off);
    if (lane >= off) inc += v;
  }
  if (lane == 31) ws[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    int w = ws[lane], wi = w;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      int v = __shfl_up_sync(0xffffffffu, wi, off);
      if (lane >= off) wi += v;
    }
    ws[lane] = wi - w;  // exclusive prefix of each warp
    if (lane == 31) tile[0] = wi;  // tile total (tile[0] is consumed: thread 0's loc)
  }
  __syncthreads();
  const int tileTotal = tile[0];
  const int pre = carry + ws[warp] + inc - sum;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < SCAN_PER; k++) tile[t * SCAN_PER + k] = pre + loc[k];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < SCAN_PER; j++) {
    int i = base + j * THREADS_SCAN + t;
    if (i < n) out[i] = tile[j * THREADS_SCAN + t];
  }
  __syncthreads();
  return tileTotal;
}

// scan_blocks: the whole scan in one block; the total goes to *total.
extern "C" __global__ void __launch_bounds__(THREADS_SCAN) scan_blocks(int n, const int* in, int* out, int* total) {
  __shared__ int tile[SCAN_TILE];
  __shared__ int ws[32];
  int carry = 0;
  for (int base = 0; base < n; base += SCAN_TILE) carry += scan_tile(base, n, in, out, carry, tile, ws);
  if (threadIdx.x == 0) *total = carry;
}

// tile_sum returns the sum of tile b's counts to thread 0 (ws: 32 ints of
// shared scratch); every thread of the block calls it.
__device__ int tile_sum(int b, int n, const int* in, int* ws) {
  const int base = b * SCAN_TILE;
  int v = 0;
#pragma unroll
  for (int j = 0; j < SCAN_PER; j++) {
    int i = base + j * THREADS_SCAN + threadIdx.x;
    v += i < n ? in[i] : 0;
  }
  v = __reduce_add_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < THREADS_SCAN / 32 ? ws[threadIdx.x] : 0;
    v = __reduce_add_sync(0xffffffffu, v);
  }
  __syncthreads();  // ws is free again
  return v;
}

// scan_tile_sums: block b writes the sum of tile b's counts to sums[b].
extern "C" __global__ void __launch_bounds__(THREADS_SCAN) scan_tile_sums(int n, const int* in, int* sums) {
  __shared__ int ws[32];
  const int v = tile_sum(blockIdx.x, n, in, ws);
  if (threadIdx.x == 0) sums[blockIdx.x] = v;
}

// scan_tiles: block b scans tile b, starting from offsets[b] (the
// exclusive scan of the tile sums).
extern "C" __global__ void __launch_bounds__(THREADS_SCAN) scan_tiles(int n, const int* in, int* out, const int* offsets) {
  __shared__ int tile[SCAN_TILE];
  __shared__ int ws[32];
  scan_tile(blockIdx.x * SCAN_TILE, n, in, out, offsets[blockIdx.x], tile, ws);
}

// Decoupled look-back (one launch instead of counts, scan and a second
// pass): each block publishes its aggregate in status[b], then walks back
// over its predecessors' words, adding aggregates until one holds an
// inclusive prefix, and publishes its own. A word is the launch's epoch
// (bits 32–61: the host counts launches, so status never needs clearing),
// a flag (bits 62–63: 1 aggregate, 2 inclusive prefix) and the value (bits
// 0–31). A block waits only on lower-numbered blocks, so the host
// launches these kernels only with every block resident at once.
#define LB_AGG 1ull
#define LB_INC 2ull
__device__ __forceinline__ unsigned long long lb_word(unsigned epoch, unsigned long long flag, int v) {
  return ((unsigned long long)(epoch & 0x3FFFFFFFu) << 32) | (flag << 62) | (unsigned)v;
}

// lookback_prefix returns the sum of the aggregates of blocks 0 … b−1 and
// publishes block b's inclusive prefix; one thread of block b calls it.
__device__ int lookback_prefix(unsigned long long* status, int b, int agg, unsigned epoch) {
  if (b == 0) {
    atomicExch(&status[0], lb_word(epoch, LB_INC, agg));
    return 0;
  }
  atomicExch(&status[b], lb_word(epoch, LB_AGG, agg));
  int prefix = 0;
  for (int p = b - 1; p >= 0;) {
    const unsigned long long w = atomicAdd(&status[p], 0ull);
    const unsigned flag = (unsigned)(w >> 62);
    if (((unsigned)(w >> 32) & 0x3FFFFFFFu) != (epoch & 0x3FFFFFFFu) || flag == 0) continue;  // not published yet
    prefix += (int)(unsigned)w;
    if (flag == LB_INC) break;
    p--;
  }
  atomicExch(&status[b], lb_word(epoch, LB_INC, prefix + agg));
  return prefix;
}

// scan_lookback: scan_blocks's result with one block a tile in one launch;
// the last block writes the total.
extern "C" __global__ void __launch_bounds__(THREADS_SCAN)
    scan_lookback(int n, const int* in, int* out, int* total, unsigned long long* status, unsigned epoch) {
  __shared__ int tile[SCAN_TILE];
  __shared__ int ws[32];
  __shared__ int carry;
  const int agg = tile_sum(blockIdx.x, n, in, ws);
  if (threadIdx.x == 0) {
    carry = lookback_prefix(status, blockIdx.x, agg, epoch);
    if (blockIdx.x == gridDim.x - 1) *total = carry + agg;
  }
  __syncthreads();
  scan_tile(blockIdx.x * SCAN_TILE, n, in, out, carry, tile, ws);
}

// Stable scatter of the visible sources: their index, ENU vector and
// amplitude sqrt(0.5 I) (flux of this frequency, stride nfreq). With
// nfreq < 0 (a full-Stokes sky, whose amplitudes are the per-source
// factors beam_tau_z_stokes reads) amp holds the source's index instead.
extern "C" __global__ void horizon_scatter(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                           const __grid_constant__ ParBlock par, const int* blockOffset, const double* flux,
                                           int nfreq, int fi, real* ce, real* cn, real* cu, double* amp) {
  __shared__ int warpSum[WARPS_COORDS];
  __shared__ double pm[PAR_N];
  const double* m = par_shared(par, pm);
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  real e = 0, n = 0, u = 0;
  bool vis = false;
  if (s < nsrc) {
    enu_of(mode, s0, s1, s2, m, s, &e, &n, &u);
    vis = u > (real)0;
  }
  unsigned ballot = __ballot_sync(0xffffffffu, vis);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpSum[warp] = __popc(ballot);
  __syncthreads();
  int before = 0;
  for (int w = 0; w < warp; w++) before += warpSum[w];
  if (vis) {
    int pos = blockOffset[blockIdx.x] + before + __popc(ballot & ((1u << lane) - 1u));
    ce[pos] = e, cn[pos] = n, cu[pos] = u;
    amp[pos] = nfreq < 0 ? (double)s : sqrt(0.5 * flux[s * nfreq + fi]);
  }
}

// horizon_compact: horizon_count, the scan and horizon_scatter in one
// launch by decoupled look-back (same outputs, bit for bit); the last
// block writes the visible count to *total. Block b takes the rounds ×
// blockDim.x sources from b·rounds·blockDim.x on, so that every block of
// the launch fits on the card at once: it counts them round by round,
// learns its offset by look-back, then computes their ENU vectors again
// and scatters them.
#ifndef COMPACT_MAX_ROUNDS
#error "COMPACT_MAX_ROUNDS: compile vis.cu through matvis/gpu, which passes it with -D"
#endif
extern "C" __global__ void horizon_compact(long long nsrc, int rounds, int mode, const double* s0, const double* s1,
                                           const double* s2, const __grid_constant__ ParBlock par, const double* flux,
                                           int nfreq, int fi, real* ce, real* cn, real* cu, double* amp, int* total,
                                           unsigned long long* status, unsigned epoch) {
  __shared__ int warpSum[COMPACT_MAX_ROUNDS][WARPS_COORDS];
  __shared__ int blockBase;
  __shared__ double pm[PAR_N];
  const double* m = par_shared(par, pm);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long first = (long long)blockIdx.x * rounds * blockDim.x;
  for (int r = 0; r < rounds; r++) {
    const long long s = first + (long long)r * blockDim.x + threadIdx.x;
    bool vis = false;
    if (s < nsrc) {
      real e, n, u;
      enu_of(mode, s0, s1, s2, m, s, &e, &n, &u);
      vis = u > (real)0;
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, vis);
    if (lane == 0) warpSum[r][warp] = __popc(ballot);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int agg = 0;
    for (int r = 0; r < rounds; r++)
      for (int w = 0; w < WARPS_COORDS; w++) agg += warpSum[r][w];
    blockBase = lookback_prefix(status, blockIdx.x, agg, epoch);
    if (blockIdx.x == gridDim.x - 1) *total = blockBase + agg;
  }
  __syncthreads();
  int base = blockBase;
  for (int r = 0; r < rounds; r++) {
    const long long s = first + (long long)r * blockDim.x + threadIdx.x;
    real e = 0, n = 0, u = 0;
    bool vis = false;
    if (s < nsrc) {
      enu_of(mode, s0, s1, s2, m, s, &e, &n, &u);
      vis = u > (real)0;
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, vis);
    int before = base, all = 0;
    for (int w = 0; w < WARPS_COORDS; w++) {
      before += w < warp ? warpSum[r][w] : 0;
      all += warpSum[r][w];
    }
    if (vis) {
      const int pos = before + __popc(ballot & ((1u << lane) - 1u));
      ce[pos] = e, cn[pos] = n, cu[pos] = u;
      amp[pos] = nfreq < 0 ? (double)s : sqrt(0.5 * flux[s * nfreq + fi]);
    }
    base += all;
  }
}
