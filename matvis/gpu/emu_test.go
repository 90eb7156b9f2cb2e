package gpu

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/cudaemu"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// strengthsDriver runs nufft_strengths (vis_nufft.cuh, with the beam
// evaluation of vis_beam.cuh it calls) on the host (internal/cudaemu) for
// beam b of a set of beam tables. Input on stdin, little-endian: n,
// polarized, feedY, b, and the counts of descriptors, geometries and
// packed complex values (int64); the BeamDesc and GeomDesc arrays' bytes;
// the packed values (reals); n east and n north components (reals) and n
// amplitudes √(½I) (float64). Output: the nf²·n strengths (complex
// reals), vector-major.
const strengthsDriver = `
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
typedef R_T real;
typedef C<real> creal;
#define PI_D 3.141592653589793238462643383279502884
#include "vis_beam.cuh"
#include "vis_nufft.cuh"

template <class T> std::vector<T> rd(long long n) {
  std::vector<T> v(n > 0 ? n : 1);
  if (n > 0 && fread(v.data(), sizeof(T), n, stdin) != (size_t)n) { fprintf(stderr, "short input\n"); std::exit(2); }
  return v;
}

int main() {
  long long h[7];
  if (fread(h, 8, 7, stdin) != 7) return 2;
  long long n = h[0];
  int pol = (int)h[1], feedY = (int)h[2], b = (int)h[3];
  auto desc = rd<BeamDesc>(h[4]);
  auto geom = rd<GeomDesc>(h[5]);
  auto coef = rd<creal>(h[6]);
  auto ce = rd<real>(n), cn = rd<real>(n);
  auto amp = rd<double>(n);
  const int nv = pol ? 4 : 1;
  std::vector<creal> str(nv * n);
  EMU_LAUNCH(nufft_strengths, (n + 255) / 256, 256, (int)n, ce.data(), cn.data(), amp.data(), b, desc.data(), geom.data(),
             coef.data(), pol, feedY, str.data());
  fwrite(str.data(), sizeof(creal), str.size(), stdout);
  return 0;
}
`

// TestStrengthsHostEmulation runs the transform path's strengths kernel on
// the host (internal/cudaemu) for analytic beams — Airy, a short dipole,
// a Gaussian, polarized and not, feed x and y, float32 and float64 — with
// the descriptor matvis/gpu builds for them (analyticKind), and compares
// with ½I·Σ_k conj(A[q,k])·A[p,k] from the beam's own Go response
// (matvis/beam) at the same directions: 1e-12 of the largest strength in
// float64, 1e-6 in float32. No device: it checks the kernel's
// arithmetic and layout; NVRTC's compile is the device tests'.
func TestStrengthsHostEmulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 29))
	const freq = 117.5e6 // inside the test grids' 80–140 MHz
	var defs []string
	for _, d := range sharedDefines() {
		defs = append(defs, d)
	}
	grid := func(p1 bool) beam.Beam {
		prec := 2
		if p1 {
			prec = 1
		}
		return newTestGrid(t, "shared", 72, 46, 0.5, 3, prec, testFreqs)
	}
	for _, tc := range []struct {
		b    beam.Beam
		mode beam.Mode
		p1   bool
	}{
		{beam.Airy{DiameterM: 14}, beam.Mode{Polarized: true}, false},
		{beam.Airy{DiameterM: 14}, beam.Mode{Polarized: true}, true},
		{beam.ShortDipole{}, beam.Mode{Polarized: true}, false},
		{beam.Gaussian{SigmaRad: 0.4}, beam.Mode{}, false},
		{beam.Airy{DiameterM: 10}, beam.Mode{Feed: beam.FeedY}, true},
		{grid(false), beam.Mode{Polarized: true}, false},
		{grid(true), beam.Mode{Polarized: true}, true},
		{grid(false), beam.Mode{}, false},
	} {
		tb, err := tablesOf(tc.b, tc.mode, freq, tc.p1)
		if err != nil {
			t.Fatalf("%v: beam tables: %v", tc.b, err)
		}
		const n = 500
		e, nn, amp := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			for e[i]*e[i]+nn[i]*nn[i] == 0 || e[i]*e[i]+nn[i]*nn[i] >= 1 {
				e[i], nn[i] = 2*rng.Float64()-1, 2*rng.Float64()-1
			}
			amp[i] = math.Sqrt(0.5 * (0.1 + 5*rng.Float64()))
		}
		if tc.p1 { // the run's float32 directions
			for i := range n {
				e[i], nn[i] = float64(float32(e[i])), float64(float32(nn[i]))
			}
		}
		pol, feedY := int64(0), int64(0)
		if tc.mode.Polarized {
			pol = 1
		}
		if tc.mode.Feed == beam.FeedY {
			feedY = 1
		}
		var in bytes.Buffer
		w := func(v any) { _ = binary.Write(&in, binary.LittleEndian, v) }
		w([]int64{n, pol, feedY, 0, int64(len(tb.desc)), int64(len(tb.geom)), tb.ncoef})
		w(tb.desc)
		w(tb.geom)
		rt := "double"
		if tc.p1 {
			w(tb.coef32)
		} else {
			w(tb.coef64)
		}
		if tc.p1 {
			rt = "float"
			w(toFloat32(e))
			w(toFloat32(nn))
		} else {
			w(e)
			w(nn)
		}
		w(amp)
		bin := cudaemu.Build(t, strengthsDriver, cudaemu.ProgramFiles(t, kernelFiles, "vis.cu"), append([]string{"-DR_T=" + rt}, defs...)...)
		out := cudaemu.Run(t, bin, in.Bytes())
		nf := 1
		if tc.mode.Polarized {
			nf = 2
		}
		got := cudaemu.Complex(t, out, nf*nf*n, tc.p1)
		want := goStrengths(t, tc.b, tc.mode, freq, e, nn, amp, nf)
		var dmax, vmax float64
		for i := range want {
			dmax = max(dmax, cmplx.Abs(got[i]-want[i]))
			vmax = max(vmax, cmplx.Abs(want[i]))
		}
		tol := 1e-12
		if tc.p1 {
			tol = 1e-6
		}
		t.Logf("%v %+v p1=%v: max|Δ|/max|strength| = %.3g", tc.b, tc.mode, tc.p1, dmax/vmax)
		if !(dmax <= tol*vmax) {
			t.Errorf("%v %+v p1=%v: strengths %.3g of the largest from the beam's own, over %.0e", tc.b, tc.mode, tc.p1, dmax/vmax, tol)
		}
	}
}

