// Package phase phases drift-scan (unprojected) visibilities to a sidereal
// phase centre the way pyuvdata 2.4.2 does (UVData.phase and
// UVData.phase_to_time, which pyuvsim's UVFITS output and pyuvdata's
// Measurement Set writer use through force_phase), in pure Go on
// matvis/astro.
//
// # Conventions
//
// Input rows are unprojected, as pyuvsim and gomatvis write them: the
// baseline of a row is uvw = ENU(ant2) − ENU(ant1) (metres) and a source in
// direction s (east, north, up) contributes exp(+2πi·uvw·s·f/c).
//
// Per time (pyuvdata utils.calc_app_coords, calc_frame_pos_angle,
// calc_uvw(use_ant_pos=True) and UVData._apply_w_proj):
//
//   - the centre's apparent RA/Dec (astro.Observer.ICRSToApparent, ERFA
//     atco13 without refraction, RA equinox-based);
//   - the frame position angle: the apparent positions 0.5° north and south
//     of the centre taken back to ICRS, frame_pa = −(position angle of the
//     north point seen from the south point), so v points to ICRS north;
//   - uvw: each antenna's ECEF offset from the telescope rotated about z by
//     GHA = (LST − app_ra) − longitude, about y by app_dec, then about x by
//     frame_pa; (w, u, v) are the rotated (x, y, z), and a row's uvw is
//     rot(ant2) − rot(ant1);
//   - the visibilities multiplied by exp(−2πi·(w_new − w_old)·f/c) with
//     w_old = 0 for unprojected data.
//
// The sign makes a source at the phase centre have zero phase on every
// baseline: its drift fringe is exp(+2πi·w·f/c) (w is the baseline
// projected on the centre's direction) and the factor removes it.
//
// LST is the caller's: pyuvdata uses the data's lst_array
// (astro.ApparentLST computes it as pyuvdata does).
//
// The frame angle is measured, as pyuvdata does, at the south end of a 1°
// arc, which puts v off ICRS north by about |frame_pa|·tan|dec|·0.5°
// (1e-5 rad at |dec| = 60° in 2022). Within a few degrees of a pole the
// method fails outright (the apparent pole is 0.3° from the ICRS pole by
// precession since J2000); within 0.5° of one, where the arc crosses the
// pole, pyuvdata 2.4.2 raises (south) or moves the wrong offset point
// (north), and this package wraps the offset point over the pole.
package phase

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// SpeedOfLight is c in m/s, as pyuvdata takes it from astropy.
const SpeedOfLight = 299792458.0

// Centre is a sidereal phase centre: an ICRS position (epoch J2000).
type Centre struct {
	Name    string  // pyuvdata's cat_name
	RA, Dec float64 // ICRS right ascension and declination, radians
}

// Phaser phases one array's drift-scan data to one centre.
type Phaser struct {
	site   astro.Site
	ecef   [][3]float64
	centre Centre
}

// New checks the inputs and returns a Phaser for the antennas at antECEF
// (metres, ECEF offsets from the site: UVH5's antenna_positions; see
// ECEFFromENU) and the centre.
func New(site astro.Site, antECEF [][3]float64, centre Centre) (*Phaser, error) {
	if !finite(site.LatDeg, site.LonDeg, site.HeightM) || math.Abs(site.LatDeg) > 90 {
		return nil, fmt.Errorf("phase: site (lat %v°, lon %v°, height %v m): must be finite with |lat| <= 90°", site.LatDeg, site.LonDeg, site.HeightM)
	}
	if !finite(centre.RA, centre.Dec) || math.Abs(centre.Dec) > math.Pi/2 {
		return nil, fmt.Errorf("phase: centre %q at RA %v rad, Dec %v rad: must be finite with |Dec| <= π/2", centre.Name, centre.RA, centre.Dec)
	}
	if len(antECEF) == 0 {
		return nil, errors.New("phase: no antenna positions")
	}
	for i, p := range antECEF {
		if !finite(p[0], p[1], p[2]) {
			return nil, fmt.Errorf("phase: antenna %d's position %v is not finite", i, p)
		}
	}
	return &Phaser{site: site, ecef: append([][3]float64(nil), antECEF...), centre: centre}, nil
}

