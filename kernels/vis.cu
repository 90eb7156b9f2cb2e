// vis.cu: the per-time and per-chunk kernels of the GPU visibility
// simulator (package matvis/gpu). R is the run's real type (float for
// precision 1, double for precision 2): the type of stored ENU vectors, beam
// values and beam grids. Phases are always formed in double, which costs
// nothing measurable (these kernels are memory-bound) and keeps precision 1
// as accurate as the CPU backend, which also works in double.
//
// Compile-time options: -DR_T=float|double, -DZ_T=float2|double2 (the Z
// matrix type: the Gram strategy may want complex128 even in precision 1),
// -DACC_T=float2|double2 (accumulator), -DOUT_T=float2|double2 (output).
#include "common.cuh"

#ifndef R_T
#define R_T double
#endif
#ifndef Z_T
#define Z_T double2
#endif
#ifndef ACC_T
#define ACC_T double2
#endif
#ifndef OUT_T
#define OUT_T double2
#endif
typedef R_T real;
typedef C<real> creal;

#define PI_D 3.141592653589793238462643383279502884

// ---------------------------------------------------------------------------
// Horizon compaction: three launches per time, no host synchronisation.

// Layout of the per-time parameter block m (double[PAR_N]): the row-major
// 3x3 ENU matrix, then (mode 2) the BCRS-step constants of the time's
// refresh (astro.BCRSParams): eh, em, v, bm1, the row-major bpn matrix and
// the Sun's Schwarzschild radius in au.
// The offsets come from matvis/gpu (defines.go) as -D macros.
#if !defined(PAR_EH) || !defined(PAR_EM) || !defined(PAR_V) || !defined(PAR_BM1) || !defined(PAR_BPN) || \
    !defined(PAR_SRS) || !defined(PAR_N)
#error "PAR_*: compile vis.cu through matvis/gpu, which passes them with -D"
#endif

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
                                   const double* m, double* e, double* n, double* u) {
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nsrc) enu_d(mode, s0, s1, s2, m, s, e + s, n + s, u + s);
}

// Block counts of sources strictly above the horizon (256 threads).
extern "C" __global__ void horizon_count(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                         const double* m, int* blockCount) {
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

// Exclusive scan of n counts in one block of 1024 threads; the total goes
// to *total. Tiles of 8192 counts go through shared memory: coalesced loads
// and stores (8 independent loads per thread in flight), each thread scans
// 8 adjacent counts, warp shuffles and one warp scan the thread sums.
#define SCAN_PER 8
extern "C" __global__ void __launch_bounds__(1024) scan_blocks(int n, const int* in, int* out, int* total) {
  __shared__ int tile[1024 * SCAN_PER];
  __shared__ int ws[32];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  int carry = 0;
  for (int base = 0; base < n; base += 1024 * SCAN_PER) {
#pragma unroll
    for (int j = 0; j < SCAN_PER; j++) {
      int i = base + j * 1024 + t;
      tile[j * 1024 + t] = i < n ? in[i] : 0;
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
    int tileTotal = tile[0];
    int pre = carry + ws[warp] + inc - sum;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SCAN_PER; k++) tile[t * SCAN_PER + k] = pre + loc[k];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < SCAN_PER; j++) {
      int i = base + j * 1024 + t;
      if (i < n) out[i] = tile[j * 1024 + t];
    }
    carry += tileTotal;
    __syncthreads();
  }
  if (t == 0) *total = carry;
}

// Stable scatter of the visible sources: their index, ENU vector and
// amplitude sqrt(0.5 I) (flux of this frequency, stride nfreq).
extern "C" __global__ void horizon_scatter(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                           const double* m, const int* blockOffset, const double* flux, int nfreq, int fi,
                                           real* ce, real* cn, real* cu, double* amp) {
  __shared__ int warpSum[8];
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
    amp[pos] = sqrt(0.5 * flux[s * nfreq + fi]);
  }
}

