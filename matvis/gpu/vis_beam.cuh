// vis_beam.cuh: Beam evaluation (analytic and gridded) and the phasors. Part
// of vis.cu, which includes the stages in order after its prologue (the real
// and complex types R_T, Z_T, ACC_T, OUT_T and PI_D); it is not a header of
// its own.
#pragma once

// ---------------------------------------------------------------------------
// Beams.

// az/za as matvis's enu_to_az_za ("uvbeam" orientation), in double.
__device__ __forceinline__ void azza(double e, double n, double* az, double* za) {
  double r = 1.0 - e * e - n * n;
  if (r < 0) r = 0;
  *za = PI_D / 2 - asin(sqrt(r));
  double a = fmod(PI_D / 2 - atan2(e, n), 2 * PI_D);
  if (a < 0) a += 2 * PI_D;
  *az = a;
}

// Analytic beam (KIND_UNIFORM, KIND_GAUSSIAN with par = 1/(2σ²),
// KIND_AIRY with par = k = D/2·2πν/c, KIND_SHORT_DIPOLE;
// KIND_DIAGONAL + kind for uniform, gaussian and airy with pyuvsim's
// diagonal Jones diag(g, g), signed g when unpolarized): the nc components
// at (az, za), as the CPU's analytic beams. The kinds come from matvis/beam's
// registry through matvis/gpu (beams.go: kindDefines) as -D macros; a new
// kind needs its case here (TestKindsHaveKernelCases).
#if !defined(KIND_UNIFORM) || !defined(KIND_GAUSSIAN) || !defined(KIND_AIRY) || !defined(KIND_SHORT_DIPOLE) || \
    !defined(KIND_DIAGONAL)
#error "KIND_*: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
__device__ __forceinline__ void beam_analytic(int k, double par, double az, double za, int polarized, int feedY,
                                              creal out[4]) {
  const bool diag = k >= KIND_DIAGONAL;
  if (diag) k -= KIND_DIAGONAL;
  if (k == KIND_SHORT_DIPOLE) {
    double sa, ca;
    sincos(az, &sa, &ca);
    if (polarized) {
      double cz = cos(za);
      out[0] = cmake<real>((real)(-sa), 0);
      out[1] = cmake<real>((real)(cz * ca), 0);
      out[2] = cmake<real>((real)ca, 0);
      out[3] = cmake<real>((real)(cz * sa), 0);
    } else {
      double c = sin(za) * (feedY ? sa : ca);
      out[0] = cmake<real>((real)sqrt(1 - c * c), 0);
    }
    return;
  }
  double g = 1;  // KIND_UNIFORM
  if (k == KIND_GAUSSIAN) {
    g = exp(-za * za * par);
  } else if (k == KIND_AIRY) {
    double x = par * sin(za);
    g = x == 0 ? 1.0 : 2 * j1(x) / x;
  } else if (k != KIND_UNIFORM) {
    // A kind registered in matvis/beam without a case here: NaN, which
    // the output shows, never a uniform beam in its place.
    g = __longlong_as_double(0x7ff8000000000000LL);
  }
  if (diag) {
    // pyuvsim's J[feed, c] = diag(g, g) over c = (za, az): feed x sees
    // the za axis (vec 1), feed y the az axis (vec 0), as beam.DiagonalJones;
    // unpolarized, the one component is the signed g.
    creal v = cmake<real>((real)g, 0), zero = cmake<real>(0, 0);
    if (polarized) {
      out[0] = zero, out[1] = v, out[2] = v, out[3] = zero;
    } else {
      out[0] = v;
    }
  } else if (polarized) {
    creal v = cmake<real>((real)(g / 1.4142135623730951), 0);
    out[0] = v, out[1] = v, out[2] = v, out[3] = v;
  } else {
    out[0] = cmake<real>((real)fabs(g), 0);
  }
}

// mirror index onto [0, n) (scipy's whole-sample "mirror" mode).
__device__ __forceinline__ int mirror_idx(int i, int n) {
  if (n <= 1) return 0;
  int sz2 = 2 * n - 2;
  if (i < 0) {
    i += sz2 * (-i / sz2);
    i = (i <= 1 - n) ? i + sz2 : -i;
  } else if (i > n - 1) {
    i -= sz2 * (i / sz2);
    if (i >= n) i = sz2 - i;
  }
  return i;
}

