// vis_stokes.cuh: a full-Stokes sky's per-time factors on the device
// (matvis/gpu's stokes.go): each source's polarization basis by
// pyradiosky's rigid rotation (matvis.RigidBasis.Basis), its local
// coherency (matvis.LocalCoherency) and its factors W of positive and
// negative sign (matvis.Coherency.Factor), in beam_tau_z_stokes's layout:
// W[ax][k] complex at 2·(ax·2 + k) of the source's 8 doubles, the
// negative sign's in the second half (neg), zeros in the other half. All
// in double, as the host.

// The rigid frame of one time (matvis.RigidBasis.Frame): U, row-major.
struct StokesFrame {
  double u[9];
};

__device__ __forceinline__ void sf_apply(const double* m, const double v[3], double o[3]) {
  for (int i = 0; i < 3; i++) o[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

// sf_project: cos X = ẑâ·t and sin X = ẑâ·q at direction p, ẑâ of (az, za)
// as matvis.AzZa gives them, normalised (matvis's projectBasis and
// basisAngle).
__device__ __forceinline__ void sf_project(const double p[3], const double t[3], const double q[3], double* cx,
                                           double* sx) {
  double rr = fmax(1 - p[0] * p[0] - p[1] * p[1], 0.0);
  double za = PI_D / 2 - asin(sqrt(rr));
  double az = fmod(PI_D / 2 - atan2(p[0], p[1]), 2 * PI_D);
  if (az < 0) az += 2 * PI_D;
  double saz, caz, sz, cz;
  sincos(az, &saz, &caz);
  sincos(za, &sz, &cz);
  double zh[3] = {cz * caz, cz * saz, -sz};
  double c = zh[0] * t[0] + zh[1] * t[1] + zh[2] * t[2];
  double s = zh[0] * q[0] + zh[1] * q[1] + zh[2] * q[2];
  double l = hypot(c, s);
  *cx = c / l, *sx = s / l;
}

// sf_factor writes source s's factors of both signs for basis angle
// (c, sx): its local coherency (matvis.LocalCoherency) and eigen-factors
// (matvis.Coherency.Factor).
__device__ __forceinline__ void sf_factor(double c, double sx, const double* st, long long nsrc, long long s, int iau,
                                          double* pos, double* neg) {
  // The local coherency (φ̂, ẑâ order): [[pp, conj(tp)], [tp, tt]].
  double I = st[s], Q = st[nsrc + s], U = st[2 * nsrc + s], V = st[3 * nsrc + s];
  double ca_ = 0.5 * (I + Q), d_ = 0.5 * (I - Q), br = 0.5 * U, bi = -0.5 * V;
  double csx = c * sx;
  double tt = c * c * ca_ - 2 * csx * br + sx * sx * d_;
  double pp = sx * sx * ca_ + 2 * csx * br + c * c * d_;
  double tpr = csx * (ca_ - d_) + (c * c - sx * sx) * br, tpi = bi;
  if (iau) tpr = -tpr, tpi = -tpi;
  // Factor: C = [[A, B], [B*, D]] with A = pp, D = tt, B = conj(tp).
  double A = pp, D = tt, Br = tpr, Bi = -tpi;
  double m = 0.5 * (A + D), h = 0.5 * (A - D);
  double babs = hypot(Br, Bi);
  double r = hypot(h, babs);
  double lam[2] = {m + r, m - r};
  double e0[4], e1[4];  // (re, im) of components 0 and 1
  if (r == 0) {
    e0[0] = 1, e0[1] = 0, e0[2] = 0, e0[3] = 0;
    e1[0] = 0, e1[1] = 0, e1[2] = 1, e1[3] = 0;
  } else if (h >= 0) {
    double x = h + r, nn = hypot(x, babs);
    e0[0] = x / nn, e0[1] = 0, e0[2] = Br / nn, e0[3] = -Bi / nn;   // (x, b*)/n
    e1[0] = -Br / nn, e1[1] = -Bi / nn, e1[2] = x / nn, e1[3] = 0;  // (−b, x)/n
  } else {
    double x = r - h, nn = hypot(x, babs);
    e0[0] = Br / nn, e0[1] = Bi / nn, e0[2] = x / nn, e0[3] = 0;    // (b, x)/n
    e1[0] = x / nn, e1[1] = 0, e1[2] = -Br / nn, e1[3] = Bi / nn;   // (x, −b*)/n
  }
  double* wp = pos + 8 * s;
  double* wn = neg + 8 * s;
  for (int i = 0; i < 8; i++) wp[i] = 0, wn[i] = 0;
  for (int kk = 0; kk < 2; kk++) {
    const double* e = kk == 0 ? e0 : e1;
    double amp = sqrt(fabs(lam[kk]));
    double* w = lam[kk] < 0 ? wn : wp;
    for (int ax = 0; ax < 2; ax++) {
      w[2 * (ax * 2 + kk)] = amp * e[2 * ax];
      w[2 * (ax * 2 + kk) + 1] = amp * e[2 * ax + 1];
    }
  }
}

// stokes_factor: source s of nsrc, at direction (e, n, u) (double ENU of
// this time), ICRS (ra, dec), Stokes st[k·nsrc + s] (I, Q, U, V); iau: the
// IAU rotation's sign of the off-diagonal terms.
extern "C" __global__ void stokes_factor(long long nsrc, const double* ra, const double* dec, const double* pe,
                                         const double* pn, const double* pu, StokesFrame f, const double* st, int iau,
                                         double* pos, double* neg) {
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsrc) return;
  double sd, cd, sa, ca;
  sincos(dec[s], &sd, &cd);
  sincos(ra[s], &sa, &ca);
  double nf[3] = {cd * ca, cd * sa, sd};
  double th[3] = {sd * ca, sd * sa, -cd};  // θ̂ = −deĉ
  double ph[3] = {-sa, ca, 0};             // φ̂ = râ
  double p[3] = {pe[s], pn[s], pu[s]};
  // r = R(U·n̂ → p)·U applied to θ̂ and φ̂: U first, then the smallest
  // rotation about k = a × p (Rodrigues), a = U·n̂.
  double a[3], t1[3], t2[3];
  sf_apply(f.u, nf, a);
  sf_apply(f.u, th, t1);
  sf_apply(f.u, ph, t2);
  double k[3] = {a[1] * p[2] - a[2] * p[1], a[2] * p[0] - a[0] * p[2], a[0] * p[1] - a[1] * p[0]};
  double sn = sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  double cs = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
  double rt[3], rp[3];
  if (sn == 0) {
    for (int i = 0; i < 3; i++) rt[i] = t1[i], rp[i] = t2[i];
  } else {
    double psi = atan2(sn, cs), sp, cp;
    sincos(psi, &sp, &cp);
    for (int i = 0; i < 3; i++) k[i] /= sn;
    // R[i][j] = (1−c)·k_i·k_j + s·[k]×[i][j] + c·δ_ij, as the host builds it.
    double r[9] = {(1 - cp) * k[0] * k[0] + cp,        (1 - cp) * k[0] * k[1] - sp * k[2], (1 - cp) * k[0] * k[2] + sp * k[1],
                   (1 - cp) * k[1] * k[0] + sp * k[2], (1 - cp) * k[1] * k[1] + cp,        (1 - cp) * k[1] * k[2] - sp * k[0],
                   (1 - cp) * k[2] * k[0] - sp * k[1], (1 - cp) * k[2] * k[1] + sp * k[0], (1 - cp) * k[2] * k[2] + cp};
    sf_apply(r, t1, rt);
    sf_apply(r, t2, rp);
  }
  double c, sx;
  sf_project(p, rt, rp, &c, &sx);
  sf_factor(c, sx, st, nsrc, s, iau, pos, neg);
}

// stokes_factor_fd: the same factors with matvis.FDBasis's basis: θ̂ along
// the difference of the directions of the source's neighbours at dec − h
// (dn) and dec + h (up), φ̂ = p × θ̂, made by the same device transform as
// the source's own direction p.
extern "C" __global__ void stokes_factor_fd(long long nsrc, const double* pe, const double* pn, const double* pu,
                                            const double* ue, const double* un, const double* uu, const double* de,
                                            const double* dn, const double* du, const double* st, int iau,
                                            double* pos, double* neg) {
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsrc) return;
  double p[3] = {pe[s], pn[s], pu[s]};
  double th[3] = {de[s] - ue[s], dn[s] - un[s], du[s] - uu[s]};  // −∂ŝ/∂dec
  double ph[3] = {p[1] * th[2] - p[2] * th[1], p[2] * th[0] - p[0] * th[2], p[0] * th[1] - p[1] * th[0]};
  double c, sx;
  sf_project(p, th, ph, &c, &sx);
  sf_factor(c, sx, st, nsrc, s, iau, pos, neg);
}
