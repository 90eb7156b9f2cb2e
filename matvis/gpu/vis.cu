// vis.cu: the per-time and per-chunk kernels of the GPU visibility
// simulator (package matvis/gpu). R is the run's real type (float for
// precision 1, double for precision 2): the type of stored ENU vectors, beam
// values and beam grids. Phases are always formed in double, which costs
// nothing measurable (these kernels are memory-bound) and keeps precision 1
// as accurate as the CPU backend, which also works in double.
//
// Compile-time options: -DR_T=float|double, -DZ_T=float2|double2|uint2 (the
// Z matrix type: the Gram strategy may want complex128 even in precision 1,
// or uint2, the tensor-core product's scaled FP16 pairs, tc_f16.cuh),
// -DACC_T=float2|double2 (accumulator), -DOUT_T=float2|double2 (output),
// -DVIS_NUFFT (the transform path's strengths, vis_nufft.cuh).
#include "common.cuh"
#include "tc_f16.cuh"

// The run's types, from matvis/gpu's compile (kernels.go): no defaults,
// so that a type the run did not choose never compiles.
#if !defined(R_T) || !defined(Z_T) || !defined(ACC_T) || !defined(OUT_T)
#error "R_T, Z_T, ACC_T, OUT_T: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
typedef R_T real;
typedef C<real> creal;

#define PI_D 3.141592653589793238462643383279502884

// The block sizes the kernels are written for (THREADS_COORDS threads,
// WARPS_COORDS warps, for the coordinate, sort and output kernels;
// THREADS_SCAN for scan_blocks; THREADS_BTZ for beam_tau_z): matvis/gpu
// launches them with these and passes them with -D.
#if !defined(THREADS_COORDS) || !defined(WARPS_COORDS) || !defined(THREADS_SCAN) || !defined(THREADS_BTZ)
#error "THREADS_*: compile vis.cu through matvis/gpu, which passes them with -D"
#endif

// The stages, one file each, in the order they depend on one another.
#include "vis_horizon.cuh"
#include "vis_sort.cuh"
#include "vis_beam.cuh"
#include "vis_btz.cuh"
#include "vis_stokes.cuh"
#include "vis_out.cuh"
#ifdef VIS_NUFFT
#include "vis_nufft.cuh"
#endif
#include "vis_fused.cuh"
