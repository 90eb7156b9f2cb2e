// common.cuh: complex arithmetic and type helpers shared by the gomatvis
// kernels. Real type R is float or double; C<R> is its complex (float2 or
// double2, the layouts of Go's complex64 and complex128).
#pragma once

template <typename R> struct CplxOf;
template <> struct CplxOf<float> { typedef float2 type; };
template <> struct CplxOf<double> { typedef double2 type; };
template <typename R> using C = typename CplxOf<R>::type;

template <typename R> __device__ __forceinline__ C<R> cmake(R re, R im) {
  C<R> z;
  z.x = re;
  z.y = im;
  return z;
}
template <typename R> __device__ __forceinline__ C<R> cmul(C<R> a, C<R> b) {
  return cmake<R>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
template <typename R> __device__ __forceinline__ C<R> cconj(C<R> a) {
  return cmake<R>(a.x, -a.y);
}
template <typename R> __device__ __forceinline__ C<R> cscale(C<R> a, R s) {
  return cmake<R>(a.x * s, a.y * s);
}

__device__ __forceinline__ void sincos_r(float x, float* s, float* c) { sincosf(x, s, c); }
__device__ __forceinline__ void sincos_r(double x, double* s, double* c) { sincos(x, s, c); }
__device__ __forceinline__ float sqrt_r(float x) { return sqrtf(x); }
__device__ __forceinline__ double sqrt_r(double x) { return sqrt(x); }