// tablesOf are the device's beam tables (buildBeamTables, on the host)
// for a one-antenna simulation of beam b at freq.
func tablesOf(b beam.Beam, mode beam.Mode, freq float64, p1 bool) (*beamTables, error) {
	prec := 2
	if p1 {
		prec = 1
	}
	cfg := matvis.Config{Freqs: []float64{freq}, Antennas: [][3]float64{{0, 0, 0}}, Beams: []beam.Beam{b}, BeamIdx: []int{0},
		RA: []float64{0}, Dec: []float64{0}, Flux: []float64{1}, Options: matvis.Options{Precision: prec, Polarized: mode.Polarized, Feed: mode.Feed}}
	cfg.Coords = mustPrecomputed()
	sim, err := matvis.New(cfg)
	if err != nil {
		return nil, err
	}
	return buildBeamTables(sim, freq, p1)
}

// mustPrecomputed is one source's one-time ENU vector (zenith).
func mustPrecomputed() *matvis.Precomputed {
	p, err := matvis.NewPrecomputed(1, 1, []float64{0, 0, 1})
	if err != nil {
		panic(err)
	}
	return p
}

func toFloat32(v []float64) []float32 {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return f
}

// goStrengths are ½I·Σ_k conj(A[q,k])·A[p,k] (vector p·nf + q, amp² = ½I)
// from the beam's Go response at the directions (e, n).
func goStrengths(t *testing.T, b beam.Beam, mode beam.Mode, freq float64, e, n, amp []float64, nf int) []complex128 {
	t.Helper()
	k := len(e)
	az, za := make([]float64, k), make([]float64, k)
	for i := range k {
		az[i], za[i] = matvis.AzZa(e[i], n[i])
	}
	resp, err := b.At(freq, mode)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]complex128, nf*nf*k)
	resp.Eval(az, za, a)
	str := make([]complex128, nf*nf*k)
	for p := range nf {
		for q := range nf {
			for i := range k {
				var s complex128
				for ax := range nf {
					s += cmplx.Conj(a[(q*nf+ax)*k+i]) * a[(p*nf+ax)*k+i]
				}
				str[(p*nf+q)*k+i] = complex(amp[i]*amp[i], 0) * s
			}
		}
	}
	return str
}
