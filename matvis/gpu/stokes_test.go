package gpu

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
)

// kernelJW is beam_tau_z_stokes's arithmetic, line for line: (J·W)[f,k]
// from a beam's four components j (feed f, axis ax at 2f+ax) and one
// sign's factors w in factorSky's layout.
func kernelJW(j [4]complex128, w []float64, f, k int) complex128 {
	var wr, wi [4]float64
	for i := range 4 {
		wr[i], wi[i] = w[2*i], w[2*i+1]
	}
	j0r, j0i := real(j[2*f]), imag(j[2*f])
	j1r, j1i := real(j[2*f+1]), imag(j[2*f+1])
	vr := j0r*wr[k] - j0i*wi[k] + j1r*wr[2+k] - j1i*wi[2+k]
	vi := j0r*wi[k] + j0i*wr[k] + j1r*wi[2+k] + j1i*wr[2+k]
	return complex(vr, vi)
}

// TestFactorSkyLayout: factorSky's factors, read as beam_tau_z_stokes
// reads them, give Σ_k (J_p·W)(J_q·W)* of the positive factors minus that
// of the negative ones = J_p·C·J_qᴴ, the local coherency of random
// Stokes (over-polarized and negative-I included) through random complex
// Jones matrices; the negative flag is set exactly when a factor is.
func TestFactorSkyLayout(t *testing.T) {
	rng := sharedtest.RNG(t, 5)
	const n = 5000
	var st [4][]float64
	for k := range st {
		st[k] = make([]float64, n)
		for s := range n {
			st[k][s] = rng.NormFloat64()
		}
	}
	cosX, sinX := make([]float64, n), make([]float64, n)
	for s := range n {
		sinX[s], cosX[s] = math.Sincos(2 * math.Pi * rng.Float64())
	}
	for _, rot := range []matvis.CoherencyRotation{matvis.RotationPyradiosky, matvis.RotationIAU} {
		pos, neg := make([]float64, n*stokesWords), make([]float64, n*stokesWords)
		anyNeg := factorSky(st, cosX, sinX, rot, pos, neg)
		sawNeg := false
		for s := range n {
			c := matvis.LocalCoherency(st[0][s], st[1][s], st[2][s], st[3][s], cosX[s], sinX[s], rot)
			var j [4]complex128
			for i := range j {
				j[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			}
			wp, wn := pos[s*stokesWords:(s+1)*stokesWords], neg[s*stokesWords:(s+1)*stokesWords]
			for _, x := range wn {
				sawNeg = sawNeg || x != 0
			}
			for p := range 2 {
				for q := range 2 {
					var got, want complex128
					for k := range 2 {
						got += kernelJW(j, wp, p, k) * cmplx.Conj(kernelJW(j, wp, q, k))
						got -= kernelJW(j, wn, p, k) * cmplx.Conj(kernelJW(j, wn, q, k))
					}
					for a := range 2 {
						for b := range 2 {
							want += j[2*p+a] * c[a][b] * cmplx.Conj(j[2*q+b])
						}
					}
					if !(cmplx.Abs(got-want) <= 1e-12*(1+cmplx.Abs(want))) {
						t.Fatalf("%s source %d V[%d][%d]: from the factors %v, J·C·Jᴴ %v", rot, s, p, q, got, want)
					}
				}
			}
		}
		if anyNeg != sawNeg || !anyNeg {
			t.Errorf("%s: factorSky says negative %v, the buffers hold negative factors: %v (random Stokes have some)", rot, anyNeg, sawNeg)
		}
	}
}

// TestSkyScansMatchPlainLoops: the parallel scans of a full-Stokes sky
// (its largest coherency eigenvalue, whether any eigenvalue is negative)
// equal the one-loop definitions on fresh random skies of several sizes,
// with a negative eigenvalue planted at each end, in the middle, or none.
func TestSkyScansMatchPlainLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 65536, 300001} {
		for _, plant := range []int{-1, 0, n / 2, n - 1} {
			var st [4][]float64
			for k := range st {
				st[k] = make([]float64, n)
			}
			for s := range n {
				i := rng.Float64() + 0.1
				st[0][s], st[1][s], st[2][s], st[3][s] = i, 0.3*i*(rng.Float64()-0.5), 0.3*i*(rng.Float64()-0.5), 0.1*i*rng.Float64()
			}
			if plant >= 0 {
				st[1][plant] = 2 * st[0][plant]
			}
			wantNeg := false
			for s := range n {
				if st[0][s] < math.Sqrt(st[1][s]*st[1][s]+st[2][s]*st[2][s]+st[3][s]*st[3][s]) {
					wantNeg = true
				}
			}
			if got := anyNegative(st); got != wantNeg || got != (plant >= 0) {
				t.Errorf("n %d, planted at %d: anyNegative %v, plain loop %v", n, plant, got, wantNeg)
			}
			if got, want := skyLambdaParallel(&st), skyLambda(nil, &st); got != want {
				t.Errorf("n %d: skyLambdaParallel %v, skyLambda %v", n, got, want)
			}
		}
	}
}