// ---------------------------------------------------------------------------
// Sky ordering (gridded beams): a stable LSD counting sort of the compacted
// sources, by azimuth bin first and then by zenith-angle band, so that the
// sources follow each other band by band and, inside a band, by azimuth.
// Each chunk then covers a narrow band of the sky (its grid rows stay in
// L2), and the 32 sources of a warp of the fused beam kernel lie within a
// few grid columns, so one tap's loads touch a few sectors instead of 32.
// The Gram product is a sum over sources, so the order changes only
// rounding; the sort is stable, so the result is deterministic.
#ifndef NBAND
#define NBAND 90      // zenith-angle bands over [0, pi/2]
#endif
#ifndef NAZBIN
#define NAZBIN 360    // azimuth bins over [0, 2 pi)
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
  for (int r = 0; r < SORT_ITEMS / 256; r++) {
    int p = blockIdx.x * SORT_ITEMS + r * 256 + threadIdx.x;
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
  __shared__ int wc[8][NKEY];
  __shared__ int run[NKEY];
  int nb = sort_bins(pass);
  for (int i = threadIdx.x; i < 8 * NKEY; i += blockDim.x) (&wc[0][0])[i] = 0;
  for (int i = threadIdx.x; i < NKEY; i += blockDim.x) run[i] = 0;
  __syncthreads();
  int tot = *total;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int r = 0; r < SORT_ITEMS / 256; r++) {
    int p = blockIdx.x * SORT_ITEMS + r * 256 + threadIdx.x;
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
      for (int w = 0; w < 8; w++) s += wc[w][i], wc[w][i] = 0;
      run[i] += s;
    }
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------
// Beams.

// az/za as matvis's enu_to_az_za ("uvbeam" orientation), in double.
__device__ __forceinline__ void azza(double e, double n, double* az, double* za) {
  double r = 1.0 - e * e - n * n;
  if (r < 0) r = 0;
  *za = PI_D / 2 - asin(sqrt(r));
  double a = fmod(PI_D / 2 - atan2(e, n), 2 * PI_D);
  if (a < 0) a += 2 * PI_D;
  *az = a;
}

// Analytic beam (kind 0 uniform, KIND_GAUSSIAN with par = 1/(2σ²),
// KIND_AIRY with par = k = D/2·2πν/c, KIND_DIPOLE short dipole;
// KIND_DIAGONAL + kind for uniform, gaussian and airy with pyuvsim's
// diagonal Jones diag(g, g), signed g when unpolarized): the nc components
// at (az, za), as the CPU's analytic beams. The kinds come from
// matvis/gpu (beams.go) as -D macros.
#if !defined(KIND_GAUSSIAN) || !defined(KIND_AIRY) || !defined(KIND_DIPOLE) || !defined(KIND_DIAGONAL)
#error "KIND_*: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
__device__ __forceinline__ void beam_analytic(int k, double par, double az, double za, int polarized, int feedY,
                                              creal out[4]) {
  const bool diag = k >= KIND_DIAGONAL;
  if (diag) k -= KIND_DIAGONAL;
  if (k == KIND_DIPOLE) {  // short dipole
    double sa, ca;
    sincos(az, &sa, &ca);
    if (polarized) {
      double cz = cos(za);
      out[0] = cmake<real>((real)(-sa), 0);
      out[1] = cmake<real>((real)(cz * ca), 0);
      out[2] = cmake<real>((real)ca, 0);
      out[3] = cmake<real>((real)(cz * sa), 0);
    } else {
      double c = sin(za) * (feedY ? sa : ca);
      out[0] = cmake<real>((real)sqrt(1 - c * c), 0);
    }
    return;
  }
  double g = 1;
  if (k == KIND_GAUSSIAN) {
    g = exp(-za * za * par);
  } else if (k == KIND_AIRY) {
    double x = par * sin(za);
    g = x == 0 ? 1.0 : 2 * j1(x) / x;
  }
  if (diag) {
    creal v = cmake<real>((real)g, 0), zero = cmake<real>(0, 0);
    out[0] = v, out[1] = zero, out[2] = zero, out[3] = v;
  } else if (polarized) {
    creal v = cmake<real>((real)(g / 1.4142135623730951), 0);
    out[0] = v, out[1] = v, out[2] = v, out[3] = v;
  } else {
    out[0] = cmake<real>((real)fabs(g), 0);
  }
}

// mirror index onto [0, n) (scipy's whole-sample "mirror" mode).
__device__ __forceinline__ int mirror_idx(int i, int n) {
  if (n <= 1) return 0;
  int sz2 = 2 * n - 2;
  if (i < 0) {
    i += sz2 * (-i / sz2);
    i = (i <= 1 - n) ? i + sz2 : -i;
  } else if (i > n - 1) {
    i -= sz2 * (i / sz2);
    if (i >= n) i = sz2 - i;
  }
  return i;
}

