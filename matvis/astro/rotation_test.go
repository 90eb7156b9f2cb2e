package astro

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// hera is the tutorial3 site.
var hera = Site{LatDeg: -30.72152612068957, LonDeg: 21.428303826863015, HeightM: 1051.69}

func TestNewBadInput(t *testing.T) {
	okT := []float64{2459845.0, 2459845.1}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		cfg     Config
		ra, dec []float64
		want    string
		is      error
	}{
		{"dec too big", Config{Site: hera, TimesJD: okT}, []float64{0, 0, 0, 0}, []float64{0, 0, 0, 1.7}, "dec_rad[3] = 1.7: |dec| > π/2", nil},
		{"dec negative", Config{Site: hera, TimesJD: okT}, []float64{0}, []float64{-1.5708}, "dec_rad[0] = -1.5708", nil},
		{"dec nan", Config{Site: hera, TimesJD: okT}, []float64{0}, []float64{nan}, "dec_rad[0] = NaN: not finite", nil},
		{"ra inf", Config{Site: hera, TimesJD: okT}, []float64{1, inf}, []float64{0, 0}, "ra_rad[1] = +Inf: not finite", nil},
		{"len mismatch", Config{Site: hera, TimesJD: okT}, []float64{1, 2}, []float64{0}, "len(ra_rad) = 2 but len(dec_rad) = 1", nil},
		{"time nan", Config{Site: hera, TimesJD: []float64{2459845, nan}}, nil, nil, "times_jd[1] = NaN: not finite", nil},
		{"time before 1960", Config{Site: hera, TimesJD: []float64{2436934.4}}, nil, nil, "times_jd[0] = 2.4369344e+06", ErrBeforeUTC},
		{"time after 3000", Config{Site: hera, TimesJD: []float64{2459845, 1e300}}, nil, nil, "times_jd[1] = 1e+300: after year 3000", nil},
		{"no times", Config{Site: hera}, nil, nil, "times_jd is empty", nil},
		{"eop len", Config{Site: hera, TimesJD: okT, EOP: []EOP{{}}}, nil, nil, "len(eop) = 1 but len(times_jd) = 2", nil},
		{"eop nan", Config{Site: hera, TimesJD: okT, EOP: []EOP{{}, {XpArcsec: nan}}}, nil, nil, "eop[1].xp_arcsec = NaN", nil},
		{"eop dut1", Config{Site: hera, TimesJD: okT, EOP: []EOP{{UT1MinusUTCSec: 3}, {}}}, nil, nil, "eop[0].ut1_utc_s = 3", nil},
		{"lat", Config{Site: Site{LatDeg: 91}, TimesJD: okT}, nil, nil, "lat_deg = 91", nil},
		{"lon", Config{Site: Site{LonDeg: inf}, TimesJD: okT}, nil, nil, "lon_deg = +Inf", nil},
		{"height", Config{Site: Site{HeightM: nan}, TimesJD: okT}, nil, nil, "height_m = NaN", nil},
		{"method", Config{Method: "Foo", Site: hera, TimesJD: okT}, nil, nil, `method "Foo"`, nil},
		{"every negative", Config{Method: MethodERFA, Site: hera, TimesJD: okT, UpdateBCRSEvery: -1}, nil, nil, "update_bcrs_every = -1", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(c.cfg, c.ra, c.dec)
			if err == nil {
				t.Fatalf("New succeeded (%T), want error containing %q", r, c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "astro: ") {
				t.Errorf("err = %q, want it to contain %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("err = %v does not wrap %v", err, c.is)
			}
		})
	}
}

