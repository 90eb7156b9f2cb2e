package skymodel

import (
	"fmt"
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

// kelvinPerChannel reports whether u leaves c in K·sr, to be converted
// to Jy at each evaluated frequency. pyuvsim evaluates a HEALPix map's
// spectrum first (at_frequencies, for spectral_index and subband, and for
// flat maps with no frequency at all) and only then converts it to Jy at
// the simulation frequencies (healpix_to_point → kelvin_to_jansky); full
// maps and flat maps with a reference frequency or one frequency are
// converted at the catalog's own frequencies.
func (u fluxUnit) kelvinPerChannel(c *Components) bool {
	if !u.kelvin {
		return false
	}
	switch c.Spectral {
	case SpectralIndex, Subband:
		return true
	case Flat:
		return c.RefFreq == nil && len(c.Freqs) != 1
	}
	return false
}

// toJy converts c.Stokes from unit u to Jy in place, or to K·sr where
// kelvinPerChannel. A per-steradian unit needs the solid angle omega of
// each component (HEALPix pixel area).
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
		if !u.kelvin || u.kelvinPerChannel(c) {
			continue
		}
		switch {
		case c.Spectral == Flat && c.RefFreq != nil:
			for i := range st {
				st[i] *= JyPerKSr(c.RefFreq[i])
			}
		default: // full, or flat with one frequency
			for k := range st {
				st[k] *= JyPerKSr(c.Freqs[k/n])
			}
		}
	}
	return nil
}
