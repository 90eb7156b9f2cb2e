package beam

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
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
	rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
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

func TestShortDipoleComponents(t *testing.T) {
	// At az = 0 (East), za = 0: the x feed sees axis 1 (cos za·cos az = 1),
	// the y feed sees axis 0 (cos az = 1).
	out := eval(t, ShortDipole{}, 1e8, Mode{Polarized: true}, []float64{0}, []float64{0})
	want := []complex128{0, 1, 1, 0}
	for i := range want {
		if cmplx.Abs(out[i]-want[i]) > 1e-15 {
			t.Fatalf("component %d = %v, want %v", i, out[i], want[i])
		}
	}
}

func TestGaussianDiameterWidth(t *testing.T) {
	// pyuvdata: σ = asin(2.2150894·λ/(πD))·2/2.355; at 150 MHz and 14 m.
	g := Gaussian{DiameterM: 14}
	lambda := SpeedOfLight / 150e6
	want := math.Asin(2.2150894*lambda/(math.Pi*14)) * 2 / 2.355
	if got := g.Sigma(150e6); math.Abs(got-want) > 1e-15 {
		t.Fatalf("σ = %g, want %g", got, want)
	}
	if g.Sigma(100e6) <= g.Sigma(200e6) {
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
