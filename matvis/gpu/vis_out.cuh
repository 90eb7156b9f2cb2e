// vis_out.cuh: vis_out, the extraction of the output pairs. Part of vis.cu,
// which includes the stages in order after its prologue (the real and complex
// types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of its own.
#pragma once

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
