package astro

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/npy"
)

// readNpyF64 reads a float64 .npy file.
func readNpyF64(path string) (shape []int, data []float64, err error) {
	a, err := npy.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if a.DType != npy.Float64 {
		return nil, nil, fmt.Errorf("%s: dtype %s, want float64", path, a.DType)
	}
	return a.Shape, a.Float64, nil
}

type refSpec struct {
	Telescope struct {
		LatDeg  float64 `json:"lat_deg"`
		LonDeg  float64 `json:"lon_deg"`
		HeightM float64 `json:"height_m"`
	} `json:"telescope"`
	TimesJD []float64 `json:"times_jd"`
	EOP     []struct {
		UT1UTC float64 `json:"ut1_utc_s"`
		Xp     float64 `json:"xp_arcsec"`
		Yp     float64 `json:"yp_arcsec"`
	} `json:"eop"`
	Sources struct {
		RA  []float64 `json:"ra_rad"`
		Dec []float64 `json:"dec_rad"`
	} `json:"sources"`
}

type refCase struct {
	name   string
	spec   refSpec
	cfg    Config
	topo   []float64 // (ntimes, 3, nsrc)
	erfa   []float64
	taiUTC []float64
}

func loadRefs(t testing.TB) []refCase {
	dir := filepath.Join(sharedtest.Dir(t), "reference")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []refCase
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(filepath.Join(d, "spec.json"))
		if err != nil {
			continue
		}
		var c refCase
		c.name = e.Name()
		if err := json.Unmarshal(b, &c.spec); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		nt, ns := len(c.spec.TimesJD), len(c.spec.Sources.RA)
		for _, f := range []struct {
			file string
			dst  *[]float64
		}{{"topo.npy", &c.topo}, {"topo_erfa.npy", &c.erfa}} {
			shape, data, err := readNpyF64(filepath.Join(d, f.file))
			if err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			if len(shape) != 3 || shape[0] != nt || shape[1] != 3 || shape[2] != ns {
				t.Fatalf("%s/%s: shape %v, want (%d, 3, %d)", d, f.file, shape, nt, ns)
			}
			*f.dst = data
		}
		var meta struct {
			TaiUTC []float64 `json:"tai_utc_s"`
		}
		if mb, err := os.ReadFile(filepath.Join(d, "meta.json")); err == nil {
			if err := json.Unmarshal(mb, &meta); err != nil {
				t.Fatalf("%s/meta.json: %v", d, err)
			}
		}
		c.taiUTC = meta.TaiUTC
		c.cfg = Config{
			Site:    Site{c.spec.Telescope.LatDeg, c.spec.Telescope.LonDeg, c.spec.Telescope.HeightM},
			TimesJD: c.spec.TimesJD,
		}
		for _, p := range c.spec.EOP {
			c.cfg.EOP = append(c.cfg.EOP, EOP{p.UT1UTC, p.Xp, p.Yp})
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Skip("no reference specs found")
	}
	return out
}

// angle is the angle between two vectors (radians), accurate for tiny angles.
func angle(a, b vec3) float64 {
	return math.Atan2(math.Sqrt(dot(cross(a, b), cross(a, b))), dot(a, b))
}

const mas = das2r / 1000

// maxAngleVsRef runs rot over all times and returns the largest angle to
// ref (ntimes, 3, nsrc) over sources with ref up > 0, and the largest
// |norm − 1|.
func maxAngleVsRef(t testing.TB, rot Rotation, ref []float64) (maxAng, maxNorm float64) {
	nt, ns := rot.NTimes(), rot.NSources()
	e, n, u := make([]float64, ns), make([]float64, ns), make([]float64, ns)
	for ti := 0; ti < nt; ti++ {
		if err := rot.ENU(ti, e, n, u); err != nil {
			t.Fatal(err)
		}
		base := ti * 3 * ns
		for s := 0; s < ns; s++ {
			r := vec3{ref[base+s], ref[base+ns+s], ref[base+2*ns+s]}
			if r[2] <= 0 {
				continue
			}
			g := vec3{e[s], n[s], u[s]}
			maxAng = math.Max(maxAng, angle(g, r))
			maxNorm = math.Max(maxNorm, math.Abs(math.Sqrt(dot(g, g))-1))
		}
	}
	return maxAng, maxNorm
}

