// vis_btz.cuh: beam_tau_z, the separate path's Z kernel. Part of vis.cu,
// which includes the stages in order after its prologue (the real and complex
// types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its own.
#pragma once

// ---------------------------------------------------------------------------
// Beam, tau and Z, fused: Z[(a*nf + f)*ldz + k*n + s] = A_{b(a)}[f,k](s) ·
// sqrt(I_s/2) · exp(+i·omega·x_a·ŝ). One thread per source of a tile of
// blockDim.x sources (blockIdx.x), antennas [blockIdx.y*apb, +apb) in a loop
// inside (blockIdx.y), the beams through SrcBeam; each value multiplied by
// the phase and written straight into the Gram product's operand, coalesced
// over the tile's sources. No beam array goes through device memory.
extern "C" __global__ void __launch_bounds__(THREADS_BTZ) beam_tau_z(int n, int p0, const real* ce, const real* cn,
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
