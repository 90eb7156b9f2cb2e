package astro

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// Site is an observing site in geodetic WGS84 coordinates.
type Site struct {
	LatDeg  float64 // geodetic latitude, degrees north
	LonDeg  float64 // longitude, degrees east
	HeightM float64 // height above the WGS84 ellipsoid, metres
}

// EOP holds the Earth-orientation parameters of one instant.
type EOP struct {
	UT1MinusUTCSec float64 // UT1 − UTC, seconds
	XpArcsec       float64 // polar motion x_p, arcseconds
	YpArcsec       float64 // polar motion y_p, arcseconds
}

// Method names a coordinate-rotation algorithm, spelled as matvis names its
// classes.
type Method string

const (
	// MethodAstropy is the full ICRS → AltAz chain per time and source, as
	// astropy computes it (spherical round trips included).
	MethodAstropy Method = "CoordinateRotationAstropy"
	// MethodERFA is matvis's split: a "BCRS step" (light deflection,
	// aberration, bias-precession-nutation) on Cartesian vectors, refreshed
	// every UpdateBCRSEvery seconds, then one 3×3 matrix per time
	// (matvis-conventions §4.2).
	MethodERFA Method = "CoordinateRotationERFA"
)

// Config configures New.
type Config struct {
	// Method selects the algorithm; empty means MethodAstropy.
	Method Method
	// Site is the array centre.
	Site Site
	// TimesJD are the observation times, UTC Julian dates (≥ 1960).
	TimesJD []float64
	// EOP holds one entry per time, or nil (then UT1 − UTC = 0 and
	// x_p = y_p = 0, and Warn is called once).
	EOP []EOP
	// UpdateBCRSEvery is, for MethodERFA only (other methods ignore it
	// with a warning), the interval in seconds
	// after which the BCRS step is recomputed: it is recomputed at the
	// first time and whenever the time since the last recomputation is
	// strictly greater than this (0: at every distinct time).
	UpdateBCRSEvery float64
	// Warn, if not nil, receives warnings (missing EOP, times past the
	// leap-second table, times outside the ephemeris' 1900–2100 range).
	Warn func(msg string)
}

// Rotation gives ENU vectors of a fixed source list at each configured time.
type Rotation interface {
	// NSources is the number of sources.
	NSources() int
	// NTimes is the number of times.
	NTimes() int
	// ENU writes the unit vectors of every source at time index ti into
	// east, north, up (len NSources each). Safe for concurrent use with
	// distinct output slices. Uses all cores for large source counts.
	ENU(ti int, east, north, up []float64) error
}

// MatrixRotation is implemented by the ERFA method: ENU = M(ti) · P(ti)
// where P are cached unit vectors that change only when the BCRS step is
// refreshed; this is what a GPU will use.
type MatrixRotation interface {
	Rotation
	// Matrix returns M(ti), row-major 3×3; rows give east, north, up.
	Matrix(ti int) ([9]float64, error)
	// CachedVectors returns the vectors M(ti) applies to at time ti
	// (read-only; shared with other callers).
	CachedVectors(ti int) (x, y, z []float64, err error)
}

// parallelThreshold is the source count from which work is split across
// goroutines.
const parallelThreshold = 8192

// parallelFor runs fn over [0, n) in contiguous blocks, on all cores when n
// is large.
func parallelFor(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n/2048)
	if n < parallelThreshold {
		workers = 1
	}
	blocks.Run(n, workers, fn)
}

// cancelGrain is how many sources a worker of parallelForContext rotates
// between two looks at the context: astropy's chain costs ~1.5 µs a
// source, so 2^13 of them take ~12 ms (blocks.Grain would take 0.1 s).
const cancelGrain = 1 << 13

