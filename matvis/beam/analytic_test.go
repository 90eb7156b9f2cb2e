package beam

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

func eval(t *testing.T, b Beam, freq float64, m Mode, az, za []float64) []complex128 {
	t.Helper()
	r, err := b.At(freq, m)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]complex128, m.Components()*len(az))
	for i := range out {
		out[i] = cmplx.NaN()
	}
	r.Eval(az, za, out)
	for i, v := range out {
		if cmplx.IsNaN(v) {
			t.Fatalf("%v: output %d not written", b, i)
		}
	}
	return out
}

// power is pyuvdata's power beam of each analytic type, written from the
// formulas (conventions §5.2), independent of the E-field code.
func power(b Beam, feed Feed, freq, az, za float64) float64 {
	switch b := b.(type) {
	case Uniform:
		return 1
	case Gaussian:
		s := b.Sigma(freq)
		return math.Exp(-za * za / (s * s))
	case Airy:
		x := b.DiameterM / 2 * math.Sin(za) * 2 * math.Pi * freq / SpeedOfLight
		if x == 0 {
			return 1
		}
		g := 2 * math.J1(x) / x
		return g * g
	case ShortDipole:
		if feed == FeedY {
			return 1 - math.Pow(math.Sin(za)*math.Sin(az), 2)
		}
		return 1 - math.Pow(math.Sin(za)*math.Cos(az), 2)
	}
	panic("unknown beam")
}

func TestAnalyticPowerAndEField(t *testing.T) {
	beams := []Beam{Uniform{}, Gaussian{SigmaRad: 0.3}, Gaussian{DiameterM: 14}, Airy{DiameterM: 14}, ShortDipole{}}
	seed := sharedtest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	n := 200
	az, za := make([]float64, n), make([]float64, n)
	for i := range n {
		az[i], za[i] = 2*math.Pi*rng.Float64(), math.Pi/2*rng.Float64()
	}
	az[0], za[0] = 0, 0
	for _, b := range beams {
		for _, freq := range []float64{100e6, 180e6} {
			for _, feed := range []Feed{FeedX, FeedY} {
				un := eval(t, b, freq, Mode{Feed: feed}, az, za)
				pol := eval(t, b, freq, Mode{Polarized: true}, az, za)
				for s := range n {
					p := power(b, feed, freq, az[s], za[s])
					if d := math.Abs(real(un[s]) - math.Sqrt(p)); d > 1e-12 || imag(un[s]) != 0 {
						t.Fatalf("%v feed %v at (%g, %g): unpolarized %v, want √P = %g", b, feed, az[s], za[s], un[s], math.Sqrt(p))
					}
					// Σ_k |E_{f,k}|² is the feed's power beam.
					f := int(feed)
					e2 := cmplx.Abs(pol[(2*f)*n+s])*cmplx.Abs(pol[(2*f)*n+s]) + cmplx.Abs(pol[(2*f+1)*n+s])*cmplx.Abs(pol[(2*f+1)*n+s])
					if math.Abs(e2-p) > 1e-12 {
						t.Fatalf("%v feed %v: Σ|E|² = %g, power %g", b, feed, e2, p)
					}
				}
				if math.Abs(real(un[0])-1) > 1e-15 {
					t.Fatalf("%v: zenith response %v, want 1", b, un[0])
				}
			}
		}
	}
}

// besselJ1 is J1(x) from Bessel's integral (1/π)∫₀^π cos(τ − x·sin τ) dτ
// by composite Simpson's rule: independent of math.J1.
func besselJ1(x float64) float64 {
	const n = 2000
	h := math.Pi / n
	f := func(tau float64) float64 { return math.Cos(tau - x*math.Sin(tau)) }
	sum := f(0) + f(math.Pi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*h)
	}
	return sum * h / 3 / math.Pi
}

// skyDir is the unit vector (east, north, up) towards (az, za), az from
// east towards north (conventions §4.3).
func skyDir(az, za float64) [3]float64 {
	return [3]float64{math.Sin(za) * math.Cos(az), math.Sin(za) * math.Sin(az), math.Cos(za)}
}

