// selftest.cu: a trivial kernel (y = a*x + y) in float and double, used to
// check that NVRTC compilation, module loading and launches work.
#include "common.cuh"

template <typename R>
__device__ void axpy(long long n, R a, const R* x, R* y) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f32(long long n, float a, const float* x, float* y) { axpy<float>(n, a, x, y); }
extern "C" __global__ void axpy_f64(long long n, double a, const double* x, double* y) { axpy<double>(n, a, x, y); }