func TestReferenceTopo(t *testing.T) {
	for _, c := range loadRefs(t) {
		for _, m := range []Method{MethodAstropy, MethodERFA} {
			t.Run(c.name+"/"+string(m), func(t *testing.T) {
				cfg := c.cfg
				cfg.Method = m
				cfg.Warn = func(msg string) { t.Errorf("unexpected warning: %s", msg) }
				rot, err := New(cfg, c.spec.Sources.RA, c.spec.Sources.Dec)
				if err != nil {
					t.Fatal(err)
				}
				ang, nrm := maxAngleVsRef(t, rot, c.topo)
				t.Logf("max angle vs astropy topo.npy: %.3g mas (%.3g rad); max |norm-1| %.2g", ang/mas, ang, nrm)
				if ang > 1*mas {
					t.Errorf("max angle %.4g mas > 1 mas", ang/mas)
				}
				if nrm > 1e-14 {
					t.Errorf("max |norm-1| = %g", nrm)
				}
				if m == MethodERFA {
					ang, _ := maxAngleVsRef(t, rot, c.erfa)
					t.Logf("max angle vs matvis topo_erfa.npy: %.3g mas", ang/mas)
					if ang > 1*mas {
						t.Errorf("max angle vs topo_erfa %.4g mas > 1 mas", ang/mas)
					}
				}
			})
		}
	}
}

// TestBCRSUpdateError measures how much a stale BCRS step costs against the
// astropy reference (logged, with a loose sanity bound).
func TestBCRSUpdateError(t *testing.T) {
	for _, c := range loadRefs(t) {
		for _, every := range []float64{0, 60, 180, 600, 3600} {
			cfg := c.cfg
			cfg.Method = MethodERFA
			cfg.UpdateBCRSEvery = every
			rot, err := New(cfg, c.spec.Sources.RA, c.spec.Sources.Dec)
			if err != nil {
				t.Fatal(err)
			}
			er := rot.(*erfaRotation)
			nAnchor := 0
			for i, a := range er.anchor {
				if a == i {
					nAnchor++
				}
			}
			ang, _ := maxAngleVsRef(t, rot, c.topo)
			dt := (c.spec.TimesJD[1] - c.spec.TimesJD[0]) * daySec
			t.Logf("%s (time step %.0f s): update_bcrs_every=%4.0f s: %d BCRS steps for %d times, max angle %.4g mas",
				c.name, dt, every, nAnchor, len(c.spec.TimesJD), ang/mas)
			// Aberration changes by ≤ ~0.3 mas/s·… bound generously: 20"/h.
			if lim := 1*mas + every*20/3600*das2r*1.5; ang > lim {
				t.Errorf("every=%v: max angle %.4g mas exceeds %.4g mas", every, ang/mas, lim/mas)
			}
		}
	}
}

func TestReferenceTAIminusUTC(t *testing.T) {
	checked := 0
	for _, c := range loadRefs(t) {
		if len(c.taiUTC) != len(c.spec.TimesJD) {
			t.Logf("%s: meta.json has no tai_utc_s per time: not checked", c.name)
			continue
		}
		checked++
		for i, jd := range c.spec.TimesJD {
			got, stale, err := TAIminusUTC(jd)
			if err != nil || stale || got != c.taiUTC[i] {
				t.Errorf("%s: TAIminusUTC(%v) = %v, %v, %v; want %v", c.name, jd, got, stale, err, c.taiUTC[i])
			}
		}
	}
	if checked == 0 {
		t.Fatal("no reference has tai_utc_s per time: nothing was checked")
	}
}
