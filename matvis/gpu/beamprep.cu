// beamprep.cu: a gridded beam's channel preparation on the device
// (matvis/gpu's beamPrep, beamprep.go). The host's twin is matvis/beam's
// Prepare: per beam channel the raw planes (or, unpolarized, the feed's
// power), the azimuth extension and the cubic B-spline prefilter; then the
// channel's frequency step, a weighted sum over beam channels. All of it is
// linear in each beam channel's samples, so the device prepares every beam
// channel once ("bases": bp_planes, bp_prefilter along each axis, bp_pack)
// and a simulation channel is one weighted sum of bases written in the
// beam_tau_z / gram_fused table layout (bp_combine), on its own stream
// while the previous channel integrates.
//
// Compile-time option: -DR_T=float|double, the run's real type (the type
// of bases and tables). Scratch planes are double, as the host's.
#ifndef R_T
#define R_T double
#endif
typedef R_T real;

#include "beamprep_flux.cuh"

// The raw sample k of plane base (complex index) as double: the real part
// or, with imag, the imaginary part (0 for a real grid).
__device__ __forceinline__ double bp_raw(const void* raw, int f32, int cplx, long long k, int imag) {
  if (!cplx) {
    if (imag) return 0.0;
    return f32 ? (double)((const float*)raw)[k] : ((const double*)raw)[k];
  }
  long long i = 2 * k + imag;
  return f32 ? (double)((const float*)raw)[i] : ((const double*)raw)[i];
}

// bp_planes writes the scratch planes of nb beam channels (blockIdx.y: the
// b-th of chans) of one beam: part p of channel b at
// s[((b*parts + p)*nza + r)*nazE + c], extended in azimuth by ext columns
// each side (raw column (c − ext) mod naz). plane0[q] is raw plane q's
// (vec·ncomp + comp)·nfreq. Unpolarized E-field beams (power): one part,
// the power of feed pcomp, Σ_c |Σ_k E_k b[k,c]|² with the basis b (null:
// |E₀|² + |E₁|²), as matvis/beam's addPower; otherwise parts are the planes'
// real parts, each followed by its imaginary part when ocplx.
extern "C" __global__ void bp_planes(const void* raw, int f32, int cplx, int nza, int naz, int ext, int nfreq,
                                     int ncomp, const int* chans, int nplanes, const int* plane0, int power,
                                     int pcomp, const double* basis, int ocplx, double* s) {
  int nazE = naz + 2 * ext;
  long long nodes = (long long)nza * nazE;
  long long node = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= nodes) return;
  int b = blockIdx.y;
  int j = chans[b];
  int r = (int)(node / nazE), c = (int)(node % nazE);
  int a = ((c - ext) % naz + naz) % naz;
  long long npix = (long long)nza * naz;
  long long pix = (long long)r * naz + a;
  if (power) {
    long long s0 = ((long long)(0 * ncomp + pcomp) * nfreq + j) * npix + pix;
    long long s1 = ((long long)(1 * ncomp + pcomp) * nfreq + j) * npix + pix;
    double r0 = bp_raw(raw, f32, cplx, s0, 0), i0 = bp_raw(raw, f32, cplx, s0, 1);
    double r1 = bp_raw(raw, f32, cplx, s1, 0), i1 = bp_raw(raw, f32, cplx, s1, 1);
    double p;
    if (basis == nullptr) {
      p = (r0 * r0 + i0 * i0) + (r1 * r1 + i1 * i1);
    } else {
      p = 0;
      for (int cc = 0; cc < 2; cc++) {
        double bc0 = basis[(0 * 2 + cc) * npix + pix];
        double bc1 = basis[(1 * 2 + cc) * npix + pix];
        p += (r0 * r0 + i0 * i0) * bc0 * bc0 + (r1 * r1 + i1 * i1) * bc1 * bc1 + 2 * (r0 * r1 + i0 * i1) * bc0 * bc1;
      }
    }
    s[(long long)b * nodes + node] = p;
    return;
  }
  int parts = ocplx ? 2 * nplanes : nplanes;
  for (int q = 0; q < nplanes; q++) {
    long long k = ((long long)plane0[q] + j) * npix + pix;
    int p = ocplx ? 2 * q : q;
    s[((long long)b * parts + p) * nodes + node] = bp_raw(raw, f32, cplx, k, 0);
    if (ocplx) s[((long long)b * parts + p + 1) * nodes + node] = bp_raw(raw, f32, cplx, k, 1);
  }
}

