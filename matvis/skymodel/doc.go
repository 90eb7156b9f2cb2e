// Package skymodel reads the sky catalogs radio astronomers already have
// and evaluates per-component Stokes fluxes one frequency at a time.
//
// Readers (ReadFile dispatches on pyuvsim's sources.filetype or the
// extension):
//
//   - ReadTextFile: pyradiosky text catalogs (read_text_catalog);
//   - ReadSkyH5File: pyradiosky SkyH5, point sources and HEALPix maps;
//   - ReadVOTableFile, ReadGLEAMFile: VOTables such as GLEAM
//     (read_votable_catalog, read_gleam_catalog), TABLEDATA only;
//   - ReadStokesTSVFile: a plain table of I, Q, U, V with power laws.
//
// A Sky holds ICRS positions (radians; HEALPix pixels become point
// components at their centres, galactic and FK5 J2000 positions are
// rotated to ICRS) and the catalog's own spectral model. It is never
// expanded into a per-channel table: StokesAt writes one Stokes parameter
// of every component at one frequency, in Jy, into the caller's buffer.
// The evaluation rules are pyradiosky's SkyModel.at_frequencies
// (src/pyradiosky/skymodel.py), which pyuvsim applies before simulating:
//
//   - flat: the same Stokes at every frequency;
//   - spectral_index: S(f) = S_ref·(f/f_ref)^α, all four Stokes;
//   - subband: a not-a-knot cubic spline through the subband fluxes
//     (scipy.interpolate.interp1d kind "cubic", at_frequencies' default),
//     or linear interpolation on request (SetSubbandInterp); frequencies
//     outside the subbands are an error; NaN subband fluxes are skipped and
//     held constant beyond the last usable subband (nan_handling "clip");
//   - full: only the tabulated frequencies (within 1 Hz + 1e-5·f, numpy
//     isclose as at_frequencies uses) may be asked for.
//
// Brightness temperatures (K for HEALPix, K·sr for points) are converted
// with the Rayleigh–Jeans factor JyPerKSr (pyradiosky's kelvin_to_jansky)
// in pyuvsim's order: spectral_index and subband maps (and flat maps with
// no frequency) are evaluated in K and converted at each channel
// frequency; full maps and flat maps with a frequency at their own.
// Select applies pyuvsim's min_flux / max_flux / non_negative options.
//
// A Sky is safe for concurrent evaluation; SetSubbandInterp must not race
// with it.
package skymodel
