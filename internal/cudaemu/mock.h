// mock.h: just enough of CUDA's device dialect for a C++ compiler on the
// host to build the gomatvis kernels that use no shared memory, warp
// intrinsics or inline PTX, and run them one thread at a time
// (internal/cudaemu). Included before the kernel sources (g++ -include).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)

// CUDA's device math has isfinite at global scope, as C's macro was.
using std::isfinite;

struct float2 { float x, y; };
struct double2 { double x, y; };
struct float4 { float x, y, z, w; };
struct double4 { double x, y, z, w; };
struct uint2 { unsigned x, y; };
struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; };

// The running thread's indices: EMU_LAUNCH sets them before each call.
inline uint3 blockIdx, threadIdx;
inline dim3 blockDim, gridDim;

inline float2 make_float2(float a, float b) { return {a, b}; }
inline double2 make_double2(double a, double b) { return {a, b}; }
inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x), *c = std::cos(x); }
inline void sincos(double x, double* s, double* c) { *s = std::sin(x), *c = std::cos(x); }
inline float sqrtf(float x) { return std::sqrt(x); }
inline float expf(float x) { return std::exp(x); }
using std::ceil;
using std::exp;
using std::fmax;
using std::fmin;
using std::sqrt;
// One thread at a time: an atomic add is an add.
inline float atomicAdd(float* p, float v) { float o = *p; *p += v; return o; }
inline double atomicAdd(double* p, double v) { double o = *p; *p += v; return o; }
template <typename T> T __ldg(const T* p) { return *p; }
inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
template <class... A> inline void split_h2(A...) {}

// EMU_LAUNCH runs kernel k on a one-dimensional grid of nblocks blocks of
// nthreads threads, one thread after another.
#define EMU_LAUNCH(k, nblocks, nthreads, ...)                       \
  do {                                                              \
    gridDim = {(unsigned)(nblocks), 1, 1};                          \
    blockDim = {(unsigned)(nthreads), 1, 1};                        \
    for (unsigned b_ = 0; b_ < (unsigned)(nblocks); b_++)           \
      for (unsigned t_ = 0; t_ < (unsigned)(nthreads); t_++) {      \
        blockIdx = {b_, 0, 0};                                      \
        threadIdx = {t_, 0, 0};                                     \
        k(__VA_ARGS__);                                             \
      }                                                             \
  } while (0)
