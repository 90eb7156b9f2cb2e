package main

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/fitsread"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
	"github.com/gomatvis/gomatvis/uvh5"
)

// pyuvsimUVFITSCases are the references with pyuvsim's UVFITS
// (testdata/reference/pyuvsim-CASE/CASE.uvfits) and the flags that make
// gomatvis's simulation agree with pyuvsim's.
var pyuvsimUVFITSCases = []struct {
	name  string
	flags []string
}{
	{"stokesI-gaussian", nil},
	{"fullstokes-airy", []string{"--stokes-rotation", "pyradiosky"}},
}

// TestUVFITSEqualsPyuvsim: the UVFITS of a reference config equals the
// one pyuvsim wrote (pyuvdata 2.4.2's write_uvfits(force_phase=True,
// fix_autos=True), CASE.uvfits), in two steps that separate the writer
// from the simulator:
//
//   - "writer": pyuvsim's own visibilities (CASE.uvh5) written through
//     the run's UVFITS writer (uvdata.CreateUVFITS for the obsparam's
//     simulation) give pyuvsim's file: every primary, AN and SU keyword
//     of pyuvsim's file (all pyuvdata reads among them; HISTORY aside),
//     every random-group parameter and table column, and the data within
//     1e-8 of the peak;
//   - "simulate": `gomatvis simulate obsparam.yaml -o X.uvfits` gives the
//     same header, parameters and tables, and its data too within 1e-8
//     of the peak (the simulation agrees with pyuvsim's to ~1e-10 here).
func TestUVFITSEqualsPyuvsim(t *testing.T) {
	for _, c := range pyuvsimUVFITSCases {
		t.Run(c.name, func(t *testing.T) {
			ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-"+c.name)
			want := filepath.Join(ref, c.name+".uvfits")
			t.Run("writer", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "w.uvfits")
				writePyuvsimData(t, filepath.Join(ref, "obsparam.yaml"), filepath.Join(ref, c.name+".uvh5"), out)
				compareUVFITS(t, out, want, 1e-8)
			})
			t.Run("simulate", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "s.uvfits")
				args := append([]string{"simulate", filepath.Join(ref, "obsparam.yaml"), "-o", out, "-q", "--backend", "cpu"}, c.flags...)
				if code, _, stderr := runCLI(t, args...); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				compareUVFITS(t, out, want, 1e-8)
			})
		})
	}
}

