package astro

import (
	"math"
	"testing"
)

// applyBCRS is a plain re-implementation of the BCRS step of
// matvis-conventions §4.2 from exported values only (what a device kernel
// does): deflection, aberration, normalisation, bpn, in bcrsStep's order.
func applyBCRS(p BCRSParams, x, y, z float64) (float64, float64, float64) {
	e, v, m := p.Eh, p.V, p.BPN
	srsEm := SRS / p.Em
	q := x*(x+e[0]) + y*(y+e[1]) + z*(z+e[2])
	if q < 1e-6 {
		q = 1e-6
	}
	w := srsEm / q
	c0, c1, c2 := e[1]*z-e[2]*y, e[2]*x-e[0]*z, e[0]*y-e[1]*x
	x, y, z = x+w*(y*c2-z*c1), y+w*(z*c0-x*c2), z+w*(x*c1-y*c0)
	pdv := x*v[0] + y*v[1] + z*v[2]
	w1 := 1 + pdv/(1+p.Bm1)
	sx, sy, sz := p.Bm1*x, p.Bm1*y, p.Bm1*z
	x = sx + w1*v[0] + srsEm*(v[0]-pdv*sx)
	y = sy + w1*v[1] + srsEm*(v[1]-pdv*sy)
	z = sz + w1*v[2] + srsEm*(v[2]-pdv*sz)
	r := 1 / math.Sqrt(x*x+y*y+z*z)
	x, y, z = x*r, y*r, z*r
	return m[0]*x + m[1]*y + m[2]*z, m[3]*x + m[4]*y + m[5]*z, m[6]*x + m[7]*y + m[8]*z
}

// TestBCRSParams checks that ECI and BCRSParams reproduce CachedVectors
// (the GPU redoes the step from them) and give the anchors of
// UpdateBCRSEvery, for refreshes at every time and every 60 s.
func TestBCRSParams(t *testing.T) {
	ra, dec := randomSky(3000, 11)
	times := []float64{2459845, 2459845 + 30.0/86400, 2459845 + 61.0/86400, 2459845 + 200.0/86400, 2459845 + 200.0/86400}
	for _, every := range []float64{0, 60} {
		r, err := New(Config{Method: MethodERFA, Site: hera, TimesJD: times, EOP: make([]EOP, len(times)), UpdateBCRSEvery: every}, ra, dec)
		if err != nil {
			t.Fatal(err)
		}
		br, ok := r.(BCRSRotation)
		if !ok {
			t.Fatal("ERFA rotation does not implement BCRSRotation")
		}
		ex, ey, ez := br.ECI()
		for i := range ra {
			sr, cr := math.Sincos(ra[i])
			sd, cd := math.Sincos(dec[i])
			if ex[i] != cr*cd || ey[i] != sr*cd || ez[i] != sd {
				t.Fatalf("ECI[%d] = (%v %v %v), want (%v %v %v)", i, ex[i], ey[i], ez[i], cr*cd, sr*cd, sd)
			}
		}
		wantAnchor := []int{0, 1, 2, 3, 3}
		if every == 60 {
			wantAnchor = []int{0, 0, 2, 3, 3}
		}
		for ti := range times {
			p, err := br.BCRSParams(ti)
			if err != nil {
				t.Fatal(err)
			}
			if p.Anchor != wantAnchor[ti] {
				t.Errorf("every %v: BCRSParams(%d).Anchor = %d, want %d", every, ti, p.Anchor, wantAnchor[ti])
			}
			x, y, z, err := br.CachedVectors(ti)
			if err != nil {
				t.Fatal(err)
			}
			for i := range x {
				gx, gy, gz := applyBCRS(p, ex[i], ey[i], ez[i])
				if d := max(math.Abs(gx-x[i]), math.Abs(gy-y[i]), math.Abs(gz-z[i])); d > 1e-15 {
					t.Fatalf("every %v t%d s%d: step from BCRSParams differs from CachedVectors by %.3g", every, ti, i, d)
				}
			}
		}
	}
	r, _ := New(Config{Method: MethodERFA, Site: hera, TimesJD: times[:1], EOP: make([]EOP, 1)}, ra, dec)
	if _, err := r.(BCRSRotation).BCRSParams(1); err == nil {
		t.Error("BCRSParams(1) of one time succeeded")
	}
	a, _ := New(Config{Method: MethodAstropy, Site: hera, TimesJD: times[:1], EOP: make([]EOP, 1)}, ra, dec)
	if _, ok := a.(BCRSRotation); ok {
		t.Error("the astropy method implements BCRSRotation")
	}
}
