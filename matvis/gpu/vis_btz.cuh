// vis_btz.cuh: beam_tau_z, the separate path's Z kernel. Part of vis.cu,
// which includes the stages in order after its prologue (the real and complex
// types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its own.
#pragma once

// ---------------------------------------------------------------------------
// Beam, tau and Z, fused: Z[(a*nf + f)*ldz + k*n + s] = A_{b(a)}[f,k](s) ·
// sqrt(I_s/2) · exp(+i·omega·x_a·ŝ), stored by zput (zscale: the
// tensor-core product's scale, unused by the other Z types). One thread per source of a tile of
// blockDim.x sources (blockIdx.x), antennas [blockIdx.y*apb, +apb) in a loop
// inside (blockIdx.y), the beams through SrcBeam; each value multiplied by
// the phase and written straight into the Gram product's operand, coalesced
// over the tile's sources. No beam array goes through device memory.
extern "C" __global__ void __launch_bounds__(THREADS_BTZ) beam_tau_z(int n, int p0, const real* ce, const real* cn,
    const real* cu, const double* amp, int nant, int apb, const double* antpos, const int* beamOf,
    const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
    int polarized, int feedY, double omega, float zscale, long long ldz, Z_T* z) {
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
#pragma unroll
        for (int k = 0; k < 2; k++) {
          const double2 v = zval<double2>(sb.v[2 * f + k], pr, pi);
          zput(z, ldz, a * 2 + f, (long long)k * n + s, v.x, v.y, zscale);
        }
      }
    } else {
      const double2 v = zval<double2>(sb.v[0], pr, pi);
      zput(z, ldz, a, s, v.x, v.y, zscale);
    }
  }
}

// ---------------------------------------------------------------------------
// The full-Stokes Z (docs/stokes.md): Z[(a*2 + f)*ldz + k*n + s] =
// Σ_ax A_{b(a)}[f,ax](s) · W_src[ax,k] · exp(+i·omega·x_a·ŝ), with src the
// sky index horizon_scatter stored in the slot's amp (index mode) and W the
// host's factor of the source's local coherency for one sign of its
// eigenvalues: w[src*8 + 2*(ax*2 + k)] real part, +1 imaginary part. The
// Gram product of the positive factors is added, that of the negative ones
// subtracted; beam_tau_z's structure otherwise (one thread per source,
// antennas [blockIdx.y*apb, +apb) in a loop, polarized beams only).
extern "C" __global__ void __launch_bounds__(THREADS_BTZ) beam_tau_z_stokes(int n, int p0, const real* ce, const real* cn,
    const real* cu, const double* srcIdx, const double* __restrict__ w, int nant, int apb, const double* antpos,
    const int* beamOf, const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc,
    const creal* __restrict__ coef, double omega, float zscale, long long ldz, Z_T* z) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  long long q = p0 + s;
  double e = (double)ce[q], nn = (double)cn[q], u = (double)cu[q];
  const double* ws = w + (long long)srcIdx[q] * 8;
  double wr[4], wi[4];
#pragma unroll
  for (int i = 0; i < 4; i++) wr[i] = ws[2 * i], wi[i] = ws[2 * i + 1];
  SrcBeam sb;
  src_beam_init(sb, e, nn);
  int a0 = blockIdx.y * apb, a1 = min(a0 + apb, nant);
  for (int a = a0; a < a1; a++) {
    src_beam_eval(sb, beamOf[a], bdesc, gdesc, coef, 1, 0);
    double pr, pi;
    phasor(antpos, a, omega, e, nn, u, 1.0, &pr, &pi);
#pragma unroll
    for (int f = 0; f < 2; f++) {
      double j0r = (double)sb.v[2 * f].x, j0i = (double)sb.v[2 * f].y;
      double j1r = (double)sb.v[2 * f + 1].x, j1i = (double)sb.v[2 * f + 1].y;
#pragma unroll
      for (int k = 0; k < 2; k++) {
        // (J·W)[f,k] = J[f,0]·W[0,k] + J[f,1]·W[1,k], then times the phasor.
        double vr = j0r * wr[k] - j0i * wi[k] + j1r * wr[2 + k] - j1i * wi[2 + k];
        double vi = j0r * wi[k] + j0i * wr[k] + j1r * wi[2 + k] + j1i * wr[2 + k];
        zput(z, ldz, a * 2 + f, (long long)k * n + s, vr * pr - vi * pi, vr * pi + vi * pr, zscale);
      }
    }
  }
}