// Footprint of a fractional index c in [0, n-1] as matvis/beam's CPU code:
// order+1 (mirrored) indices and weights (order 1 linear, 3 cubic
// B-spline). Always 4 entries (constant indexing keeps them in registers):
// a linear footprint pads with weight 0 on index idx[0].
__device__ __forceinline__ void axis_weights(double c, int n, int order, int idx[4], real w[4]) {
  double fl = floor(c);
  double x = c - fl;
  int start = (int)fl;
  double wd[4];
  if (order == 1) {
    wd[0] = 1 - x;
    wd[1] = 1 - wd[0];
    wd[2] = 0;
    wd[3] = 0;
  } else {
    start--;
    double z = 1 - x;
    wd[1] = (x * x * (x - 2) * 3 + 4) / 6;
    wd[2] = (z * z * (z - 2) * 3 + 4) / 6;
    wd[0] = z * z * z / 6;
    wd[3] = 1 - wd[0] - wd[1] - wd[2];
  }
#pragma unroll
  for (int k = 0; k < 4; k++) {
    idx[k] = (k <= order) ? mirror_idx(start + k, n) : mirror_idx(start, n);
    w[k] = (real)wd[k];
  }
}

// Per-beam descriptor (uploaded per frequency). kind >= 0: analytic (par
// its parameter); kind -1: gridded, planes at coef + off (in complex
// values), geometry geom.
struct BeamDesc {
  long long off;
  int kind;
  int geom;
  double par;
  double unused;
};

// Grid geometry of gridded beams (matvis/beam PlaneGrid): node (iza, iaz)
// of a beam's planes holds its nc components at coef[off + (iza*naz +
// iaz)*nc + c]; raw values (order 1) or prefiltered cubic B-spline
// coefficients (order 3). sqrtAfter: unpolarized power planes.
struct GeomDesc {
  double za0, zscale, az0, ascale;
  int nza, naz, order, sqrtAfter;
};

// Both descriptors are written by matvis/gpu (descriptors.go: beamDesc,
// geomDesc), which passes their sizes as BEAM_DESC_BYTES and
// GEOM_DESC_BYTES; its TestDescriptorLayout lays these declarations out
// and compares every field's offset (NVRTC has no offsetof in constant
// expressions, so the sizes are what is checked here).
#if !defined(BEAM_DESC_BYTES) || !defined(GEOM_DESC_BYTES)
#error "BEAM_DESC_BYTES, GEOM_DESC_BYTES: compile vis.cu through matvis/gpu, which passes them with -D"
#endif
static_assert(sizeof(BeamDesc) == BEAM_DESC_BYTES && sizeof(BeamDesc::off) == 8 && sizeof(BeamDesc::kind) == 4 &&
                  sizeof(BeamDesc::geom) == 4 && sizeof(BeamDesc::par) == 8,
              "BeamDesc: laid out as matvis/gpu's beamDesc");
static_assert(sizeof(GeomDesc) == GEOM_DESC_BYTES && sizeof(GeomDesc::za0) == 8 && sizeof(GeomDesc::nza) == 4,
              "GeomDesc: laid out as matvis/gpu's geomDesc");

// The 4 components of a polarized node (float: two 16-byte loads).
__device__ __forceinline__ void load4(const float2* p, float2 o[4]) {
  float4 a = __ldg(reinterpret_cast<const float4*>(p));
  float4 b = __ldg(reinterpret_cast<const float4*>(p) + 1);
  o[0] = make_float2(a.x, a.y), o[1] = make_float2(a.z, a.w);
  o[2] = make_float2(b.x, b.y), o[3] = make_float2(b.z, b.w);
}
__device__ __forceinline__ void load4(const double2* p, double2 o[4]) {
#pragma unroll
  for (int c = 0; c < 4; c++) o[c] = __ldg(p + c);
}

// One Z value: beam value times the phasor (pr, pi), formed in double and
// rounded to O (the Gram product's operand type: Z_T, or float2 for the
// fused kernel's shared Z).
template <typename O>
__device__ __forceinline__ O zval(creal bv, double pr, double pi) {
  double vr = (double)bv.x, vi = (double)bv.y;
  O o;
  o.x = vr * pr - vi * pi;
  o.y = vr * pi + vi * pr;
  return o;
}

// zput stores Z's value (row, col) (leading dimension ldz), formed in
// double, as the Gram product's operand: rounded to float2 or double2, or
// for the tensor-core product (uint2) rounded to float, scaled by the
// power of two zscale and split into FP16 words stored in the row's two
// planes, big then small (gram_tc.cuh).
__device__ __forceinline__ void zput(float2* z, long long ldz, long long row, long long col, double re, double im, float) {
  z[row * ldz + col] = make_float2((float)re, (float)im);
}
__device__ __forceinline__ void zput(double2* z, long long ldz, long long row, long long col, double re, double im, float) {
  z[row * ldz + col] = make_double2(re, im);
}
__device__ __forceinline__ void zput(uint2* z, long long ldz, long long row, long long col, double re, double im,
                                     float zscale) {
  unsigned big, small;
  split_h2((float)re * zscale, (float)im * zscale, &big, &small);
  unsigned* w = reinterpret_cast<unsigned*>(z);
  w[2 * row * ldz + col] = big;
  w[(2 * row + 1) * ldz + col] = small;
}