func TestENUBadInput(t *testing.T) {
	for _, m := range []Method{MethodAstropy, MethodERFA} {
		r, err := New(Config{Method: m, Site: hera, TimesJD: []float64{2459845}, EOP: []EOP{{}}}, []float64{0, 1}, []float64{0, 0.5})
		if err != nil {
			t.Fatal(err)
		}
		two := make([]float64, 2)
		if err := r.ENU(1, two, two, two); err == nil || !strings.Contains(err.Error(), "time index 1 out of range [0, 1)") {
			t.Errorf("%s: ENU(1): err = %v", m, err)
		}
		if err := r.ENU(-1, two, two, two); err == nil {
			t.Errorf("%s: ENU(-1) succeeded", m)
		}
		if err := r.ENU(0, two, make([]float64, 1), two); err == nil || !strings.Contains(err.Error(), "north 1") {
			t.Errorf("%s: short output: err = %v", m, err)
		}
		if mr, ok := r.(MatrixRotation); ok {
			if _, err := mr.Matrix(5); err == nil {
				t.Errorf("Matrix(5) succeeded")
			}
			if _, _, _, err := mr.CachedVectors(5); err == nil {
				t.Errorf("CachedVectors(5) succeeded")
			}
		} else if m == MethodERFA {
			t.Errorf("ERFA rotation does not implement MatrixRotation")
		}
	}
}

