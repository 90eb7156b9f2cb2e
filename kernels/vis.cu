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

// enu_of gives source s's ENU vector: either uploaded (mode 0: src0..2 are
// east, north, up) or rotated on the device (mode 1: src0..2 are cached
// x, y, z vectors and m the row-major 3x3 matrix). Precision 1 rounds to
// float32 here, as matvis stores its ENU vectors.
__device__ __forceinline__ void enu_of(int mode, const double* __restrict__ s0, const double* __restrict__ s1,
                                       const double* __restrict__ s2, const double* __restrict__ m, long long s,
                                       real* e, real* n, real* u) {
  double x = s0[s], y = s1[s], z = s2[s];
  if (mode == 1) {
    double ee = m[0] * x + m[1] * y + m[2] * z;
    double nn = m[3] * x + m[4] * y + m[5] * z;
    double uu = m[6] * x + m[7] * y + m[8] * z;
    x = ee, y = nn, z = uu;
  }
  *e = (real)x, *n = (real)y, *u = (real)z;
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

// Exclusive scan of the block counts in one block of 1024 threads; the total
// goes to *total.
extern "C" __global__ void scan_blocks(int nblk, const int* blockCount, int* blockOffset, int* total) {
  __shared__ int part[1024];
  int t = threadIdx.x;
  int per = (nblk + 1023) / 1024;
  int lo = t * per, hi = min(lo + per, nblk);
  int sum = 0;
  for (int i = lo; i < hi; i++) sum += blockCount[i];
  part[t] = sum;
  __syncthreads();
  for (int off = 1; off < 1024; off <<= 1) {
    int v = t >= off ? part[t - off] : 0;
    __syncthreads();
    part[t] += v;
    __syncthreads();
  }
  int run = part[t] - sum;  // exclusive prefix of this thread's segment
  for (int i = lo; i < hi; i++) {
    blockOffset[i] = run;
    run += blockCount[i];
  }
  if (t == 1023) *total = part[1023];
}

// Stable scatter of the visible sources: their index, ENU vector and
// amplitude sqrt(0.5 I) (flux of this frequency, stride nfreq).
extern "C" __global__ void horizon_scatter(long long nsrc, int mode, const double* s0, const double* s1, const double* s2,
                                           const double* m, const int* blockOffset, const double* flux, int nfreq, int fi,
                                           int* vidx, real* ce, real* cn, real* cu, double* amp) {
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
    vidx[pos] = (int)s;
    ce[pos] = e, cn[pos] = n, cu[pos] = u;
    amp[pos] = sqrt(0.5 * flux[s * nfreq + fi]);
  }
}

// ---------------------------------------------------------------------------
// Zenith-angle banding: a stable counting sort of the compacted sources by
// zenith-angle band, so that each chunk covers a narrow band of the sky and
// the gridded-beam kernel's reads of neighbouring sources hit the same grid
// rows in L2 instead of streaming the whole grid from memory per chunk. The
// Gram product is a sum over sources, so the order changes only rounding.
#define NBAND 128

__device__ __forceinline__ int band_of(real u) {
  double z = acos(fmin(1.0, (double)u));
  int b = (int)(z * (NBAND / (PI_D / 2)));
  return min(max(b, 0), NBAND - 1);
}

// Per-block band counts, laid out cnt[band*nblk + block] (256 threads).
extern "C" __global__ void band_count(const int* total, const real* cu, int nblk, int* cnt) {
  __shared__ int h[NBAND];
  for (int i = threadIdx.x; i < NBAND; i += blockDim.x) h[i] = 0;
  __syncthreads();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < *total) atomicAdd(&h[band_of(cu[p])], 1);
  __syncthreads();
  for (int i = threadIdx.x; i < NBAND; i += blockDim.x) cnt[i * nblk + blockIdx.x] = h[i];
}

