// gram.cu: helpers around the Gram (Hermitian) product C = Zᴴ Z done by
// cuBLAS: mirroring the lower triangle into the upper one, and widening
// complex64 to complex128 for the double-precision product of
// single-precision data. All matrices are column-major.
#include "common.cuh"
#include "gram_tc.cuh"
#include "gram_wg.cuh"

// C[i + j*ldc] for i < j (upper) takes conj(C[j + i*ldc]) (lower). Tiles of
// 32x32 go through shared memory so reads and writes are both coalesced.
template <typename R>
__device__ void herm_mirror(C<R>* c, int n, long long ldc) {
  __shared__ C<R> tile[32][33];
  int bi = blockIdx.x, bj = blockIdx.y;  // tile row, tile column (upper: bi < bj)
  if (bi > bj) return;
  int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8 threads
  // Read the transposed (lower) tile: rows bj*32.., columns bi*32..
  for (int k = ty; k < 32; k += 8) {
    int row = bj * 32 + tx, col = bi * 32 + k;
    if (row < n && col < n) tile[k][tx] = c[row + (long long)col * ldc];
  }
  __syncthreads();
  for (int k = ty; k < 32; k += 8) {
    int row = bi * 32 + tx, col = bj * 32 + k;  // target (row, col), row < col
    if (row < n && col < n && row < col) c[row + (long long)col * ldc] = cconj<R>(tile[tx][k]);
  }
}

extern "C" __global__ void herm_mirror_f32(float2* c, int n, long long ldc) { herm_mirror<float>(c, n, ldc); }
extern "C" __global__ void herm_mirror_f64(double2* c, int n, long long ldc) { herm_mirror<double>(c, n, ldc); }

extern "C" __global__ void upcast_c64_c128(const float2* in, double2* out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2 v = in[i];
    out[i] = make_double2(v.x, v.y);
  }
}