// Footprint of a fractional index c in [0, n-1] as matvis/beam's CPU code:
// order+1 (mirrored) indices and weights (order 1 linear, 3 cubic
// B-spline). Always 4 entries (constant indexing keeps them in registers):
// a linear footprint pads with weight 0 on index idx[0].
__device__ __forceinline__ void axis_weights(double c, int n, int order, int idx[4], real w[4]) {
  double fl = floor(c);
  double x = c - fl;
  int start = (int)fl;
  double wd[4];
  if (order == 1) {
    wd[0] = 1 - x;
    wd[1] = 1 - wd[0];
    wd[2] = 0;
    wd[3] = 0;
  } else {
    start--;
    double z = 1 - x;
    wd[1] = (x * x * (x - 2) * 3 + 4) / 6;
    wd[2] = (z * z * (z - 2) * 3 + 4) / 6;
    wd[0] = z * z * z / 6;
    wd[3] = 1 - wd[0] - wd[1] - wd[2];
  }
#pragma unroll
  for (int k = 0; k < 4; k++) {
    idx[k] = (k <= order) ? mirror_idx(start + k, n) : mirror_idx(start, n);
    w[k] = (real)wd[k];
  }
}

// Per-beam descriptor (uploaded per frequency). kind >= 0: analytic (par
// its parameter); kind -1: gridded, planes at coef + off (in complex
// values), geometry geom.
struct BeamDesc {
  long long off;
  int kind;
  int geom;
  double par;
  double unused;
};

// Grid geometry of gridded beams (matvis/beam PlaneGrid): node (iza, iaz)
// of a beam's planes holds its nc components at coef[off + (iza*naz +
// iaz)*nc + c]; raw values (order 1) or prefiltered cubic B-spline
// coefficients (order 3). sqrtAfter: unpolarized power planes.
struct GeomDesc {
  double za0, zscale, az0, ascale;
  int nza, naz, order, sqrtAfter;
};

// The 4 components of a polarized node (float: two 16-byte loads).
__device__ __forceinline__ void load4(const float2* p, float2 o[4]) {
  float4 a = __ldg(reinterpret_cast<const float4*>(p));
  float4 b = __ldg(reinterpret_cast<const float4*>(p) + 1);
  o[0] = make_float2(a.x, a.y), o[1] = make_float2(a.z, a.w);
  o[2] = make_float2(b.x, b.y), o[3] = make_float2(b.z, b.w);
}
__device__ __forceinline__ void load4(const double2* p, double2 o[4]) {
#pragma unroll
  for (int c = 0; c < 4; c++) o[c] = __ldg(p + c);
}

// One Z value: beam value times the phasor (pr, pi), formed in double and
// rounded to O (the Gram product's operand type: Z_T, or float2 for the
// fused kernel's shared Z).
template <typename O>
__device__ __forceinline__ O zval(creal bv, double pr, double pi) {
  double vr = (double)bv.x, vi = (double)bv.y;
  O o;
  o.x = vr * pr - vi * pi;
  o.y = vr * pi + vi * pr;
  return o;
}

// grid_footprint gives direction (az, za)'s spline footprint on grid g:
// node row offsets (row index × naz), columns and their weights; false
// (and nothing set) outside the grid.
__device__ __forceinline__ bool grid_footprint(const GeomDesc& g, double az, double za, int row[4], int col[4],
                                               real wz[4], real wa[4]) {
  const double cz = (za - g.za0) * g.zscale, ca = (az - g.az0) * g.ascale;
  if (!(cz >= 0 && cz <= g.nza - 1 && ca >= 0 && ca <= g.naz - 1)) return false;
  axis_weights(cz, g.nza, g.order, row, wz);
  axis_weights(ca, g.naz, g.order, col, wa);
#pragma unroll
  for (int k = 0; k < 4; k++) row[k] *= g.naz;
  return true;
}

// SrcBeam evaluates the beams at one source for a run of antennas: the
// source's spline footprint is computed once per grid geometry and kept in
// registers, and a beam is interpolated only when it differs from the
// previous antenna's (v then still holds its value).
struct SrcBeam {
  double az, za;
  int curGeom, lastB;
  bool inGrid;
  int sqrtAfter;
  int row[4], col[4];
  real wz[4], wa[4];
  creal v[4];
};

__device__ __forceinline__ void src_beam_init(SrcBeam& sb, double e, double n) {
  azza(e, n, &sb.az, &sb.za);
  sb.curGeom = -1, sb.lastB = -1;
  sb.inGrid = false;
  sb.sqrtAfter = 0;
}