// unitDeriv is the unit vector of ∂skyDir/∂x at x (central differences).
func unitDeriv(f func(x float64) [3]float64, x float64) [3]float64 {
	const h = 1e-6
	a, b := f(x+h), f(x-h)
	d := [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
	n := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	return [3]float64{d[0] / n, d[1] / n, d[2] / n}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// wantComponents derives the four E-field components (x feed axis 0, axis
// 1, y feed axis 0, axis 1; axis 0 along increasing az, axis 1 along
// increasing za) of each analytic beam from first principles: a short
// dipole is its wire's direction projected on the sky's unit vectors (found
// here by differentiating the direction numerically); the
// power-derived beams are their signed amplitude g/√2 on every component,
// with Airy's g = 2·J1(x)/x from Bessel's integral (negative in odd
// sidelobes) and the Gaussian's g = exp(−za²/(2σ²)) (conventions §5.2).
func wantComponents(b Beam, freq, az, za float64) [4]float64 {
	var g float64
	switch b := b.(type) {
	case ShortDipole:
		eAz := unitDeriv(func(a float64) [3]float64 { return skyDir(a, za) }, az)
		eZa := unitDeriv(func(z float64) [3]float64 { return skyDir(az, z) }, za)
		if za == 0 { // ∂/∂az vanishes at the zenith: the limit along az.
			eAz = [3]float64{-math.Sin(az), math.Cos(az), 0}
		}
		east, north := [3]float64{1, 0, 0}, [3]float64{0, 1, 0}
		return [4]float64{dot(east, eAz), dot(east, eZa), dot(north, eAz), dot(north, eZa)}
	case Uniform:
		g = 1
	case Gaussian:
		g = math.Exp(-za * za / (2 * b.SigmaRad * b.SigmaRad))
	case Airy:
		lambda := SpeedOfLight / freq
		x := math.Pi * b.DiameterM * math.Sin(za) / lambda
		g = 1
		if x != 0 {
			g = 2 * besselJ1(x) / x
		}
	default:
		panic("unknown beam")
	}
	v := g / math.Sqrt2
	return [4]float64{v, v, v, v}
}

// TestAnalyticComponents checks every E-field component of every analytic
// beam, signs included, at fresh random directions plus the four cardinal
// azimuths at za = 60° (where each of the dipole's terms is nonzero or
// changes sign) and Airy's first sidelobes.
func TestAnalyticComponents(t *testing.T) {
	seed := sharedtest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	var az, za []float64
	for _, a := range []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2, 0.7, 2.2, 4.1, 5.6} {
		az, za = append(az, a), append(za, math.Pi/3)
	}
	for range 200 {
		az, za = append(az, 2*math.Pi*rng.Float64()), append(za, math.Pi/2*rng.Float64())
	}
	const freq = 150e6
	lambda := SpeedOfLight / freq
	airy := Airy{DiameterM: 14}
	// First sidelobe: J1's first zero is x ≈ 3.83, its second ≈ 7.02.
	for _, x := range []float64{4.5, 5.2, 6.5, 8.5} {
		az, za = append(az, 1), append(za, math.Asin(x*lambda/(math.Pi*airy.DiameterM)))
	}
	n := len(az)
	beams := []Beam{Uniform{}, Gaussian{SigmaRad: 0.3}, airy, ShortDipole{}}
	sawNegative := false
	for _, b := range beams {
		got := eval(t, b, freq, Mode{Polarized: true}, az, za)
		for s := range n {
			want := wantComponents(b, freq, az[s], za[s])
			for c := range 4 {
				g := got[c*n+s]
				if math.Abs(real(g)-want[c]) > 1e-8 || imag(g) != 0 {
					t.Errorf("%v at (az %.4f, za %.4f): component %d (feed %d axis %d) = %v, want %.9g",
						b, az[s], za[s], c, c/2, c%2, g, want[c])
				}
				if _, ok := b.(Airy); ok && want[c] < -1e-3 {
					sawNegative = true
				}
			}
		}
	}
	if !sawNegative {
		t.Error("no Airy sidelobe of negative amplitude was checked")
	}
}

// TestGaussianDiameterWidth checks the diameter-defined Gaussian's width
// against its definition rather than its formula: its E-field's FWHM is
// that of the Airy E-field of the same dish (where 2·J1(x)/x = 1/2, found
// here by bisection on Bessel's integral), with 2.355 for 2√(2 ln 2).
func TestGaussianDiameterWidth(t *testing.T) {
	for _, tc := range []struct{ freq, d float64 }{{100e6, 14}, {150e6, 14}, {200e6, 6}, {120e6, 30}} {
		lambda := SpeedOfLight / tc.freq
		lo, hi := 0.1, 3.8
		for range 60 {
			mid := (lo + hi) / 2
			if 2*besselJ1(mid)/mid > 0.5 {
				lo = mid
			} else {
				hi = mid
			}
		}
		zaHalf := math.Asin(lo * lambda / (math.Pi * tc.d))
		got := eval(t, Gaussian{DiameterM: tc.d}, tc.freq, Mode{}, []float64{0, zaHalf}, []float64{zaHalf, zaHalf})
		// 2.355 rounds 2√(2 ln 2) = 2.35482: the half point is within 1e-4.
		if math.Abs(real(got[0])-0.5) > 1e-4 {
			t.Errorf("%g Hz, %g m: E-field %g at the Airy half-amplitude angle %g, want 1/2", tc.freq, tc.d, real(got[0]), zaHalf)
		}
	}
	if (Gaussian{DiameterM: 14}).Sigma(100e6) <= (Gaussian{DiameterM: 14}).Sigma(200e6) {
		t.Fatal("the beam must narrow with frequency")
	}
}

func TestAnalyticBadInput(t *testing.T) {
	cases := []Beam{Gaussian{}, Gaussian{SigmaRad: 1, DiameterM: 2}, Gaussian{SigmaRad: -1}, Airy{}, Airy{DiameterM: math.Inf(1)}}
	for _, b := range cases {
		if _, err := b.At(1e8, Mode{}); err == nil {
			t.Errorf("%v accepted", b)
		}
	}
	if _, err := ParseFeed("z"); err == nil {
		t.Error("feed z accepted")
	}
}