// Stable scatter into band order; off is the exclusive scan of cnt.
extern "C" __global__ void band_scatter(const int* total, int nblk, const int* off, const real* ie, const real* in,
                                        const real* iu, const double* ia, real* oe, real* on, real* ou, double* oa) {
  __shared__ int wc[8][NBAND];
  for (int i = threadIdx.x; i < 8 * NBAND; i += blockDim.x) (&wc[0][0])[i] = 0;
  __syncthreads();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  bool ok = p < *total;
  int band = ok ? band_of(iu[p]) : NBAND + lane;  // invalid lanes match nobody
  unsigned mask = __match_any_sync(0xffffffffu, band);
  int rank = __popc(mask & ((1u << lane) - 1u));
  if (ok && rank == 0) wc[warp][band] = __popc(mask);
  __syncthreads();
  if (!ok) return;
  int before = 0;
  for (int w = 0; w < warp; w++) before += wc[w][band];
  int q = off[band * nblk + blockIdx.x] + before + rank;
  oe[q] = ie[p], on[q] = in[p], ou[q] = iu[p];
  oa[q] = ia[p];
}

// ---------------------------------------------------------------------------
// Beams. Output Bv[s*P + plane] (complex R) for the chunk's sources, plane =
// beam*ncomp + comp, comp = 2*feed + axis (polarized) or 0.

// az/za as matvis's enu_to_az_za ("uvbeam" orientation), in double.
__device__ __forceinline__ void azza(double e, double n, double* az, double* za) {
  double r = 1.0 - e * e - n * n;
  if (r < 0) r = 0;
  *za = PI_D / 2 - asin(sqrt(r));
  double a = fmod(PI_D / 2 - atan2(e, n), 2 * PI_D);
  if (a < 0) a += 2 * PI_D;
  *az = a;
}