// bp_prefilter runs the cubic B-spline prefilter (scipy's spline_filter1d,
// whole-sample mirror boundary; matvis/beam's prefilterColumns, the same
// operations in the same order) along nlines lines of n samples: line l of
// plane l / per starts at s + (l / per)·pstride + (l % per)·lstep, its
// samples estride apart. zn1 is z^(n−1), computed by the host as the host
// filter does.
extern "C" __global__ void bp_prefilter(double* s, long long nlines, int per, long long pstride, long long lstep,
                                        long long estride, int n, double z, double zn1) {
  long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= nlines || n <= 1) return;
  double* x = s + (l / per) * pstride + (l % per) * lstep;
  double gain = (1 - z) * (1 - 1 / z);
  for (int i = 0; i < n; i++) x[i * estride] *= gain;
  double c0 = x[0] + zn1 * x[(long long)(n - 1) * estride];
  double zi = z;
  for (int i = 1; i < n - 1; i++) {
    c0 += zi * (x[(long long)i * estride] + zn1 * x[(long long)(n - 1 - i) * estride]);
    zi *= z;
  }
  x[0] = c0 / (1 - zn1 * zn1);
  for (int i = 1; i < n; i++) x[(long long)i * estride] += z * x[(long long)(i - 1) * estride];
  long long last = (long long)(n - 1) * estride;
  x[last] = (z * x[last - estride] + x[last]) * z / (z * z - 1);
  for (int i = n - 2; i >= 0; i--) x[(long long)i * estride] = z * (x[(long long)(i + 1) * estride] - x[(long long)i * estride]);
}

// bp_pack writes nb bases from the scratch planes: base b (blockIdx.y) at
// out + b·bstride (complex values, the real type's pairs), node-major with
// the nc components of a node adjacent, imaginary parts 0 unless ocplx
// (parts as bp_planes), and the largest |re| or |im| of each base as the
// bits of a non-negative double into maxbits[b] (atomicMax: such bits
// order as the values).
extern "C" __global__ void bp_pack(const double* s, long long nodes, int nc, int ocplx, real* out, long long bstride,
                                   unsigned long long* maxbits) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  int parts = ocplx ? 2 * nc : nc;
  double m = 0;
  if (i < nodes * nc) {
    long long node = i / nc;
    int c = (int)(i % nc);
    const double* sb = s + (long long)b * parts * nodes;
    real re = (real)sb[(long long)(ocplx ? 2 * c : c) * nodes + node];
    real im = ocplx ? (real)sb[(long long)(2 * c + 1) * nodes + node] : (real)0;
    real* o = out + 2 * ((long long)b * bstride + i);
    o[0] = re, o[1] = im;
    m = fmax(fabs((double)re), fabs((double)im));
  }
  for (int off = 16; off > 0; off >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(maxbits + b, (unsigned long long)__double_as_longlong(m));
}

// bp_combine writes one channel's table: for output beam b (blockIdx.y),
// made from distinct beam u = uniq[b] (−1: analytic, nothing) with nvals[u] = nodes·nc complex
// values, value i (node i / nc, component i % nc) is Σ_t w_t·base_t[i] over
// the channel's taps t in [tap0[u], tap0[u+1]) (base offsets toff, complex
// values; weights tw), written at out[ooff[b] + (i / nc)·nstride + i % nc];
// round32[u]: rounded through float as the host rounds the planes of a
// precision-1 beam.
extern "C" __global__ void bp_combine(const real* bases, const int* uniq, const long long* nvals, const int* tap0,
                                      const long long* toff, const double* tw, const int* round32,
                                      const long long* ooff, long long nstride, int nc, real* out) {
  int b = blockIdx.y;
  int u = uniq[b];
  if (u < 0) return;  // an analytic beam: no table
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nvals[u]) return;
  double re = 0, im = 0;
  for (int t = tap0[u]; t < tap0[u + 1]; t++) {
    const real* p = bases + 2 * (toff[t] + i);
    re += tw[t] * (double)p[0];
    im += tw[t] * (double)p[1];
  }
  if (round32[u]) re = (double)(float)re, im = (double)(float)im;
  real* o = out + 2 * (ooff[b] + (i / nc) * nstride + i % nc);
  o[0] = (real)re, o[1] = (real)im;
}

// bp_flux_max writes the largest |flux| of each channel f (blockIdx.y) of
// the source-major flux table (flux[s·nfreq + f], nsrc sources) as the
// bits of a non-negative double into maxbits[f] (atomicMax, as bp_pack).
extern "C" __global__ void bp_flux_max(const double* flux, long long nsrc, int nfreq, unsigned long long* maxbits) {
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int f = blockIdx.y;
  double m = s < nsrc ? fabs(flux[s * nfreq + f]) : 0.0;
  for (int off = 16; off > 0; off >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(maxbits + f, (unsigned long long)__double_as_longlong(m));
}