// ECEFFromENU rotates east-north-up antenna positions (metres, relative to
// the site) into ECEF offsets, as pyuvdata stores antenna_positions.
// pyuvdata goes through absolute ECEF positions, which rounds the offsets
// to about 1e-9 m; this rotation does not.
func ECEFFromENU(site astro.Site, enu [][3]float64) [][3]float64 {
	out := make([][3]float64, len(enu))
	for i, p := range enu {
		out[i] = astro.ENUToECEF(site, p)
	}
	return out
}

// Target says where drift-scan data are phased to, and with which Earth
// orientation: the ICRS Centre, or — Centre nil — the zenith of the first
// time, as pyuvdata's force_phase (phase_to_time of the first time) does.
// The MS writer and the imager take one.
type Target struct {
	Centre *Centre
	// EOP gives the Earth-orientation values at a UTC Julian date.
	EOP func(jd float64) (astro.EOP, error)
}

// CentreFor is t's centre for data at site whose times are times: Centre,
// or the zenith of times[0].
func (t Target) CentreFor(site astro.Site, times []float64) (Centre, error) {
	if t.Centre != nil {
		return *t.Centre, nil
	}
	if len(times) == 0 {
		return Centre{}, fmt.Errorf("phase: no times to take the first time's zenith of")
	}
	eop, err := t.EOP(times[0])
	if err != nil {
		return Centre{}, err
	}
	return ZenithCentre(site, times[0], eop)
}

// ZenithCentre is the centre pyuvdata's phase_to_time(jd) phases to: the
// ICRS position of the site's zenith at the UTC Julian date jd, named
// "zenith_at_jd%f".
func ZenithCentre(site astro.Site, jd float64, eop astro.EOP) (Centre, error) {
	obs, err := astro.NewObserver(site, jd, eop)
	if err != nil {
		return Centre{}, fmt.Errorf("phase: the zenith at JD %v: %w", jd, err)
	}
	ra, dec := obs.ZenithICRS()
	return Centre{Name: fmt.Sprintf("zenith_at_jd%f", jd), RA: ra, Dec: dec}, nil
}

// Time is the phasing of one integration: the centre's apparent position,
// the frame angle and every antenna's rotated position.
type Time struct {
	JD, LST float64
	// AppRA, AppDec (radians) and FramePA (radians) are pyuvdata's
	// phase_center_app_ra, phase_center_app_dec and phase_center_frame_pa.
	AppRA, AppDec, FramePA float64
	ant                    [][3]float64 // (u, v, w) of each antenna's offset
}

// At computes the phasing at the UTC Julian date jd, with lst the local
// apparent sidereal time (radians) the data carry and eop the
// Earth-orientation values of that time.
func (p *Phaser) At(jd, lst float64, eop astro.EOP) (*Time, error) {
	if !finite(lst) {
		return nil, fmt.Errorf("phase: LST %v at JD %v is not finite", lst, jd)
	}
	obs, err := astro.NewObserver(p.site, jd, eop)
	if err != nil {
		return nil, fmt.Errorf("phase: JD %v: %w", jd, err)
	}
	t := &Time{JD: jd, LST: lst}
	t.AppRA, t.AppDec = obs.ICRSToApparent(p.centre.RA, p.centre.Dec)
	t.FramePA = framePA(obs, t.AppRA, t.AppDec)
	gha := (lst - t.AppRA) - p.site.LonDeg*math.Pi/180
	rot := uvwRotation(gha, t.AppDec, t.FramePA)
	t.ant = make([][3]float64, len(p.ecef))
	for i, x := range p.ecef {
		t.ant[i] = rot(x)
	}
	return t, nil
}

// framePA is pyuvdata's calc_frame_pos_angle for the ICRS frame: the
// angle from apparent north to ICRS north at the centre, measured over a
// 1° arc.
func framePA(obs *astro.Observer, appRA, appDec float64) float64 {
	const offset = math.Pi / 360
	upRA, upDec := appRA, appDec+offset
	dnRA, dnDec := appRA, appDec-offset
	if upDec > math.Pi/2 {
		upRA, upDec = math.Mod(upRA+math.Pi, 2*math.Pi), math.Pi-upDec
	}
	if dnDec < -math.Pi/2 {
		dnRA, dnDec = math.Mod(dnRA+math.Pi, 2*math.Pi), -math.Pi-dnDec
	}
	ra1, dec1 := obs.ApparentToICRS(dnRA, dnDec)
	ra2, dec2 := obs.ApparentToICRS(upRA, upDec)
	return -positionAngle(ra1, dec1, ra2, dec2)
}

