// tc_f16.cuh: float32-accurate products on the FP16 tensor cores, shared
// by the fused small-M kernel (vis_fused.cuh) and the Gram product of any
// M (gram_tc.cuh).
//
// A float32 x, first scaled by a power of two so that |x| ≤ 1, is split
// into big = fp16(x) and small = fp16(x − big); a product x·y is summed as
// big·big + big·small + small·big (small·small, ≤ 2⁻²² |x y|, is
// dropped), each an exact FP16 product accumulated in float32. The split
// keeps 22 significant bits while big is normal; below that (|x| < 2⁻¹⁴
// after scaling) small is an FP16 subnormal, so the error of one scaled
// value is at most 2⁻²²|x| + 2⁻²⁵: relative to the largest |x| the scale
// was chosen for, never worse than float32's own rounding (2⁻²⁴), however
// faint x is. One product of unsplit 11-bit operands (plain FP16, BF16 or
// TF32) is not float32-accurate and is never used.
#pragma once

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

// rot_h2 turns a register (x, y) into (y, −x), exactly (swap the halves,
// flip the sign of the new high half): with X = Re Z and Y = Im Z,
// Re C = Xᵀ X + Yᵀ Y and Im C = Xᵀ Y − Yᵀ X are products of A = (X; Y)
// with B1 = (X; Y) and B2 = (Y; −X).
__device__ __forceinline__ unsigned rot_h2(unsigned v) { return __byte_perm(v, 0, 0x1032) ^ 0x80000000u; }

// d += a·b, one m16n8k16 FP16 tensor-core product, float32 accumulation.
__device__ __forceinline__ void mma_f16(float d[4], const unsigned a[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Accumulator arrays (float[…] of any shape, held in registers: the loops
// unroll to constant indices): set to zero, add another of the same shape,
// scale.
template <typename A>
__device__ __forceinline__ void frag_zero(A& a) {
  float* p = reinterpret_cast<float*>(&a);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(A) / sizeof(float)); i++) p[i] = 0.f;
}
template <typename A>
__device__ __forceinline__ void frag_add(A& d, const A& s) {
  float* p = reinterpret_cast<float*>(&d);
  const float* q = reinterpret_cast<const float*>(&s);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(A) / sizeof(float)); i++) p[i] += q[i];
}
template <typename A>
__device__ __forceinline__ void frag_scale(A& a, float f) {
  float* p = reinterpret_cast<float*>(&a);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(A) / sizeof(float)); i++) p[i] *= f;
}
