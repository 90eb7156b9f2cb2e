// Package healpix converts HEALPix pixel indices to pixel-centre positions
// in the RING and NESTED schemes, following the published geometry of
// Górski et al. 2005, ApJ 622, 759 ("HEALPix: a framework for high-resolution
// discretization and fast analysis of data distributed on the sphere"),
// section 4 and appendix, with the polar-cap colatitude computed as
// 2·asin(√(Δz/2)) so that it stays accurate to ~1e-16 rad near the poles.
package healpix

import (
	"fmt"
	"math"
	"math/bits"
)

// MaxNside is the largest nside accepted (2^29, as in HEALPix C++).
const MaxNside = 1 << 29

// Npix returns the number of pixels of a map with the given nside.
func Npix(nside int) int64 { return 12 * int64(nside) * int64(nside) }

// PixelArea returns the solid angle of one pixel, 4π/Npix steradians.
func PixelArea(nside int) float64 { return 4 * math.Pi / float64(Npix(nside)) }

// CheckNside reports whether nside is a valid HEALPix resolution: a power
// of two (required by the NESTED scheme; RING accepts any positive nside
// when nest is false).
func CheckNside(nside int, nest bool) error {
	if nside < 1 || nside > MaxNside {
		return fmt.Errorf("healpix: nside %d out of range 1..%d", nside, MaxNside)
	}
	if nest && nside&(nside-1) != 0 {
		return fmt.Errorf("healpix: nside %d is not a power of two (required for NESTED)", nside)
	}
	return nil
}

// Pix2Ang returns the colatitude theta ∈ [0, π] and longitude phi ∈ [0, 2π)
// (radians) of the centre of pixel ipix, in the NESTED scheme if nest, else
// RING. It returns an error for an invalid nside or pixel index.
func Pix2Ang(nside int, ipix int64, nest bool) (theta, phi float64, err error) {
	if err := CheckNside(nside, nest); err != nil {
		return 0, 0, err
	}
	if ipix < 0 || ipix >= Npix(nside) {
		return 0, 0, fmt.Errorf("healpix: pixel %d out of range 0..%d for nside %d", ipix, Npix(nside)-1, nside)
	}
	var ring, pos int64 // ring number 1..4nside-1, position in ring (1-based, may be half-integer shifted)
	var shifted bool
	if nest {
		ring, pos, shifted = nestRing(int64(nside), ipix)
	} else {
		ring, pos, shifted = ringRing(int64(nside), ipix)
	}
	theta, phi = ringAngles(int64(nside), ring, pos, shifted)
	return theta, phi, nil
}

// isqrt returns ⌊√v⌋ exactly for v ≥ 0.
func isqrt(v int64) int64 {
	r := int64(math.Sqrt(float64(v)))
	for r*r > v {
		r--
	}
	for (r+1)*(r+1) <= v {
		r++
	}
	return r
}

// ringRing finds ring number i (1..4nside−1) and in-ring index j (1-based)
// of a RING pixel (Górski et al. 2005, eqs. 2–6 inverted).
func ringRing(ns, p int64) (ring, j int64, shifted bool) {
	ncap := 2 * ns * (ns - 1)
	npix := 12 * ns * ns
	switch {
	case p < ncap: // north polar cap: ring i holds 4i pixels
		i := (isqrt(2*p+1) + 1) / 2
		for 2*i*(i-1) > p {
			i--
		}
		for 2*(i+1)*i <= p {
			i++
		}
		return i, p - 2*i*(i-1) + 1, true
	case p < npix-ncap: // equatorial belt: 4nside pixels per ring
		q := p - ncap
		i := q/(4*ns) + ns
		return i, q%(4*ns) + 1, (i-ns)%2 == 0
	default: // south polar cap, mirrored
		q := npix - 1 - p
		i := (isqrt(2*q+1) + 1) / 2
		for 2*i*(i-1) > q {
			i--
		}
		for 2*(i+1)*i <= q {
			i++
		}
		j := 4*i - (q - 2*i*(i-1))
		return 4*ns - i, j, true
	}
}

// Face layout of the NESTED scheme: ring offset and longitude offset of the
// southern corner of each of the 12 base pixels (Górski et al. 2005, fig. 4).
var (
	faceRing = [12]int64{2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4}
	facePhi  = [12]int64{1, 3, 5, 7, 0, 2, 4, 6, 1, 3, 5, 7}
)

// compact extracts the even-position bits of v (bit 2k → bit k).
func compact(v uint64) uint64 {
	var r uint64
	for k := 0; v != 0; k++ {
		r |= (v & 1) << k
		v >>= 2
	}
	return r
}

// nestRing maps a NESTED pixel to its ring number and in-ring index.
func nestRing(ns, p int64) (ring, j int64, shifted bool) {
	order := bits.TrailingZeros64(uint64(ns))
	face := p >> (2 * order)
	sub := uint64(p & (ns*ns - 1))
	x := int64(compact(sub))
	y := int64(compact(sub >> 1))
	ring = faceRing[face]*ns - x - y - 1
	var nr int64 // pixels per quarter ring
	shift := int64(0)
	switch {
	case ring < ns:
		nr = ring
	case ring > 3*ns:
		nr = 4*ns - ring
	default:
		nr = ns
		shift = (ring - ns) & 1
	}
	j = (facePhi[face]*nr + x - y + 1 + shift) / 2
	if j > 4*nr {
		j -= 4 * nr
	}
	if j < 1 {
		j += 4 * nr
	}
	// In the caps every ring is shifted by half a pixel; in the belt the
	// rings with (ring−nside) even are.
	return ring, j, shift == 0
}

// ringAngles returns the centre of pixel j (1-based) of ring i.
func ringAngles(ns, i, j int64, shifted bool) (theta, phi float64) {
	nsf := float64(ns)
	var nr int64
	switch {
	case i < ns: // north cap: z = 1 − i²/(3nside²)
		nr = i
		d := float64(i) * float64(i) / (3 * nsf * nsf)
		theta = 2 * math.Asin(math.Sqrt(d/2))
	case i > 3*ns: // south cap
		nr = 4*ns - i
		d := float64(nr) * float64(nr) / (3 * nsf * nsf)
		theta = math.Pi - 2*math.Asin(math.Sqrt(d/2))
	default: // belt: z = 4/3 − 2i/(3nside)
		nr = ns
		theta = math.Acos((2*nsf - float64(i)) * 2 / (3 * nsf))
	}
	// Pixel j (1-based) of a ring is centred at (j − ½)·π/(2nr) on rings
	// shifted by half a pixel and at (j − 1)·π/(2nr) on the others.
	off := 1.0
	if shifted {
		off = 0.5
	}
	phi = (float64(j) - off) * math.Pi / (2 * float64(nr))
	return theta, phi
}
