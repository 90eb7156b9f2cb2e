// vis_sort.cuh: Sky ordering of the visible sources. Part of vis.cu, which
// includes the stages in order after its prologue (the real and complex types
// R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its own.
#pragma once

// ---------------------------------------------------------------------------
// Sky ordering (gridded beams): a stable LSD counting sort of the compacted
// sources, by azimuth bin first and then by zenith-angle band, so that the
// sources follow each other band by band and, inside a band, by azimuth.
// Each chunk then covers a narrow band of the sky (its grid rows stay in
// L2), and the 32 sources of a warp of the fused beam kernel lie within a
// few grid columns, so one tap's loads touch a few sectors instead of 32.
// The Gram product is a sum over sources, so the order changes only
// rounding; the sort is stable, so the result is deterministic.
// NBAND zenith-angle bands over [0, pi/2] and NAZBIN azimuth bins over
// [0, 2 pi): matvis/gpu's sortBands and sortAzBins, as -D (defined there
// only).
#if !defined(NBAND) || !defined(NAZBIN)
#error "NBAND, NAZBIN: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
#define NKEY (NBAND > NAZBIN ? NBAND : NAZBIN)  // bins of the larger pass
// SORT_ITEMS: sources per block of the sort kernels (4 rounds of 256
// threads), from matvis/gpu as -D.
#ifndef SORT_ITEMS
#error "SORT_ITEMS: compile vis.cu through matvis/gpu, which passes it with -D"
#endif

__device__ __forceinline__ int band_of(real u) {
  double z = acos(fmin(1.0, (double)u));
  int b = (int)(z * (NBAND / (PI_D / 2)));
  return min(max(b, 0), NBAND - 1);
}

// Azimuth bin of matvis's azimuth (pi/2 - atan2(e, n), wrapped to [0, 2 pi)).
__device__ __forceinline__ int azbin_of(real e, real n) {
  double a = PI_D / 2 - atan2((double)e, (double)n);
  if (a < 0) a += 2 * PI_D;
  int b = (int)(a * (NAZBIN / (2 * PI_D)));
  return min(max(b, 0), NAZBIN - 1);
}

__device__ __forceinline__ int sort_key(int pass, real e, real n, real u) {
  return pass == 0 ? azbin_of(e, n) : band_of(u);
}

__device__ __forceinline__ int sort_bins(int pass) { return pass == 0 ? NAZBIN : NBAND; }

// Per-block key counts, laid out cnt[key*nblk + block] (256 threads, blocks
// of SORT_ITEMS sources).
extern "C" __global__ void key_count(const int* total, int pass, const real* ce, const real* cn, const real* cu, int nblk,
                                     int* cnt) {
  __shared__ int h[NKEY];
  int nb = sort_bins(pass);
  for (int i = threadIdx.x; i < nb; i += blockDim.x) h[i] = 0;
  __syncthreads();
  int tot = *total;
  for (int r = 0; r < SORT_ITEMS / THREADS_COORDS; r++) {
    int p = blockIdx.x * SORT_ITEMS + r * THREADS_COORDS + threadIdx.x;
    if (p < tot) atomicAdd(&h[sort_key(pass, ce[p], cn[p], cu[p])], 1);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nb; i += blockDim.x) cnt[i * nblk + blockIdx.x] = h[i];
}

// Stable scatter by key; off is the exclusive scan of cnt. 256 threads:
// each round ranks 256 consecutive sources (warp ranks by __match_any_sync,
// earlier warps of the round, earlier rounds of the block).
extern "C" __global__ void key_scatter(const int* total, int pass, int nblk, const int* off, const real* ie,
                                       const real* in, const real* iu, const double* ia, real* oe, real* on, real* ou,
                                       double* oa) {
  __shared__ int wc[WARPS_COORDS][NKEY];
  __shared__ int run[NKEY];
  int nb = sort_bins(pass);
  for (int i = threadIdx.x; i < WARPS_COORDS * NKEY; i += blockDim.x) (&wc[0][0])[i] = 0;
  for (int i = threadIdx.x; i < NKEY; i += blockDim.x) run[i] = 0;
  __syncthreads();
  int tot = *total;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int r = 0; r < SORT_ITEMS / THREADS_COORDS; r++) {
    int p = blockIdx.x * SORT_ITEMS + r * THREADS_COORDS + threadIdx.x;
    bool ok = p < tot;
    real e = 0, n = 0, u = 0;
    double a = 0;
    if (ok) e = ie[p], n = in[p], u = iu[p], a = ia[p];
    int key = ok ? sort_key(pass, e, n, u) : NKEY + lane;  // invalid lanes match nobody
    unsigned mask = __match_any_sync(0xffffffffu, key);
    int rank = __popc(mask & ((1u << lane) - 1u));
    if (ok && rank == 0) wc[warp][key] = __popc(mask);
    __syncthreads();
    if (ok) {
      int before = run[key];
      for (int w = 0; w < warp; w++) before += wc[w][key];
      int q = off[key * nblk + blockIdx.x] + before + rank;
      oe[q] = e, on[q] = n, ou[q] = u;
      oa[q] = a;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nb; i += blockDim.x) {
      int s = 0;
      for (int w = 0; w < WARPS_COORDS; w++) s += wc[w][i], wc[w][i] = 0;
      run[i] += s;
    }
    __syncthreads();
  }
}
