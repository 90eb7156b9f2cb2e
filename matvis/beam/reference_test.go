package beam_test

import (
	"encoding/json"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/beam/beamfits"
)

// TestReferenceTwinUVBeamPolSmall recomputes shared/reference/
// uvbeam-pol-small (matvis CPU, polarized, float64, the shared beamfits
// dipole) with a plain loop independent of the simulator: per frequency and
// time, the sources above the horizon of topo.npy, their az/za (matvis's
// "uvbeam" orientation), the gridded beam's response, Z = A·sqrt(I/2)·
// exp(+i2πν/c x·ŝ) and V[(i,j), p, q] = Σ_s Σ_k conj(Z[i,q,k,s])·Z[j,p,k,s].
// twinSpec is the part of a reference spec the twin reads.
type twinSpec struct {
	Antennas [][3]float64 `json:"antennas_enu_m"`
	Freqs    []float64    `json:"freqs_hz"`
	Sources  struct {
		FluxJy [][]float64 `json:"flux_jy"`
	} `json:"sources"`
	Beams []struct {
		Type, Path string
	} `json:"beams"`
	Polarized bool `json:"polarized"`
	Precision int  `json:"precision"`
}

// readTwinSpec reads dir/spec.json, failing when it is missing.
func readTwinSpec(t *testing.T, dir string) twinSpec {
	t.Helper()
	var spec twinSpec
	b, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err != nil {
		t.Fatalf("the committed reference is missing: %v", err)
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestReferenceTwinUVBeamPolSmall(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small")
	spec := readTwinSpec(t, dir)
	if !spec.Polarized || len(spec.Beams) != 1 || spec.Beams[0].Type != "beamfits" {
		t.Fatalf("spec changed: polarized %v, beams %+v", spec.Polarized, spec.Beams)
	}
	g, err := beamfits.Load(filepath.Join(dir, spec.Beams[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	topo := sharedtest.ReadNpy(t, filepath.Join(dir, "topo.npy"))
	want := sharedtest.ReadNpy(t, filepath.Join(dir, "vis.npy")).AsComplex128()
	ntimes, nsrc := topo.Shape[0], topo.Shape[2]
	nant := len(spec.Antennas)
	npair := nant * nant
	got := make([]complex128, len(spec.Freqs)*ntimes*npair*4)
	for fi, nu := range spec.Freqs {
		r, err := g.At(nu, beam.Mode{Polarized: true})
		if err != nil {
			t.Fatal(err)
		}
		k := 2 * math.Pi * nu / beam.SpeedOfLight
		for ti := 0; ti < ntimes; ti++ {
			e := topo.Float64[(ti*3+0)*nsrc:][:nsrc]
			nn := topo.Float64[(ti*3+1)*nsrc:][:nsrc]
			u := topo.Float64[(ti*3+2)*nsrc:][:nsrc]
			var az, za, amp []float64
			var up []int
			for s := 0; s < nsrc; s++ {
				if !(u[s] > 0) {
					continue
				}
				a, z := azZa(e[s], nn[s])
				az, za = append(az, a), append(za, z)
				amp = append(amp, math.Sqrt(0.5*spec.Sources.FluxJy[s][fi]))
				up = append(up, s)
			}
			n := len(up)
			resp := make([]complex128, 4*n)
			r.Eval(az, za, resp)
			// Z[a][f][k][s]
			z := make([]complex128, nant*4*n)
			for a, x := range spec.Antennas {
				for i, s := range up {
					ph := cmplx.Exp(complex(0, k*(x[0]*e[s]+x[1]*nn[s]+x[2]*u[s])))
					for c := 0; c < 4; c++ {
						z[(a*4+c)*n+i] = resp[c*n+i] * complex(amp[i], 0) * ph
					}
				}
			}
			for i := 0; i < nant; i++ {
				for j := 0; j < nant; j++ {
					base := ((fi*ntimes+ti)*npair + i*nant + j) * 4
					for p := 0; p < 2; p++ {
						for q := 0; q < 2; q++ {
							var v complex128
							for kk := 0; kk < 2; kk++ {
								zi := z[(i*4+2*q+kk)*n:][:n]
								zj := z[(j*4+2*p+kk)*n:][:n]
								for s := range zi {
									v += cmplx.Conj(zi[s]) * zj[s]
								}
							}
							got[base+2*p+q] = v
						}
					}
				}
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d visibilities, reference has %d", len(got), len(want))
	}
	var d, m float64
	for i := range want {
		d = math.Max(d, beam.Cdiff(got[i], want[i]))
		m = math.Max(m, cmplx.Abs(want[i]))
	}
	t.Logf("uvbeam-pol-small twin: max|ΔV|/max|V_ref| = %.3g (max|V_ref| = %.6g)", d/m, m)
	if d/m > 1e-6 {
		t.Errorf("max|ΔV|/max|V_ref| = %.3g, want ≤ 1e-6", d/m)
	}
}

// azZa is matvis's enu_to_az_za in the "uvbeam" orientation (conventions
// §4.3), restated here so the twin does not depend on the simulator.
func azZa(e, n float64) (az, za float64) {
	r := 1 - e*e - n*n
	if r < 0 {
		r = 0
	}
	za = math.Pi/2 - math.Asin(math.Sqrt(r))
	az = math.Mod(math.Pi/2-math.Atan2(e, n), 2*math.Pi)
	if az < 0 {
		az += 2 * math.Pi
	}
	return az, za
}