// Analytic beam descriptors: kind[b] (0 uniform, 1 gaussian, 2 airy,
// 3 short dipole, -1 not analytic) and par[b] (gaussian 1/(2σ²); airy
// k = D/2·2πν/c). Thread per (source, beam).
extern "C" __global__ void beam_analytic(int n, int p0, const real* ce, const real* cn, int nbeam, const int* kind,
                                         const double* par, int polarized, int feedY, creal* bv) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (s >= n || kind[b] < 0) return;
  double az, za;
  azza((double)ce[p0 + s], (double)cn[p0 + s], &az, &za);
  int nc = polarized ? 4 : 1;
  long long P = (long long)nbeam * nc;
  creal* out = bv + s * P + b * nc;
  int k = kind[b];
  if (k == 3) {  // short dipole
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
  if (k == 1) {
    g = exp(-za * za * par[b]);
  } else if (k == 2) {
    double x = par[b] * sin(za);
    g = x == 0 ? 1.0 : 2 * j1(x) / x;
  }
  if (polarized) {
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

// Footprint of a fractional index c in [0, n-1]: order+1 indices and
// weights (order 1 linear, 3 cubic B-spline), as matvis/beam's CPU code.
__device__ __forceinline__ void axis_weights(double c, int n, int order, int* idx, double* w) {
  double fl = floor(c);
  double x = c - fl;
  int start = (int)fl;
  if (order == 1) {
    w[0] = 1 - x;
    w[1] = 1 - w[0];
  } else {
    start--;
    double z = 1 - x;
    w[1] = (x * x * (x - 2) * 3 + 4) / 6;
    w[2] = (z * z * (z - 2) * 3 + 4) / 6;
    w[0] = z * z * z / 6;
    w[3] = 1 - w[0] - w[1] - w[2];
  }
  for (int k = 0; k <= order; k++) idx[k] = mirror_idx(start + k, n);
}

// Gridded beams of one grid geometry: coef[(iza*naz + iaz)*G + g] holds
// the G planes (beams x components) of the group interleaved per grid
// node: B-spline coefficients (order 3, prefiltered on the host) or samples
// (order 1), after frequency interpolation and azimuth extension.
// planeOut[g] is the output plane of group plane g. sqrtOut takes the
// square root of the real part (unpolarized power beams). One block handles
// srcPerBlock sources; its threads stride over the planes, so grid reads
// and output writes are contiguous.
extern "C" __global__ void beam_grid(int n, int p0, const real* ce, const real* cn, int G, const creal* __restrict__ coef,
                                     const int* planeOut, long long P, int nza, int naz, double za0, double zscale,
                                     double az0, double ascale, int order, int sqrtOut, int srcPerBlock, creal* bv) {
  __shared__ int sidx[64][16];
  __shared__ real sw[64][16];
  __shared__ int sok[64];
  int first = blockIdx.x * srcPerBlock;
  int cnt = min(srcPerBlock, n - first);
  if (cnt <= 0) return;
  int taps = order + 1;
  // Footprints of the block's sources, one thread each.
  for (int j = threadIdx.x; j < cnt; j += blockDim.x) {
    double az, za;
    azza((double)ce[p0 + first + j], (double)cn[p0 + first + j], &az, &za);
    double cz = (za - za0) * zscale, ca = (az - az0) * ascale;
    bool ok = cz >= 0 && cz <= nza - 1 && ca >= 0 && ca <= naz - 1;
    sok[j] = ok;
    if (ok) {
      int iz[4], ia[4];
      double wz[4], wa[4];
      axis_weights(cz, nza, order, iz, wz);
      axis_weights(ca, naz, order, ia, wa);
      for (int p = 0; p < taps; p++)
        for (int q = 0; q < taps; q++) {
          sidx[j][p * taps + q] = iz[p] * naz + ia[q];
          sw[j][p * taps + q] = (real)(wz[p] * wa[q]);
        }
    }
  }
  __syncthreads();
  int nt = taps * taps;
  for (int j = 0; j < cnt; j++) {
    long long s = first + j;
    for (int g = threadIdx.x; g < G; g += blockDim.x) {
      creal acc = cmake<real>(0, 0);
      if (sok[j]) {
        for (int t = 0; t < nt; t++) {
          creal v = coef[(long long)sidx[j][t] * G + g];
          real w = sw[j][t];
          acc.x += w * v.x;
          acc.y += w * v.y;
        }
        if (sqrtOut) acc = cmake<real>(sqrt_r(acc.x), 0);
      }
      bv[s * P + planeOut[g]] = acc;
    }
  }
}

// ---------------------------------------------------------------------------
// tau and Z, fused: Z[(a*nf + f)*ldz + k*n + s] = A_{b(a)}[f,k](s) ·
// sqrt(I_s/2) · exp(+i·omega·x_a·ŝ). Thread per (source, antenna).
extern "C" __global__ void tau_z(int n, int p0, const real* ce, const real* cn, const real* cu, const double* amp,
                                 int nant, const double* antpos, const int* beamOf, double omega, int nf,
                                 long long P, const creal* __restrict__ bv, long long ldz, Z_T* z) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int a = blockIdx.y;
  if (s >= n) return;
  long long q = p0 + s;
  double tau = omega * (antpos[3 * a] * (double)ce[q] + antpos[3 * a + 1] * (double)cn[q] + antpos[3 * a + 2] * (double)cu[q]);
  double sn, cs;
  sincos(tau, &sn, &cs);
  double am = amp[q];
  double pr = cs * am, pi = sn * am;
  int nc = nf * nf;
  const creal* b = bv + (long long)s * P + (long long)beamOf[a] * nc;
  for (int f = 0; f < nf; f++) {
    Z_T* row = z + (long long)(a * nf + f) * ldz;
    for (int k = 0; k < nf; k++) {
      creal v = b[f * nf + k];
      double vr = (double)v.x, vi = (double)v.y;
      Z_T o;
      o.x = vr * pr - vi * pi;
      o.y = vr * pi + vi * pr;
      row[(long long)k * n + s] = o;
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
