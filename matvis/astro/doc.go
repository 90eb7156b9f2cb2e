// Package astro turns ICRS source positions (right ascension, declination)
// and UTC Julian dates into topocentric East-North-Up unit vectors, the way
// astropy 7.2 (through ERFA) does for an AltAz frame without refraction,
// and the way HERA's matvis uses them. It is pure Go.
//
// # The chain
//
// Per time (see matvis-conventions §4.1 and astropy's
// coordinates/builtin_frames/icrs_observed_transforms.py):
//
//   - UTC → TAI with the leap-second table (TAIminusUTC; ERFA utctai rules,
//     leap-second days stretched), TT = TAI + 32.184 s, TDB = TT + the
//     largest Fairhead & Bretagnon terms, UT1 = UTC + (UT1 − UTC).
//   - Earth barycentric position/velocity and heliocentric position from
//     the EPV00 series at TDB (the full published tables).
//   - CIP X, Y from the IAU 2006 precession (Fukushima-Williams angles) and
//     IAU 2000A nutation with the P03 adjustments (all 1365 MHB2000 terms),
//     the CIO locator s (IAU 2006 series), the TIO locator s', the Earth
//     rotation angle at UT1 and polar motion.
//   - The ERFA apco context: WGS84 site, observer position and velocity
//     (diurnal aberration enters through the velocity).
//   - Per source: light deflection by the Sun, aberration,
//     bias-precession-nutation (astropy's atciqz), then the observed
//     transformation (ERFA atioq with zero refraction), and
//     e = cos(alt) sin(az), n = cos(alt) cos(az), u = sin(alt).
//
// MethodERFA (matvis's CoordinateRotationERFA, matvis-conventions §4.2)
// does the same on Cartesian vectors, splitting it into a "BCRS step"
// (deflection, aberration, bias-precession-nutation) that can be reused for
// UpdateBCRSEvery seconds, and one 3×3 matrix per time; it implements
// MatrixRotation so a GPU can apply the matrix itself, and BCRSRotation
// (the fixed ECI vectors and each refresh's constants) so a GPU can redo the
// BCRS step itself from vectors it holds once.
//
// # Accuracy
//
// Against astropy's vectors in the reference simulations (../shared), both
// methods agree to about 1e-14 rad (1e-5 mas) for every source above the
// horizon: the same algorithms and tables are evaluated, so only rounding
// differs. With UpdateBCRSEvery > 0 the stale BCRS step costs about
// 0.02 mas per second of staleness (mostly the diurnal aberration turning
// with the Earth): ≈ 1.1, 3.3 and 11 mas at 60, 180 and 600 s.
//
// Earth-orientation values come from the caller (Config.EOP), e.g. from an
// IERS finals2000A file through ParseFinals2000A and EOPTable.At.
//
// # Sources of the numbers
//
// Constant tables are published standards: IERS Conventions 2010 (IERS
// Technical Note 36) chapter 5, the IAU SOFA library's published series
// (EPV00, IAU 2000A nutation, s06), Fairhead & Bretagnon (1990), IERS
// Bulletin C and the USNO tai-utc.dat for TAI − UTC, and the published
// SOFA/ERFA test values in the tests. The large tables are written by
// internal/gentables from a SOFA or ERFA source tree:
//
//	ERFA_SRC=/path/to/erfa/src go generate ./matvis/astro
package astro

//go:generate sh -c "go run ./internal/gentables -src \"$ERFA_SRC\" -out ."
