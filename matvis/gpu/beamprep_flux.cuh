// beamprep_flux.cuh: a power-law sky's flux table made on the device
// (setupFluxTable, coords.go), included by beamprep.cu. Its host twin is
// matvis/skymodel's powerLaw, whose formula it repeats operation for
// operation.

// bp_power_law fills the source-major flux table flux[s·nfreq + f] of a
// power-law sky, S_ref·exp(α·(ln f − ln f_ref)) with ln f of each channel
// in lnf, one element a thread (so that the writes coalesce), and sets
// *bad when a value is not finite (an overflow: the run then evaluates
// the sky on the host, whose error names the source and channel).
extern "C" __global__ void bp_power_law(double* flux, const double* sref, const double* index, const double* lnref,
                                        const double* lnf, long long nsrc, int nfreq, int* bad) {
  long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nsrc * nfreq) return;
  long long s = e / nfreq;
  int f = (int)(e - s * nfreq);
  double v = sref[s] * exp(index[s] * (lnf[f] - lnref[s]));
  if (!isfinite(v)) *bad = 1;
  flux[e] = v;
}
