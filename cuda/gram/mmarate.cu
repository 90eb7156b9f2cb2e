// mmarate.cu: the tensor cores' instruction rates, for choosing between
// float32-accurate product schemes by numbers (cuda/gram's -gemm-bench):
// the FP16 split (tc_f16.cuh) costs 3 FP16 products per product, an
// Ozaki-style INT8 scheme with s slices of each operand s(s+1)/2 INT8
// products with exact int32 sums. Each warp runs iters rounds of 8
// independent mma.sync products on register operands and stores its sums
// (so nothing is optimized away).
#include "common.cuh"
#include "tc_f16.cuh"

// d += a·b, one m16n8k32 INT8 product with exact int32 accumulation.
__device__ __forceinline__ void mma_s8(int d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void mma_rate_f16(int iters, float* out) {
  const unsigned one = 0x3C003C00u ^ (threadIdx.x & 1u);  // ≈ (1, 1) in f16x2
  const unsigned a[4] = {one, one, one, one};
  float d[8][4] = {};
  for (int i = 0; i < iters; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) mma_f16(d[j], a, one, one);
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; j++) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void mma_rate_s8(int iters, float* out) {
  const unsigned v = 0x01010101u ^ (threadIdx.x & 1u);
  const unsigned a[4] = {v, v, v, v};
  int d[8][4] = {};
  for (int i = 0; i < iters; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) mma_s8(d[j], a, v, v);
  int s = 0;
#pragma unroll
  for (int j = 0; j < 8; j++) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = (float)s;
}
