package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// testStokes is a flat-spectrum full-Stokes sky.
type testStokes struct{ s [4][]float64 }

func (f testStokes) StokesAt(_ float64, k int, dst []float64) error {
	copy(dst, f.s[k])
	return nil
}
func (f testStokes) StokesIAt(freq float64, dst []float64) error { return f.StokesAt(freq, 0, dst) }
func (f testStokes) Polarized() bool                             { return true }

// stokesSim is a full-Stokes simulation with ERFA coordinates and
// pyuvsim's (rigid) polarization basis: random sources over the sphere,
// some over-polarized (a negative eigenvalue), rotation rot.
func stokesSim(t *testing.T, rng *rand.Rand, nsrc int, rot matvis.CoherencyRotation, overPolarized bool) *matvis.Simulation {
	return stokesSimBasis(t, rng, nsrc, rot, overPolarized, false)
}

// stokesSimBasis is stokesSim with the exact local mapping (FDBasis)
// instead of the rigid basis when fd.
func stokesSimBasis(t *testing.T, rng *rand.Rand, nsrc int, rot matvis.CoherencyRotation, overPolarized, fd bool) *matvis.Simulation {
	t.Helper()
	times := []float64{2459845.25, 2459845.25 + 600.0/86400, 2459845.5}
	cfg := matvis.Config{Freqs: []float64{100e6}}
	for range 5 {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*100 - 50, rng.Float64()*100 - 50, 0})
	}
	var sky testStokes
	for k := range sky.s {
		sky.s[k] = make([]float64, nsrc)
	}
	for s := range nsrc {
		cfg.RA = append(cfg.RA, rng.Float64()*2*math.Pi)
		cfg.Dec = append(cfg.Dec, math.Asin(rng.Float64()*2-1))
		i := rng.Float64() + 0.1
		frac := 0.8 * rng.Float64()
		if overPolarized && s%7 == 0 {
			frac = 1.3
		}
		chi, psi := math.Pi*rng.Float64(), math.Pi*(rng.Float64()-0.5)
		sky.s[0][s] = i
		sky.s[1][s] = frac * i * math.Cos(psi) * math.Cos(2*chi)
		sky.s[2][s] = frac * i * math.Cos(psi) * math.Sin(2*chi)
		sky.s[3][s] = frac * i * math.Sin(psi)
	}
	mk := func(ra, dec []float64) (matvis.Coordinates, error) {
		return astro.New(astro.Config{Method: astro.MethodERFA, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1051.7},
			TimesJD: times, EOP: make([]astro.EOP, len(times))}, ra, dec)
	}
	crd, err := mk(cfg.RA, cfg.Dec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Coords = crd
	if fd {
		cfg.PolBasis, err = matvis.NewFDBasis(mk, cfg.RA, cfg.Dec, 0)
	} else {
		cfg.PolBasis, err = matvis.NewRigidBasis(mk, cfg.RA, cfg.Dec)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sky = sky
	cfg.Beams = []beam.Beam{beam.Airy{DiameterM: 14}, beam.Gaussian{DiameterM: 12}}
	cfg.BeamIdx = []int{0, 1, 0, 1, 0}
	cfg.Options = matvis.Options{Precision: 2, Polarized: true, Rotation: rot}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestDeviceStokesFactorsMatchHost: the factors the device makes per time
// (stokes_factor, stokes_factor_fd, from its own ENU vectors) equal the
// host's (the basis's Basis, LocalCoherency, Factor: factorSky) within
// 1e-12 of the largest factor with the rigid basis and 1e-11 with the
// exact local mapping (its θ̂ is a difference of directions 2·10⁻⁴ rad
// apart, whose rounding — ~1e-15 in each, made differently by the
// device's and the host's transforms — weighs 10⁴ times more; 4.2e-13
// seen on the H200), both signs, at
// several times, for both rotations, with over-polarized sources among
// them; the factor buffer is poisoned before each time.
func TestDeviceStokesFactorsMatchHost(t *testing.T) {
	g := openGPU(t)
	for i, c := range []struct {
		rot      matvis.CoherencyRotation
		over, fd bool
	}{{matvis.RotationPyradiosky, false, false}, {matvis.RotationPyradiosky, true, false}, {matvis.RotationIAU, true, false},
		{matvis.RotationIAU, true, true}, {matvis.RotationPyradiosky, false, true}} {
		t.Run(fmt.Sprintf("%s over-polarized=%v fd=%v", c.rot, c.over, c.fd), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+3, 77))
			sim := stokesSimBasis(t, rng, 3000, c.rot, c.over, c.fd)
			tol := 1e-12
			if c.fd {
				tol = 1e-11
			}
			r, err := newRun(context.Background(), g, sim)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			if r.devFactors == nil {
				t.Fatalf("factors on the host: %s", r.res.Stats.StokesFactors)
			}
			must(t, r.channelSky(0))
			ns := r.nsrc
			host := make([]float64, 2*ns*stokesWords)
			dev := make([]float64, 2*ns*stokesWords)
			for ti := range sim.NTime() {
				sl := ti % 2
				must(t, r.c.SyncStream(r.s))
				must(t, r.c.Memset8(r.dW[sl], 0xFF, int64(len(dev))*8, r.s))
				must(t, r.queueCoords(0, ti, sl))
				must(t, r.c.SyncStream(r.s))
				must(t, cuda.Download(r.c, dev, r.dW[sl], r.s))
				cosX, sinX := make([]float64, ns), make([]float64, ns)
				must(t, sim.PolBasis.Basis(ti, cosX, sinX))
				anyNeg := factorSky(r.stoke, cosX, sinX, sim.Options.Rotation, host[:ns*stokesWords], host[ns*stokesWords:])
				if r.neg[sl] != anyNeg {
					t.Fatalf("time %d: the device path says negative factors %v, the host %v", ti, r.neg[sl], anyNeg)
				}
				peak := 0.0
				for _, v := range host {
					peak = max(peak, math.Abs(v))
				}
				worst := 0.0
				for k := range host {
					d := math.Abs(dev[k] - host[k])
					if !(d <= tol*peak) {
						t.Fatalf("time %d, source %d, word %d: device %v, host %v (peak %g)", ti, (k%(ns*stokesWords))/stokesWords, k%stokesWords, dev[k], host[k], peak)
					}
					worst = max(worst, d/peak)
				}
				t.Logf("time %d: worst |Δ| %.2e of the largest factor (negative factors: %v)", ti, worst, anyNeg)
			}
		})
	}
}

// TestDeviceStokesParity runs full-Stokes simulations with the device's
// factors end to end against the plain-loop twin.
func TestDeviceStokesParity(t *testing.T) {
	g := openGPU(t)
	for i, c := range []struct {
		rot matvis.CoherencyRotation
		fd  bool
	}{{matvis.RotationPyradiosky, false}, {matvis.RotationIAU, false}, {matvis.RotationIAU, true}} {
		rng := rand.New(rand.NewPCG(uint64(i)+11, 19))
		sim := stokesSimBasis(t, rng, 400, c.rot, true, c.fd)
		checkParity(t, g, sim, fmt.Sprintf("device Stokes factors %s fd=%v", c.rot, c.fd), func(res *matvis.Result) string {
			if res.Stats.StokesFactors != "device" {
				t.Errorf("factors made %s, want device", res.Stats.StokesFactors)
			}
			return "factors " + res.Stats.StokesFactors
		})
	}
}