// writePyuvsimData writes pyuvsim's visibilities (a UVH5 of the obsparam's
// run) as the run's UVFITS at out: the obsparam's simulation and
// observation, its result taken from the UVH5 instead of computed.
func writePyuvsimData(t *testing.T, obsparam, uvh5Path, out string) {
	t.Helper()
	in, err := loadInput(context.Background(), obsparam)
	if err != nil {
		t.Fatal(err)
	}
	sim, obs, err := in.build(context.Background(), buildOptions{uvh5: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := uvh5.ReadFile(uvh5Path)
	if err != nil {
		t.Fatal(err)
	}
	h := &f.Header
	nf, nt, nbl, np := sim.NFreq(), sim.NTime(), len(obs.Baselines), len(obs.Pols)
	if h.Nblts() != nt*nbl || h.Nfreqs() != nf || h.Npols() != np {
		t.Fatalf("the UVH5 has %d rows × %d channels × %d pols; the run %d × %d × %d", h.Nblts(), h.Nfreqs(), h.Npols(), nt*nbl, nf, np)
	}
	inner := 1
	if sim.Options.Polarized {
		inner = 4
	}
	res := &matvis.Result{Shape: sim.OutputShape(), Precision: 2, Vis128: make([]complex128, nf*nt*nbl*inner), Done: make([]bool, nf*nt)}
	for i := range res.Done {
		res.Done[i] = true
	}
	for row := range nt * nbl {
		ti, k := row/nbl, row%nbl
		b := obs.Baselines[k]
		if h.Ant1[row] != int64(obs.AntNums[b[0]]) || h.Ant2[row] != int64(obs.AntNums[b[1]]) || h.Times[row] != sim.Times[ti] {
			t.Fatalf("row %d: antennas %d, %d at JD %v; the run's %d, %d at %v", row, h.Ant1[row], h.Ant2[row], h.Times[row], obs.AntNums[b[0]], obs.AntNums[b[1]], sim.Times[ti])
		}
		for fi := range nf {
			for pi, pol := range obs.Pols {
				if int64(pol) != h.Pols[pi] {
					t.Fatalf("pols %v, the run's %v", h.Pols, obs.Pols)
				}
				p, q := matvis.PolIndex(pol, sim.Options.Polarized)
				res.Vis128[((fi*nt+ti)*nbl+k)*inner+p*(inner/2)+q*min(inner-1, 1)] = f.Vis[(row*nf+fi)*np+pi]
			}
		}
	}
	w, err := uvdata.CreateUVFITS(out, sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteTimes(0, res); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// keywordTol is how far a header or table number may be from pyuvsim's
// (relative to its size, at least 1): the centre's degrees, GSTIA0 and
// the array's ECEF metres come through other arithmetic (ERFA's against
// astropy's) and agree to ~1e-15 of themselves. absTol are the wider
// absolute tolerances of the numbers that went, in pyuvsim, through the
// array centre's ECEF position and back (telescope_location from the
// config's latitude, longitude, altitude): ALT (m) and the antennas'
// STABXYZ (m), which pyuvsim holds to ~1e-10 m off the layout's; and
// GSTIA0 (degrees), astropy's sidereal_time("apparent", "tio") against
// matvis/astro's, which differ by 3e-9° (11 μas).
const keywordTol = 1e-12

var absTol = map[string]float64{"ALT": 1e-8, "STABXYZ": 1e-9, "GSTIA0": 1e-8}

// within says whether a is b within the key's tolerance.
func within(key string, a, b float64) bool {
	return math.Abs(a-b) <= max(keywordTol*max(1, math.Abs(b)), absTol[key])
}

// compareUVFITS fails unless the UVFITS at got has pyuvsim's (want)
// header, parameters and tables, and its data within dataTol of the
// peak.
func compareUVFITS(t *testing.T, got, want string, dataTol float64) {
	t.Helper()
	g, err := fitsread.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := fitsread.Read(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 3 || len(w) != 3 {
		t.Fatalf("%d and %d HDUs; want the primary, AIPS AN and AIPS SU", len(g), len(w))
	}
	for i, what := range []string{"primary", "AIPS AN", "AIPS SU"} {
		compareCards(t, what, &g[i], &w[i])
	}
	if c, ok := g[0].Get("PHASED"); ok {
		t.Errorf("PHASED = %s: pyuvsim's file has none (pyuvdata would keep it as an extra keyword)", c.Value)
	}
	gg, err := g[0].Groups()
	if err != nil {
		t.Fatal(err)
	}
	wg, err := w[0].Groups()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(gg.Names, " ") != strings.Join(wg.Names, " ") {
		t.Fatalf("parameters %v, pyuvsim's %v", gg.Names, wg.Names)
	}
	const c = 299792458.0
	// uvw (s) to 1e-9 m (the antennas' ECEF positions differ by ~1e-10
	// m, above); DATE to 1 ns; LST to 1e-9°; INTTIM to 1e-5 s:
	// matvis/obsparam gives the obsparam's integration_time (600.0 s)
	// where pyuvsim 1.2.6 wrote the times' JD spacing (600.0000044703 s in
	// CASE.uvh5 and CASE.uvfits); the rest exact.
	tols := map[string]float64{"UU": 1e-9 / c, "VV": 1e-9 / c, "WW": 1e-9 / c, "DATE": 1e-9 / 86400, "LST": 1e-9, "INTTIM": 1e-5}
	for name, want := range wg.Params {
		worst := 0.0
		for k, v := range want {
			worst = max(worst, math.Abs(gg.Params[name][k]-v))
		}
		t.Logf("%s: max |Δ| %.3g", name, worst)
		if worst > tols[name] {
			t.Errorf("parameter %s differs from pyuvsim's by %.3g (tolerance %.3g)", name, worst, tols[name])
		}
	}
	peak, worst, wts := 0.0, 0.0, 0.0
	for k := range wg.Data {
		for i := 0; i+2 < len(wg.Data[k]); i += 3 {
			a, b := wg.Data[k][i:i+3], gg.Data[k][i:i+3]
			peak = max(peak, math.Hypot(a[0], a[1]))
			worst = max(worst, math.Hypot(a[0]-b[0], a[1]-b[1]))
			wts = max(wts, math.Abs(a[2]-b[2]))
		}
	}
	t.Logf("data: max|ΔV| %.3g of the peak %.3g", worst/peak, peak)
	if !(worst <= dataTol*peak) || wts != 0 {
		t.Errorf("data differ from pyuvsim's by %.3g of the peak (tolerance %.3g), weights by %v", worst/peak, dataTol, wts)
	}
	for i := 1; i < 3; i++ {
		compareTable(t, &g[i], &w[i])
	}
}

// compareCards checks every keyword of pyuvsim's HDU but HISTORY (which
// names the simulator) in got: strings equal, numbers within keywordTol.
func compareCards(t *testing.T, what string, got, want *fitsread.HDU) {
	t.Helper()
	for _, wc := range want.Cards {
		if wc.Key == "HISTORY" || wc.Key == "COMMENT" || wc.Key == "" {
			continue
		}
		gc, ok := got.Get(wc.Key)
		if !ok {
			t.Errorf("%s: no %s (pyuvsim's: %s)", what, wc.Key, wc.Value)
			continue
		}
		if wc.Quoted || gc.Quoted {
			if gc.Value != wc.Value || gc.Quoted != wc.Quoted {
				t.Errorf("%s: %s = %q, pyuvsim's %q", what, wc.Key, gc.Value, wc.Value)
			}
			continue
		}
		a, errA := strconv.ParseFloat(gc.Value, 64)
		b, errB := strconv.ParseFloat(wc.Value, 64)
		if errA != nil || errB != nil {
			if gc.Value != wc.Value {
				t.Errorf("%s: %s = %s, pyuvsim's %s", what, wc.Key, gc.Value, wc.Value)
			}
			continue
		}
		if !within(wc.Key, a, b) {
			t.Errorf("%s: %s = %v, pyuvsim's %v", what, wc.Key, a, b)
		}
	}
}

// compareTable checks every column of pyuvsim's table in got.
func compareTable(t *testing.T, got, want *fitsread.HDU) {
	t.Helper()
	name, _ := want.Get("EXTNAME")
	gt, err := got.Table()
	if err != nil {
		t.Fatal(err)
	}
	wt, err := want.Table()
	if err != nil {
		t.Fatal(err)
	}
	for col, w := range wt {
		g, ok := gt[col]
		switch {
		case !ok:
			t.Errorf("%s: no column %s", name.Value, col)
		case strings.Join(g.Strings, "|") != strings.Join(w.Strings, "|"):
			t.Errorf("%s.%s: %q, pyuvsim's %q", name.Value, col, g.Strings, w.Strings)
		case len(g.Numbers) != len(w.Numbers):
			t.Errorf("%s.%s: %d values, pyuvsim's %d", name.Value, col, len(g.Numbers), len(w.Numbers))
		default:
			for i, v := range w.Numbers {
				if !within(col, g.Numbers[i], v) {
					t.Errorf("%s.%s[%d] = %v, pyuvsim's %v", name.Value, col, i, g.Numbers[i], v)
				}
			}
		}
	}
}