// parallelForContext is parallelFor checking ctx every cancelGrain
// sources a worker; it returns ctx's error when it stopped early.
func parallelForContext(ctx context.Context, n int, fn func(lo, hi int)) error {
	workers := min(runtime.GOMAXPROCS(0), n/2048)
	if n < parallelThreshold {
		workers = 1
	}
	return blocks.RunContext(ctx, n, workers, cancelGrain, fn)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// base holds what both methods share: the validated inputs, the time
// scales, the ICRS unit vectors and the lazily computed astrom contexts.
type base struct {
	elong, phi, hm float64
	eop            []EOP
	epochs         []epoch
	px, py, pz     []float64 // ICRS unit vectors

	once    []sync.Once
	astroms []astrom
}

func newBase(cfg Config, ra, dec []float64) (*base, error) {
	if err := checkBaseConfig(cfg, ra, dec); err != nil {
		return nil, err
	}
	s := cfg.Site
	warn := cfg.Warn
	if warn == nil {
		warn = func(string) {}
	}
	b := &base{
		elong: s.LonDeg * math.Pi / 180,
		phi:   s.LatDeg * math.Pi / 180,
		hm:    s.HeightM,
		eop:   make([]EOP, len(cfg.TimesJD)),
	}
	if cfg.EOP == nil {
		warn("astro: no Earth-orientation parameters given: using UT1-UTC = 0 and zero polar motion (errors up to ~0.9 s of UT1, ~14 arcsec in azimuth)")
	} else {
		copy(b.eop, cfg.EOP)
	}
	if err := b.makeEpochs(cfg.TimesJD, warn); err != nil {
		return nil, err
	}
	n := len(ra)
	b.px, b.py, b.pz = make([]float64, n), make([]float64, n), make([]float64, n)
	parallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sr, cr := math.Sincos(ra[i])
			sd, cd := math.Sincos(dec[i])
			b.px[i], b.py[i], b.pz[i] = cr*cd, sr*cd, sd
		}
	})
	b.once = make([]sync.Once, len(cfg.TimesJD))
	b.astroms = make([]astrom, len(cfg.TimesJD))
	return b, nil
}

// checkBaseConfig checks the site, the source positions, the times' count
// and the Earth-orientation parameters.
func checkBaseConfig(cfg Config, ra, dec []float64) error {
	s := cfg.Site
	if !finite(s.LatDeg) || math.Abs(s.LatDeg) > 90 {
		return fmt.Errorf("astro: site lat_deg = %v: must be finite and within [-90, 90]", s.LatDeg)
	}
	if !finite(s.LonDeg) {
		return fmt.Errorf("astro: site lon_deg = %v: not finite", s.LonDeg)
	}
	if !finite(s.HeightM) {
		return fmt.Errorf("astro: site height_m = %v: not finite", s.HeightM)
	}
	if len(ra) != len(dec) {
		return fmt.Errorf("astro: len(ra_rad) = %d but len(dec_rad) = %d", len(ra), len(dec))
	}
	for i, r := range ra {
		if !finite(r) {
			return fmt.Errorf("astro: ra_rad[%d] = %v: not finite", i, r)
		}
	}
	for i, d := range dec {
		if !finite(d) {
			return fmt.Errorf("astro: dec_rad[%d] = %v: not finite", i, d)
		}
		if math.Abs(d) > math.Pi/2 {
			return fmt.Errorf("astro: dec_rad[%d] = %v: |dec| > π/2", i, d)
		}
	}
	if len(cfg.TimesJD) == 0 {
		return fmt.Errorf("astro: times_jd is empty")
	}
	if cfg.EOP != nil && len(cfg.EOP) != len(cfg.TimesJD) {
		return fmt.Errorf("astro: len(eop) = %d but len(times_jd) = %d", len(cfg.EOP), len(cfg.TimesJD))
	}
	for i, e := range cfg.EOP {
		if !finite(e.UT1MinusUTCSec) || math.Abs(e.UT1MinusUTCSec) > 1 {
			return fmt.Errorf("astro: eop[%d].ut1_utc_s = %v: must be finite with |UT1-UTC| <= 1 s", i, e.UT1MinusUTCSec)
		}
		if !finite(e.XpArcsec) || math.Abs(e.XpArcsec) > 10 {
			return fmt.Errorf("astro: eop[%d].xp_arcsec = %v: must be finite with |xp| <= 10\"", i, e.XpArcsec)
		}
		if !finite(e.YpArcsec) || math.Abs(e.YpArcsec) > 10 {
			return fmt.Errorf("astro: eop[%d].yp_arcsec = %v: must be finite with |yp| <= 10\"", i, e.YpArcsec)
		}
	}
	return nil
}