// positionAngle is ERFA pas: the position angle of B = (bl, bp) seen from
// A = (al, ap), radians, north through east.
func positionAngle(al, ap, bl, bp float64) float64 {
	dl := bl - al
	y := math.Sin(dl) * math.Cos(bp)
	x := math.Sin(bp)*math.Cos(ap) - math.Cos(bp)*math.Sin(ap)*math.Cos(dl)
	if x == 0 && y == 0 {
		return 0
	}
	return math.Atan2(y, x)
}

// uvwRotation returns the map from an ECEF offset to (u, v, w): rotations
// about z by gha, about y by dec (one matrix, as pyuvdata's
// _rotate_two_axis), then about x by pa; w, u, v are the rotated x, y, z.
func uvwRotation(gha, dec, pa float64) func([3]float64) [3]float64 {
	sg, cg := math.Sincos(gha)
	sd, cd := math.Sincos(dec)
	sp, cp := math.Sincos(pa)
	m := [3][3]float64{
		{cd * cg, -cd * sg, sd},
		{sg, cg, 0},
		{-sd * cg, sd * sg, cd},
	}
	return func(x [3]float64) [3]float64 {
		var r [3]float64
		for i := range r {
			r[i] = m[i][0]*x[0] + m[i][1]*x[1] + m[i][2]*x[2]
		}
		// About x by pa: (r0, cp·r1 − sp·r2, sp·r1 + cp·r2).
		return [3]float64{cp*r[1] - sp*r[2], sp*r[1] + cp*r[2], r[0]}
	}
}