// grid_footprint gives direction (az, za)'s spline footprint on grid g:
// node row offsets (row index × naz), columns and their weights; false
// (and nothing set) outside the grid.
__device__ __forceinline__ bool grid_footprint(const GeomDesc& g, double az, double za, int row[4], int col[4],
                                               real wz[4], real wa[4]) {
  const double cz = (za - g.za0) * g.zscale, ca = (az - g.az0) * g.ascale;
  if (!(cz >= 0 && cz <= g.nza - 1 && ca >= 0 && ca <= g.naz - 1)) return false;
  axis_weights(cz, g.nza, g.order, row, wz);
  axis_weights(ca, g.naz, g.order, col, wa);
#pragma unroll
  for (int k = 0; k < 4; k++) row[k] *= g.naz;
  return true;
}

// SrcBeam evaluates the beams at one source for a run of antennas: the
// source's spline footprint is computed once per grid geometry and kept in
// registers, and a beam is interpolated only when it differs from the
// previous antenna's (v then still holds its value).
struct SrcBeam {
  double az, za;
  int curGeom, lastB;
  bool inGrid;
  int sqrtAfter;
  int row[4], col[4];
  real wz[4], wa[4];
  creal v[4];
};

__device__ __forceinline__ void src_beam_init(SrcBeam& sb, double e, double n) {
  azza(e, n, &sb.az, &sb.za);
  sb.curGeom = -1, sb.lastB = -1;
  sb.inGrid = false;
  sb.sqrtAfter = 0;
}

// src_beam_eval leaves beam b's nc components at the source in sb.v.
__device__ __forceinline__ void src_beam_eval(SrcBeam& sb, int b, const BeamDesc* __restrict__ bdesc,
                                              const GeomDesc* __restrict__ gdesc, const creal* __restrict__ coef,
                                              int polarized, int feedY) {
  if (b == sb.lastB) return;
  sb.lastB = b;
  BeamDesc d = bdesc[b];
  if (d.kind >= 0) {
    beam_analytic(d.kind, d.par, sb.az, sb.za, polarized, feedY, sb.v);
    return;
  }
  if (d.geom != sb.curGeom) {
    sb.curGeom = d.geom;
    const GeomDesc g = gdesc[sb.curGeom];
    sb.inGrid = grid_footprint(g, sb.az, sb.za, sb.row, sb.col, sb.wz, sb.wa);
    sb.sqrtAfter = g.sqrtAfter;
  }
#pragma unroll
  for (int c = 0; c < 4; c++) sb.v[c] = cmake<real>(0, 0);
  if (!sb.inGrid) return;
  const creal* base = coef + d.off;
  if (polarized) {
#pragma unroll
    for (int i = 0; i < 4; i++) {
      creal rs[4];
#pragma unroll
      for (int c = 0; c < 4; c++) rs[c] = cmake<real>(0, 0);
#pragma unroll
      for (int j = 0; j < 4; j++) {
        creal t[4];
        load4(base + (long long)(sb.row[i] + sb.col[j]) * 4, t);
#pragma unroll
        for (int c = 0; c < 4; c++) rs[c].x += sb.wa[j] * t[c].x, rs[c].y += sb.wa[j] * t[c].y;
      }
#pragma unroll
      for (int c = 0; c < 4; c++) sb.v[c].x += sb.wz[i] * rs[c].x, sb.v[c].y += sb.wz[i] * rs[c].y;
    }
  } else {
    real acc = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      real rs = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) rs += sb.wa[j] * __ldg(base + sb.row[i] + sb.col[j]).x;
      acc += sb.wz[i] * rs;
    }
    sb.v[0] = cmake<real>(sb.sqrtAfter ? sqrt_r(acc) : acc, 0);
  }
}

// phasor of antenna a at source direction (e, n, u), scaled by the
// source's amplitude sqrt(I/2): (pr, pi), in double.
__device__ __forceinline__ void phasor(const double* __restrict__ antpos, int a, double omega, double e, double n,
                                       double u, double am, double* pr, double* pi) {
  double tau = omega * (antpos[3 * a] * e + antpos[3 * a + 1] * n + antpos[3 * a + 2] * u);
  double sn, cs;
  sincos(tau, &sn, &cs);
  *pr = cs * am, *pi = sn * am;
}
