// vis_nufft.cuh: nufft_strengths, the transform path's per-source strengths
// (nufft.go). Part of vis.cu, which includes the stages in order after its
// prologue (the real and complex types R_T, Z_T, ACC_T, OUT_T and PI_D); it
// is not a header of its own.
#pragma once

// ---------------------------------------------------------------------------
// With one beam A shared by every antenna, V[(i,j),p,q] =
// Σ_s Σ_k conj(Z[i,q,k,s])·Z[j,p,k,s] (vis_out's layout) is a type-3
// transform of the strengths ½I_s·Σ_k conj(A[q,k](s))·A[p,k](s) at the
// targets ω(x_j − x_i) (docs/matvis-conventions.md §1; package
// matvis/nufftcpu derives it). nufft_strengths writes them for the n
// visible sources of a compaction slot, vector p·nf + q at
// str[(p·nf + q)·n + s] (nf = 2 polarized, else 1: ½I_s·|A(s)|²), in the
// run's real type, the beam evaluated as beam_tau_z evaluates it (amp is
// the slot's √(½I_s)). Products in double. One thread per source.
extern "C" __global__ void nufft_strengths(int n, const real* ce, const real* cn, const double* amp, int b,
                                           const BeamDesc* __restrict__ bdesc, const GeomDesc* __restrict__ gdesc,
                                           const creal* __restrict__ coef, int polarized, int feedY, creal* str) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  SrcBeam sb;
  src_beam_init(sb, (double)ce[s], (double)cn[s]);
  src_beam_eval(sb, b, bdesc, gdesc, coef, polarized, feedY);
  const double half = amp[s] * amp[s];
  if (!polarized) {
    const double ar = (double)sb.v[0].x, ai = (double)sb.v[0].y;
    str[s] = cmake<real>((real)(half * (ar * ar + ai * ai)), 0);
    return;
  }
#pragma unroll
  for (int p = 0; p < 2; p++) {
#pragma unroll
    for (int q = 0; q < 2; q++) {
      double re = 0, im = 0;
#pragma unroll
      for (int k = 0; k < 2; k++) {
        // conj(A[q,k])·A[p,k]
        const double qr = (double)sb.v[2 * q + k].x, qi = (double)sb.v[2 * q + k].y;
        const double pr = (double)sb.v[2 * p + k].x, pi = (double)sb.v[2 * p + k].y;
        re += qr * pr + qi * pi;
        im += qr * pi - qi * pr;
      }
      str[(long long)(p * 2 + q) * n + s] = cmake<real>((real)(half * re), (real)(half * im));
    }
  }
}