// src_beam_eval leaves beam b's nc components at the source in sb.v.
__device__ __forceinline__ void src_beam_eval(SrcBeam& sb, int b, const BeamDesc* __restrict__ bdesc,
                                              const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
                                              int polarized, int feedY) {
  if (b == sb.lastB) return;
  sb.lastB = b;
  BeamDesc d = bdesc[b];
  if (d.kind >= 0) {
    beam_analytic(d.kind, d.par, sb.az, sb.za, polarized, feedY, sb.v);
    return;
  }
  if (d.geom != sb.curGeom) {
    sb.curGeom = d.geom;
    const GeomDesc g = gdesc[sb.curGeom];
    sb.inGrid = grid_footprint(g, sb.az, sb.za, sb.row, sb.col, sb.wz, sb.wa);
    sb.sqrtAfter = g.sqrtAfter;
  }
#pragma unroll
  for (int c = 0; c < 4; c++) sb.v[c] = cmake<real>(0, 0);
  if (!sb.inGrid) return;
  const creal* base = coef + d.off;
  if (polarized) {
#pragma unroll
    for (int i = 0; i < 4; i++) {
      creal rs[4];
#pragma unroll
      for (int c = 0; c < 4; c++) rs[c] = cmake<real>(0, 0);
#pragma unroll
      for (int j = 0; j < 4; j++) {
        creal t[4];
        load4(base + (long long)(sb.row[i] + sb.col[j]) * 4, t);
#pragma unroll
        for (int c = 0; c < 4; c++) rs[c].x += sb.wa[j] * t[c].x, rs[c].y += sb.wa[j] * t[c].y;
      }
#pragma unroll
      for (int c = 0; c < 4; c++) sb.v[c].x += sb.wz[i] * rs[c].x, sb.v[c].y += sb.wz[i] * rs[c].y;
    }
  } else {
    real acc = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      real rs = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) rs += sb.wa[j] * __ldg(base + sb.row[i] + sb.col[j]).x;
      acc += sb.wz[i] * rs;
    }
    sb.v[0] = cmake<real>(sb.sqrtAfter ? sqrt_r(acc) : acc, 0);
  }
}

// phasor of antenna a at source direction (e, n, u), scaled by the
// source's amplitude sqrt(I/2): (pr, pi), in double.
__device__ __forceinline__ void phasor(const double* __restrict__ antpos, int a, double omega, double e, double n,
                                       double u, double am, double* pr, double* pi) {
  double tau = omega * (antpos[3 * a] * e + antpos[3 * a + 1] * n + antpos[3 * a + 2] * u);
  double sn, cs;
  sincos(tau, &sn, &cs);
  *pr = cs * am, *pi = sn * am;
}

// ---------------------------------------------------------------------------
// Beam, tau and Z, fused: Z[(a*nf + f)*ldz + k*n + s] = A_{b(a)}[f,k](s) ·
// sqrt(I_s/2) · exp(+i·omega·x_a·ŝ). One thread per source of a tile of
// blockDim.x sources (blockIdx.x), antennas [blockIdx.y*apb, +apb) in a loop
// inside (blockIdx.y), the beams through SrcBeam; each value multiplied by
// the phase and written straight into the Gram product's operand, coalesced
// over the tile's sources. No beam array goes through device memory.
extern "C" __global__ void __launch_bounds__(128) beam_tau_z(int n, int p0, const real* ce, const real* cn,
    const real* cu, const double* amp, int nant, int apb, const double* antpos, const int* beamOf,
    const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
    int polarized, int feedY, double omega, long long ldz, Z_T* z) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  long long q = p0 + s;
  double e = (double)ce[q], nn = (double)cn[q], u = (double)cu[q];
  double am = amp[q];
  SrcBeam sb;
  src_beam_init(sb, e, nn);
  int a0 = blockIdx.y * apb, a1 = min(a0 + apb, nant);
  for (int a = a0; a < a1; a++) {
    src_beam_eval(sb, beamOf[a], bdesc, gdesc, coef, polarized, feedY);
    double pr, pi;
    phasor(antpos, a, omega, e, nn, u, am, &pr, &pi);
    if (polarized) {
#pragma unroll
      for (int f = 0; f < 2; f++) {
        Z_T* zrow = z + (long long)(a * 2 + f) * ldz + s;
#pragma unroll
        for (int k = 0; k < 2; k++) zrow[(long long)k * n] = zval<Z_T>(sb.v[2 * f + k], pr, pi);
      }
    } else {
      z[(long long)a * ldz + s] = zval<Z_T>(sb.v[0], pr, pi);
    }
  }
}

