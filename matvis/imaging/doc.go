// Package imaging makes dirty images and point-spread functions (PSFs) of
// phased visibilities, as WSClean 3.1 makes them with -niter 0, so that a
// gomatvis simulation can be looked at and checked against WSClean pixel
// by pixel.
//
// # Conventions
//
// The input is phased: row k has a baseline (u, v, w) in metres with v
// towards ICRS north and w towards the phase centre (matvis/phase's and
// the Measurement Set's frame), and a source at direction cosines
// (l, m) from the centre (l east, m north, n = √(1 − l² − m²)) appears as
// V = S·exp(+2πi(u·l + v·m + w·(n − 1))·f/c). The dirty image inverts that
// exactly, w-terms included (a 3-D direct-to-image transform):
//
//	I(l, m) = Re Σ_j ω_j V_j exp(−2πi(u_j l + v_j m + w_j (n − 1))) / Σ_j ω_j
//
// over every sample j (row and channel, u, v, w in wavelengths) with its
// imaging weight ω_j. A point source of apparent flux S gives a peak of S
// at its pixel (Jy/beam: the PSF's peak is 1), as WSClean's images do. The
// real part is the image of the Hermitian-completed data: V(−u) = V(u)*.
// The sum is computed, to a requested accuracy, by w-gridding (wgrid.go:
// WSClean's w-gridder's design, the samples spread onto planes of w, each a
// uv grid transformed by a 2-D FFT and multiplied by its plane's phase
// screen) or by the type-3 non-uniform FFT of matvis/nufft (targets
// 2π(l, m, n − 1) per pixel), its slower twin (Options.Method); Direct is
// the plain sum both are tested against.
//
// # Pixels
//
// An image is N × N pixels of Cell radians in l and m (the orthographic,
// SIN, projection). Pixel (x, y), 0-based, x fastest, is at
// l = (N/2 − x)·Cell, m = (y − N/2)·Cell: east to the left, north up, the
// centre at (N/2, N/2), as WSClean writes them (FITS CRPIX = N/2 + 1,
// CDELT1 = −Cell, CDELT2 = +Cell in degrees). Pixels beyond the horizon
// (l² + m² ≥ 1) hold 0.
//
// # Weights
//
// Natural, uniform and Briggs weighting follow WSClean's ImageWeights:
// the samples' natural weights are summed on an N × N/2 grid of the
// uv plane (the image's own, cells of 1/(N·Cell) wavelengths, or with
// Weighting.Padding WSClean's padded image's, PaddedSize(N) cells a side;
// a sample with v < 0 counts at (−u, −v)); uniform weighting divides each sample's
// weight by its cell's sum W; Briggs weighting with robustness R by
// 1 + W·f², f² = (5·10^−R)² / (Σ W² / Σ W). Samples outside that grid get
// weight 0 in every mode (WSClean drops them too; they lie beyond the
// image's Nyquist limit).
package imaging