// makeEpochs checks each time and makes its epoch (with b.eop's UT1-UTC),
// warning once about times past the leap-second table or outside the
// ephemeris' good range.
func (b *base) makeEpochs(timesJD []float64, warn func(string)) error {
	b.epochs = make([]epoch, len(timesJD))
	nStale, nOld := 0, 0
	for i, t := range timesJD {
		if !finite(t) {
			return fmt.Errorf("astro: times_jd[%d] = %v: not finite", i, t)
		}
		if t < MinJD {
			return fmt.Errorf("astro: times_jd[%d] = %v: %w", i, t, ErrBeforeUTC)
		}
		if t > MaxJD {
			return fmt.Errorf("astro: times_jd[%d] = %v: after year 3000 (JD %v), outside the models' range", i, t, MaxJD)
		}
		ep, err := newEpoch(t, b.eop[i].UT1MinusUTCSec)
		if err != nil {
			return fmt.Errorf("astro: times_jd[%d] = %v: %w", i, t, err)
		}
		if ep.stale {
			nStale++
		}
		if y := ((ep.tt1 - dj00) + ep.tt2) / djy; math.Abs(y) > 100 {
			nOld++
		}
		b.epochs[i] = ep
	}
	if nStale > 0 {
		warn(fmt.Sprintf("astro: %d of %d times are after the leap-second table's expiry (JD %.1f): using TAI-UTC = %g s", nStale, len(timesJD), LeapTableExpiresJD, leapTable[len(leapTable)-1].dat))
	}
	if nOld > 0 {
		warn(fmt.Sprintf("astro: %d of %d times are outside 1900-2100, where the EPV00 Earth ephemeris degrades", nOld, len(timesJD)))
	}
	return nil
}

func (b *base) NSources() int { return len(b.px) }
func (b *base) NTimes() int   { return len(b.epochs) }

// astromAt returns the (cached) astrometry context of time index ti, built
// as astropy 7.2 does for an AltAz frame without refraction: EPV00 at TDB,
// IAU 2006/2000A CIP X, Y and s at TT, ERA at UT1, s' at TT, then apco.
func (b *base) astromAt(ti int) *astrom {
	b.once[ti].Do(func() {
		ep := &b.epochs[ti]
		ph, _, pb, vb := epv00(ep.tdb1, ep.tdb2)
		rbpn := pnm06a(ep.tt1, ep.tt2)
		x, y := rbpn[2][0], rbpn[2][1]
		s := s06(ep.tt1, ep.tt2, x, y)
		theta := era00(ep.ut11, ep.ut12)
		sp := sp00(ep.tt1, ep.tt2)
		xp := b.eop[ti].XpArcsec * das2r
		yp := b.eop[ti].YpArcsec * das2r
		b.astroms[ti].apco(ep.tt1, ep.tt2, pb, vb, ph, x, y, s, theta, b.elong, b.phi, b.hm, xp, yp, sp, 0, 0)
	})
	return &b.astroms[ti]
}

func (b *base) checkIndex(ti int) error {
	if ti < 0 || ti >= len(b.epochs) {
		return fmt.Errorf("astro: time index %d out of range [0, %d)", ti, len(b.epochs))
	}
	return nil
}