// UVW is the phased uvw (metres) of the baseline from antenna index i1 to
// i2 (indices into the positions given to New): rot(ant2) − rot(ant1).
func (t *Time) UVW(i1, i2 int) [3]float64 {
	a, b := t.ant[i1], t.ant[i2]
	return [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
}

// WTerm is the factor exp(−2πi·w·f/c) that phases unprojected data with
// the new w (metres) at frequency f (Hz), computed as pyuvdata does.
func WTerm(w, f float64) complex128 {
	x := w * (1 / SpeedOfLight) * f
	s, c := math.Sincos(-2 * math.Pi * x)
	return complex(c, s)
}

// Apply phases one time's rows in place: for row k, the baseline from
// antenna index a1[k] to a2[k], it stores the phased uvw in uvw[k] (when
// uvw is not nil) and multiplies vis[k·nf·npol : (k+1)·nf·npol] (C order:
// channel, then polarization; nf = len(freqs)) by WTerm(w, freq). Large
// blocks are split over all cores; each row's arithmetic is the same.
//
// Over evenly spaced channels the factors come from a recurrence
// (wTerms), within a few ulps per channel of WTerm's; applyExact is the
// per-channel twin it is tested against.
func (t *Time) Apply(a1, a2 []int, freqs []float64, npol int, vis []complex128, uvw [][3]float64) error {
	return t.apply(a1, a2, freqs, npol, vis, nil, uvw, spacingOf(freqs))
}

// ApplyTo is Apply leaving vis as it is and storing the phased values,
// rounded to complex64, in dst (as long as vis): what Apply and a
// conversion give, in one pass.
func (t *Time) ApplyTo(dst []complex64, a1, a2 []int, freqs []float64, npol int, vis []complex128, uvw [][3]float64) error {
	if len(dst) != len(vis) {
		return fmt.Errorf("phase: room for %d phased visibilities for %d", len(dst), len(vis))
	}
	return t.apply(a1, a2, freqs, npol, vis, dst, uvw, spacingOf(freqs))
}

// applyExact is Apply with WTerm computed for every row and channel.
func (t *Time) applyExact(a1, a2 []int, freqs []float64, npol int, vis []complex128, uvw [][3]float64) error {
	return t.apply(a1, a2, freqs, npol, vis, nil, uvw, 0)
}

// apply is Apply (dst nil) or ApplyTo with the channel spacing df (0:
// not evenly spaced).
func (t *Time) apply(a1, a2 []int, freqs []float64, npol int, vis []complex128, dst []complex64, uvw [][3]float64, df float64) error {
	nf, nrow := len(freqs), len(a1)
	switch {
	case len(a2) != nrow:
		return fmt.Errorf("phase: %d first antennas but %d second antennas", nrow, len(a2))
	case npol < 1:
		return fmt.Errorf("phase: %d polarizations", npol)
	case len(vis) != nrow*nf*npol:
		return fmt.Errorf("phase: %d visibilities for %d rows × %d channels × %d polarizations", len(vis), nrow, nf, npol)
	case uvw != nil && len(uvw) != nrow:
		return fmt.Errorf("phase: room for %d uvw for %d rows", len(uvw), nrow)
	}
	for k := range nrow {
		if a1[k] < 0 || a1[k] >= len(t.ant) || a2[k] < 0 || a2[k] >= len(t.ant) {
			return fmt.Errorf("phase: row %d's antenna indices %d, %d: want 0 to %d", k, a1[k], a2[k], len(t.ant)-1)
		}
	}
	// A goroutine pays for itself from about 16k channel-rows (a
	// sincos each without the recurrence).
	workers := min(runtime.GOMAXPROCS(0), nrow*nf/16384)
	blocks.Run(nrow, workers, func(lo, hi int) {
		ph := make([]complex128, nf)
		for k := lo; k < hi; k++ {
			b := t.UVW(a1[k], a2[k])
			if uvw != nil {
				uvw[k] = b
			}
			wTerms(ph, b[2], freqs, df)
			v0, v1 := k*nf*npol, (k+1)*nf*npol
			if dst == nil {
				mulRow(vis[v0:v1], ph, npol)
			} else {
				mulRowTo(dst[v0:v1], vis[v0:v1], ph, npol)
			}
		}
	})
	return nil
}

// mulRow multiplies each channel's npol values of row by its factor.
func mulRow(row, ph []complex128, npol int) {
	if npol == 1 {
		for c, f := range ph {
			row[c] *= f
		}
		return
	}
	for c, f := range ph {
		for p := range npol {
			row[c*npol+p] *= f
		}
	}
}

// mulRowTo is mulRow storing the products, rounded, in dst.
func mulRowTo(dst []complex64, row, ph []complex128, npol int) {
	if npol == 1 {
		for c, f := range ph {
			dst[c] = complex64(row[c] * f)
		}
		return
	}
	for c, f := range ph {
		for p := range npol {
			dst[c*npol+p] = complex64(row[c*npol+p] * f)
		}
	}
}

// reseed is how many channels the recurrence runs before it takes WTerm
// afresh: its rounding grows by a few ulps a step (within 4 ulps·(k+1)·
// (1 + 2π·w·f/c) after k steps, TestApplyRecurrenceEqualsExact), while
// the sincos per channel (most of Apply's time on a 350-antenna ×
// 64-channel block) become 1 + nf/reseed per row.
const reseed = 16

// wTerms sets ph[c] = WTerm(w, freqs[c]) for every channel: exactly when
// df is 0, else (channels spaced by df) as WTerm at every reseed-th
// channel times WTerm(w, df) to the power of the channels since.
func wTerms(ph []complex128, w float64, freqs []float64, df float64) {
	if df == 0 {
		for c, f := range freqs {
			ph[c] = WTerm(w, f)
		}
		return
	}
	step := WTerm(w, df)
	for s := 0; s < len(freqs); s += reseed {
		p := WTerm(w, freqs[s])
		ph[s] = p
		for c := s + 1; c < min(len(freqs), s+reseed); c++ {
			p *= step
			ph[c] = p
		}
	}
}

// spacingOf returns the spacing of evenly spaced freqs, or 0 when they
// are not: each channel must lie within a few ulps of its reseed-block's
// first channel plus a whole number of spacings, so that the recurrence
// moves the phase by no more than WTerm's own rounding of w·f does.
func spacingOf(freqs []float64) float64 {
	if len(freqs) < 3 {
		return 0
	}
	df := (freqs[len(freqs)-1] - freqs[0]) / float64(len(freqs)-1)
	if !(df != 0) || !finite(df) {
		return 0
	}
	for c, f := range freqs {
		s := c - c%reseed
		if math.Abs(f-(freqs[s]+float64(c-s)*df)) > 4*ulp(f) {
			return 0
		}
	}
	return df
}

// ulp is the spacing of float64 values at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