// ---------------------------------------------------------------------------
// Output: V[pair][p][q] = C[(i*nf+q) + (j*nf+p)*M] for pair (i, j), from
// the accumulated Gram matrix; lowerOnly reads the mirror image of the
// upper triangle (no separate mirror pass).
extern "C" __global__ void vis_out(int npairs, const int* pairs, int nf, int M, const ACC_T* c, int lowerOnly,
                                   OUT_T* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int per = nf * nf;
  if (t >= npairs * per) return;
  int k = t / per, pq = t % per;
  int p = pq / nf, q = pq % nf;
  int i = pairs[2 * k], j = pairs[2 * k + 1];
  int r = i * nf + q, col = j * nf + p;
  ACC_T v;
  if (lowerOnly && r < col) {
    v = c[col + (long long)r * M];
    v.y = -v.y;
  } else {
    v = c[r + (long long)col * M];
  }
  OUT_T o;
  o.x = v.x;
  o.y = v.y;
  out[t] = o;
}

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
#ifdef FG_MT
#ifndef FG_TS
#define FG_TS 32
#endif
#ifndef FG_NP
#define FG_NP 16
#endif
#ifndef FG_NC
#define FG_NC 4
#endif
#ifndef FG_NBUF
#define FG_NBUF 2
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
// two that brings |x·scale| to ≤ 1) is split into two FP16 parts,
// big = fp16(x), small = fp16(x − big) (22 significant bits together, as
// the TF32 split), and m16n8k16 FP16 products — twice the K of an
// m16n8k8 TF32 product at the same tensor-core cycle count — are summed
// in float32. k' runs over 8 columns × (Re, Im): lane (g, t) holds column
// 8s+t's (Re, Im) in k' slots 2t, 2t+1 and column 8s+4+t's in 2t+8, 2t+9,
// one f16x2 register each (first element in the low half).

// pack_h2 rounds (lo, hi) to an f16x2 register (lo in the low half).
__device__ __forceinline__ unsigned pack_h2(float lo, float hi) {
  unsigned d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

// split_h2: (x, y) ≈ big + small, both f16x2.
__device__ __forceinline__ void split_h2(float x, float y, unsigned* big, unsigned* small) {
  const unsigned b = pack_h2(x, y);
  unsigned short l, h;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(l), "=h"(h) : "r"(b));
  float bx, by;
  asm("cvt.f32.f16 %0, %1;" : "=f"(bx) : "h"(l));
  asm("cvt.f32.f16 %0, %1;" : "=f"(by) : "h"(h));
  *big = b, *small = pack_h2(x - bx, y - by);
}

// B2's register from B1's: (x, y) → (y, −x), exactly (swap the halves,
// flip the sign of the new high half).
__device__ __forceinline__ unsigned rot_h2(unsigned v) { return __byte_perm(v, 0, 0x1032) ^ 0x80000000u; }

// d += a·b, one m16n8k16 FP16 tensor-core product, float32 accumulation.
__device__ __forceinline__ void mma_f16(float d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

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
#ifndef FG_SKIP_Z  // (timing experiments only: products of stale values)
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
#endif
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
#ifdef FG_SKIP_Z  // (timing experiments only: products of stale values)
  return;
#endif
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
#ifndef FG_SKIP_FMA  // (timing experiments only: Z made, no products)
    const float2* zb = zs + b * FG_BUF;
    for (int t = w; t < FG_NTILE; t += FG_NC) {
      int ti, tj;
      tile_of(t, &ti, &tj);
      // The slice's sum starts from zero in registers and is added to the
      // tile's running sum with float32 adds (round to nearest): the
      // tensor cores' own accumulation then covers one slice only.
      float acc[2][2][2][4];
#pragma unroll
      for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 2; ni++)
#pragma unroll
          for (int h = 0; h < 2; h++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[mi][ni][h][q] = 0.f;
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
      const float unscale = 1.f / (zscale * zscale);  // exact: zscale is a power of two
#pragma unroll
      for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 2; ni++)
#pragma unroll
          for (int h = 0; h < 2; h++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[mi][ni][h][q] *= unscale;
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
#endif
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