func (b *base) check(ti int, east, north, up []float64) error {
	if err := b.checkIndex(ti); err != nil {
		return err
	}
	n := len(b.px)
	if len(east) != n || len(north) != n || len(up) != n {
		return fmt.Errorf("astro: output lengths (east %d, north %d, up %d) must equal the source count %d", len(east), len(north), len(up), n)
	}
	return nil
}

// New validates the configuration and the source positions (ICRS right
// ascension and declination, radians) and returns the rotation of the
// configured method. With MethodERFA the result also implements
// MatrixRotation.
func New(cfg Config, raRad, decRad []float64) (Rotation, error) {
	switch cfg.Method {
	case "", MethodAstropy, MethodERFA:
	default:
		return nil, fmt.Errorf("astro: method %q: want %q or %q", cfg.Method, MethodAstropy, MethodERFA)
	}
	if !finite(cfg.UpdateBCRSEvery) || cfg.UpdateBCRSEvery < 0 {
		return nil, fmt.Errorf("astro: update_bcrs_every = %v: must be finite and >= 0", cfg.UpdateBCRSEvery)
	}
	if cfg.Method != MethodERFA && cfg.UpdateBCRSEvery != 0 && cfg.Warn != nil {
		cfg.Warn(fmt.Sprintf("astro: update_bcrs_every = %v s is ignored: it applies to %s only", cfg.UpdateBCRSEvery, MethodERFA))
	}
	b, err := newBase(cfg, raRad, decRad)
	if err != nil {
		return nil, err
	}
	if cfg.Method == MethodERFA {
		return newERFA(b, cfg.UpdateBCRSEvery), nil
	}
	return &astropyRotation{base: b}, nil
}

// astropyRotation is MethodAstropy.
type astropyRotation struct {
	*base
	ahead enuAhead
}

func (r *astropyRotation) ENU(ti int, east, north, up []float64) error {
	return r.ENUContext(context.Background(), ti, east, north, up)
}

// ENUContext is ENU that stops within a block of sources of ctx's
// cancel, returning its error (matvis.ContextCoordinates). Vectors that
// PrefetchENU made are copied out (once).
func (r *astropyRotation) ENUContext(ctx context.Context, ti int, east, north, up []float64) error {
	if err := r.check(ti, east, north, up); err != nil {
		return err
	}
	if done, err := r.ahead.take(ctx, ti, east, north, up); done || err != nil {
		return err
	}
	return r.enu(ctx, ti, east, north, up)
}

// PrefetchENU starts making time ti's vectors on goroutines of their own
// for the ENU call that will ask for them, stopping when ctx is done
// (that call then makes them itself): a GPU run's next block has its
// coordinates made while the device computes this one. A time outside
// the run, or asked for already, is ignored.
func (r *astropyRotation) PrefetchENU(ctx context.Context, ti int) {
	if ti < 0 || ti >= len(r.epochs) {
		return
	}
	r.ahead.start(ti, len(r.px), func(e, n, u []float64) error { return r.enu(ctx, ti, e, n, u) })
}

// enu makes time ti's vectors.
func (r *astropyRotation) enu(ctx context.Context, ti int, east, north, up []float64) error {
	a := r.astromAt(ti)
	return parallelForContext(ctx, len(r.px), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			// astropy atciqz: ICRS → CIRS (ri, di) for a star at infinity.
			p := vec3{r.px[i], r.py[i], r.pz[i]}
			pnat := ld(1, p, p, a.eh, a.em, 1e-6)
			ppr := ab(pnat, a.v, a.em, a.bm1)
			w, di := c2s(a.bpn.apply(ppr))
			// erfa.atioq (no refraction), then matvis's ENU from alt/az.
			az, zd := a.atioq(anp(w), di)
			sa, ca := math.Sincos(math.Pi/2 - zd)
			sz, cz := math.Sincos(az)
			east[i], north[i], up[i] = ca*sz, ca*cz, sa
		}
	})
}