func TestWarnings(t *testing.T) {
	var msgs []string
	warn := func(s string) { msgs = append(msgs, s) }
	// No EOP: one warning.
	if _, err := New(Config{Site: hera, TimesJD: []float64{2459845, 2459846}, Warn: warn}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "UT1-UTC = 0") {
		t.Errorf("warnings = %q", msgs)
	}
	// Past the leap-second table: a warning, last value used.
	msgs = nil
	late := LeapTableExpiresJD + 400
	if _, err := New(Config{Site: hera, TimesJD: []float64{late}, EOP: []EOP{{}}, Warn: warn}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "leap-second table") {
		t.Errorf("warnings = %q", msgs)
	}
	dat, stale, err := TAIminusUTC(late)
	if dat != 37 || !stale || err != nil {
		t.Errorf("TAIminusUTC(late) = %v, %v, %v", dat, stale, err)
	}
	if _, _, err := TAIminusUTC(2436934.0); !errors.Is(err, ErrBeforeUTC) {
		t.Errorf("TAIminusUTC(1959) err = %v", err)
	}
	if _, _, err := TAIminusUTC(math.NaN()); err == nil {
		t.Errorf("TAIminusUTC(NaN) succeeded")
	}
	// UpdateBCRSEvery with the astropy method: ignored with a warning.
	msgs = nil
	if _, err := New(Config{Site: hera, TimesJD: []float64{2459845}, EOP: []EOP{{}}, UpdateBCRSEvery: 60, Warn: warn}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "update_bcrs_every = 60 s is ignored") {
		t.Errorf("warnings = %q", msgs)
	}
	// nil Warn must not panic.
	if _, err := New(Config{Site: hera, TimesJD: []float64{2459845}}, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// randomSky returns n sources uniform on the sphere.
func randomSky(n int, seed uint64) (ra, dec []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ra, dec = make([]float64, n), make([]float64, n)
	for i := range ra {
		ra[i] = 2 * math.Pi * rng.Float64()
		dec[i] = math.Asin(2*rng.Float64() - 1)
	}
	return ra, dec
}

// TestMethodsAgree checks the two methods against each other on a random
// sky over a long span of dates (1965–2025), including the poles and
// sources on the horizon.
func TestMethodsAgree(t *testing.T) {
	ra, dec := randomSky(2000, 7)
	ra = append(ra, 0, 1, 2)
	dec = append(dec, math.Pi/2, -math.Pi/2, 0)
	var times []float64
	var eops []EOP
	for jd := 2438900.5; jd < 2460700; jd += 1234.567 {
		times = append(times, jd)
		eops = append(eops, EOP{0.1, 0.2, 0.3})
	}
	cfg := Config{Site: hera, TimesJD: times, EOP: eops}
	ast, err := New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Method = MethodERFA
	erf, err := New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	n := len(ra)
	e1, n1, u1 := make([]float64, n), make([]float64, n), make([]float64, n)
	e2, n2, u2 := make([]float64, n), make([]float64, n), make([]float64, n)
	var worst float64
	for ti := range times {
		if err := ast.ENU(ti, e1, n1, u1); err != nil {
			t.Fatal(err)
		}
		if err := erf.ENU(ti, e2, n2, u2); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			worst = math.Max(worst, angle(vec3{e1[i], n1[i], u1[i]}, vec3{e2[i], n2[i], u2[i]}))
		}
	}
	t.Logf("astropy vs ERFA method, %d times 1965-2025, %d sources: max angle %.3g mas", len(times), n, worst/mas)
	if worst > 1e-3*mas {
		t.Errorf("methods differ by %.3g mas", worst/mas)
	}
}

// TestMatrixInterface checks ENU = M · P and the BCRS anchors.
func TestMatrixInterface(t *testing.T) {
	ra, dec := randomSky(100, 3)
	times := []float64{2459845, 2459845 + 30.0/86400, 2459845 + 61.0/86400, 2459845 + 200.0/86400, 2459845 + 200.0/86400}
	r, err := New(Config{Method: MethodERFA, Site: hera, TimesJD: times, EOP: make([]EOP, len(times)), UpdateBCRSEvery: 60}, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	mr := r.(MatrixRotation)
	wantAnchor := []int{0, 0, 2, 3, 3}
	for ti := range times {
		if a := r.(*erfaRotation).anchor[ti]; a != wantAnchor[ti] {
			t.Errorf("anchor[%d] = %d, want %d", ti, a, wantAnchor[ti])
		}
		m, err := mr.Matrix(ti)
		if err != nil {
			t.Fatal(err)
		}
		x, y, z, err := mr.CachedVectors(ti)
		if err != nil {
			t.Fatal(err)
		}
		e, n, u := make([]float64, 100), make([]float64, 100), make([]float64, 100)
		if err := r.ENU(ti, e, n, u); err != nil {
			t.Fatal(err)
		}
		for i := range e {
			ge := m[0]*x[i] + m[1]*y[i] + m[2]*z[i]
			gn := m[3]*x[i] + m[4]*y[i] + m[5]*z[i]
			gu := m[6]*x[i] + m[7]*y[i] + m[8]*z[i]
			if ge != e[i] || gn != n[i] || gu != u[i] {
				t.Fatalf("t%d s%d: M·P = (%v %v %v), ENU = (%v %v %v)", ti, i, ge, gn, gu, e[i], n[i], u[i])
			}
		}
	}
}

// TestConcurrentENU runs many ENU calls at once (run with -race).
func TestConcurrentENU(t *testing.T) {
	ra, dec := randomSky(20000, 5)
	times := make([]float64, 6)
	for i := range times {
		times[i] = 2459845 + float64(i)*100/86400
	}
	for _, m := range []Method{MethodAstropy, MethodERFA} {
		r, err := New(Config{Method: m, Site: hera, TimesJD: times, EOP: make([]EOP, len(times)), UpdateBCRSEvery: map[Method]float64{MethodERFA: 150}[m]}, ra, dec)
		if err != nil {
			t.Fatal(err)
		}
		// Serial results first, from a fresh rotation.
		r2, _ := New(Config{Method: m, Site: hera, TimesJD: times, EOP: make([]EOP, len(times)), UpdateBCRSEvery: map[Method]float64{MethodERFA: 150}[m]}, ra, dec)
		want := make([][3][]float64, len(times))
		for ti := range times {
			for k := range want[ti] {
				want[ti][k] = make([]float64, len(ra))
			}
			if err := r2.ENU(ti, want[ti][0], want[ti][1], want[ti][2]); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, 3*len(times))
		for rep := 0; rep < 3; rep++ {
			for ti := len(times) - 1; ti >= 0; ti-- {
				wg.Add(1)
				go func(ti int) {
					defer wg.Done()
					e, n, u := make([]float64, len(ra)), make([]float64, len(ra)), make([]float64, len(ra))
					if err := r.ENU(ti, e, n, u); err != nil {
						errs <- err
						return
					}
					for i := range e {
						if e[i] != want[ti][0][i] || n[i] != want[ti][1][i] || u[i] != want[ti][2][i] {
							errs <- errors.New("concurrent result differs from serial")
							return
						}
					}
				}(ti)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestBCRSEveryGrowth measures the error of a stale BCRS step on a dense
// time grid (every 10 s for 2 h) against the ERFA method with
// UpdateBCRSEvery = 0 (itself within ~1e-5 mas of astropy, see
// TestReferenceTopo), for sources above the horizon.
func TestBCRSEveryGrowth(t *testing.T) {
	ra, dec := randomSky(3000, 11)
	var times []float64
	for s := 0.0; s <= 7200; s += 10 {
		times = append(times, 2459845.0+s/86400)
	}
	eops := make([]EOP, len(times))
	for i := range eops {
		eops[i] = EOP{-0.0057, 0.289, 0.277}
	}
	mk := func(every float64) Rotation {
		r, err := New(Config{Method: MethodERFA, Site: hera, TimesJD: times, EOP: eops, UpdateBCRSEvery: every}, ra, dec)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ref := mk(0)
	n := len(ra)
	re, rn, ru := make([]float64, n), make([]float64, n), make([]float64, n)
	refs := make([][3][]float64, len(times))
	for ti := range times {
		if err := ref.ENU(ti, re, rn, ru); err != nil {
			t.Fatal(err)
		}
		refs[ti] = [3][]float64{append([]float64(nil), re...), append([]float64(nil), rn...), append([]float64(nil), ru...)}
	}
	for _, every := range []float64{60, 180, 600} {
		r := mk(every)
		var worst float64
		for ti := range times {
			if err := r.ENU(ti, re, rn, ru); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				if refs[ti][2][i] <= 0 {
					continue
				}
				worst = math.Max(worst, angle(vec3{re[i], rn[i], ru[i]}, vec3{refs[ti][0][i], refs[ti][1][i], refs[ti][2][i]}))
			}
		}
		t.Logf("update_bcrs_every = %3.0f s: max angle vs every=0 over 2 h at 10 s steps: %.4g mas", every, worst/mas)
		// The stale part is dominated by diurnal aberration: the site's
		// rotation speed 465 m/s·cos φ (≈ 0.27" of aberration at HERA)
		// turns with the Earth at 7.29e-5 rad/s, ≈ 0.02 mas per second of
		// staleness; annual aberration and precession-nutation add
		// ≈ 0.004 mas/s. Allow 0.03 mas/s.
		if lim := 0.03 * mas * every; worst > lim {
			t.Errorf("every=%v: %.4g mas > %.4g mas", every, worst/mas, lim/mas)
		}
	}
}

// BenchmarkERFA1e6 is one time step of the ERFA method for 10⁶ sources:
// the astrom context, the BCRS step (UpdateBCRSEvery = 0 recomputes it at
// every distinct time) and the matrix product. Each iteration is a new time.
func BenchmarkERFA1e6(b *testing.B) {
	benchENU(b, 1_000_000, 60, Config{Method: MethodERFA}, false)
}

// BenchmarkERFA1e6Cached is a time step that reuses the cached BCRS
// vectors (UpdateBCRSEvery large): only the 3×3 matrix product.
func BenchmarkERFA1e6Cached(b *testing.B) {
	benchENU(b, 1_000_000, 1, Config{Method: MethodERFA, UpdateBCRSEvery: 1e9}, true)
}

// BenchmarkAstropy1e5 is one time step of the astropy method for 10⁵ sources.
func BenchmarkAstropy1e5(b *testing.B) {
	benchENU(b, 100_000, 60, Config{}, false)
}

// benchENU times one ENU call per iteration for n random sources, each at
// a new time stepS seconds after the last, with cfg's method and BCRS
// refresh at HERA; warm makes the first call (which fills the caches)
// before the timer starts.
func benchENU(b *testing.B, n int, stepS float64, cfg Config, warm bool) {
	ra, dec := randomSky(n, 1)
	cfg.Site, cfg.TimesJD, cfg.EOP = hera, make([]float64, b.N), make([]EOP, b.N)
	for i := range cfg.TimesJD {
		cfg.TimesJD[i] = 2459845 + float64(i)*stepS/86400
	}
	r, err := New(cfg, ra, dec)
	if err != nil {
		b.Fatal(err)
	}
	e, nn, u := make([]float64, n), make([]float64, n), make([]float64, n)
	if warm {
		if err := r.ENU(0, e, nn, u); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.ENU(i, e, nn, u); err != nil {
			b.Fatal(err)
		}
	}
}
