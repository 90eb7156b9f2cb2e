package skymodel

import (
	"fmt"
	"math"
	"strings"
)

// Physical constants of the 2019 SI (exact), as astropy 5+ uses them.
const (
	boltzmann   = 1.380649e-23 // J/K
	speedOfLite = 299792458.0  // m/s
	jansky      = 1e-26        // W m⁻² Hz⁻¹
)

// JyPerKSr returns the Rayleigh–Jeans factor 2kν²/c² (in Jy per K·sr)
// that converts a brightness temperature times a solid angle into a flux
// density: S[Jy] = T[K]·Ω[sr]·JyPerKSr(ν). It is the inverse of
// pyradiosky.utils.jy_to_ksr, which uses astropy's
// units.brightness_temperature equivalency (Rayleigh–Jeans limit).
func JyPerKSr(freqHz float64) float64 {
	return 2 * boltzmann * freqHz * freqHz / (speedOfLite * speedOfLite) / jansky
}

// fluxUnit is what a catalog's Stokes are in, before conversion to Jy.
type fluxUnit struct {
	kelvin   bool    // brightness temperature (K or K·sr) rather than Jy
	perSr    bool    // per steradian (Jy/sr, K): needs a pixel solid angle
	scale    float64 // to Jy or K (mJy → 1e-3)
	original string
}

// parseFluxUnit understands the astropy unit strings pyradiosky writes:
// "Jy", "Jy / sr", "K", "K sr" (and "mJy").
func parseFluxUnit(s string) (fluxUnit, error) {
	u := fluxUnit{scale: 1, original: s}
	norm := strings.Join(strings.Fields(s), " ")
	switch norm {
	case "Jy":
	case "mJy":
		u.scale = 1e-3
	case "Jy / sr", "Jy/sr", "Jy sr-1", "Jy sr^-1":
		u.perSr = true
	case "K":
		u.kelvin, u.perSr = true, true
	case "K sr", "K*sr", "K.sr":
		u.kelvin = true
	default:
		return u, fmt.Errorf("unsupported flux unit %q (want Jy, mJy, Jy/sr, K or K sr)", s)
	}
	return u, nil
}

// flatKelvin reports whether u leaves c in K·sr, to be converted to Jy at
// each evaluated frequency: a flat sky in brightness temperature with
// neither a reference frequency nor a frequency.
func (u fluxUnit) flatKelvin(c *Components) bool {
	return u.kelvin && c.Spectral == Flat && c.RefFreq == nil && len(c.Freqs) != 1
}

// toJy converts c.Stokes from unit u to Jy in place (to K·sr where
// flatKelvin). A per-steradian unit
// needs the solid angle omega of each component (HEALPix pixel area);
// brightness temperatures are converted at the reference frequency for
// spectral_index and flat-with-reference skies, and at each tabulated
// frequency otherwise, as pyradiosky's kelvin_to_jansky does.
func (u fluxUnit) toJy(c *Components, omega float64) error {
	if err := checkComponents(c, len(c.RA)); err != nil {
		return err
	}
	scale := u.scale
	if u.perSr {
		if !(omega > 0) {
			return fmt.Errorf("unit %q is per steradian but the components have no solid angle", u.original)
		}
		scale *= omega
	}
	n := len(c.RA)
	for p := range 4 {
		st := c.Stokes[p]
		for k := range st {
			st[k] *= scale
		}
		if !u.kelvin {
			continue
		}
		switch {
		case c.Spectral == SpectralIndex || (c.Spectral == Flat && c.RefFreq != nil):
			for i := range st {
				st[i] *= JyPerKSr(c.RefFreq[i])
			}
		case c.Spectral == Subband || c.Spectral == Full || (c.Spectral == Flat && len(c.Freqs) == 1):
			for k := range st {
				st[k] *= JyPerKSr(c.Freqs[k/n])
			}
		default:
			// A flat brightness temperature with no frequency: pyuvsim
			// evaluates it at the simulation frequencies before converting
			// (at_frequencies, then healpix_to_point), so the conversion
			// happens per channel (Sky.flatKelvin).
		}
	}
	return nil
}

// pixelArea returns the solid angle of one HEALPix pixel, 4π/(12·nside²).
func pixelArea(nside int) float64 {
	return 4 * math.Pi / (12 * float64(nside) * float64(nside))
}
