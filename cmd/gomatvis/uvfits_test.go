package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/uvh5"
)

// needAstropy returns /usr/bin/python3 with astropy, or skips loudly: the
// Debian package python3-astropy.
func needAstropy(t *testing.T) string {
	t.Helper()
	return sharedtest.Python(t, "astropy.io.fits", "python3-astropy")
}

// astropyUVFITS is what uvfits/testdata/read_uvfits.py prints.
type astropyUVFITS struct {
	Groups     bool `json:"groups"`
	IsGroups   bool `json:"is_groups_hdu"`
	Header     map[string]any
	History    []string
	Parnames   []string
	Par        map[string][]float64
	Shape      []int
	Data       []float64
	Extensions []string
	AN, SU     struct {
		Header  map[string]any
		Columns map[string]json.RawMessage
		Formats []string
	}
}

func readAstropy(t *testing.T, py, path string) *astropyUVFITS {
	t.Helper()
	script := filepath.Join(sharedtest.Root(t), "uvfits", "testdata", "read_uvfits.py")
	cmd := exec.Command(py, script, path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("astropy could not read %s: %v\n%s", path, err, stderr.String())
	}
	var f astropyUVFITS
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func column[T any](t *testing.T, tab map[string]json.RawMessage, name string) T {
	t.Helper()
	var v T
	raw, ok := tab[name]
	if !ok {
		t.Fatalf("column %s missing", name)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("column %s: %v", name, err)
	}
	return v
}

func num(t *testing.T, h map[string]any, key string) float64 {
	t.Helper()
	v, ok := h[key].(float64)
	if !ok {
		t.Fatalf("header %s = %v (%T): want a number", key, h[key], h[key])
	}
	return v
}

// TestUVFITSMatchesUVH5: one obsparam run written as UVH5 and as UVFITS
// (double and single precision, unphased by --uvfits-drift): astropy reads the UVFITS as random
// groups with the header keywords, group parameters and AIPS AN and SU
// tables pyuvdata's read_uvfits requires, and its visibilities are the
// UVH5's sample for sample in pyuvdata's UVFITS conventions (conjugated,
// uvw negated in seconds, polarizations sorted by |code|).
func TestUVFITSMatchesUVH5(t *testing.T) {
	py := needAstropy(t)
	ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	for _, prec := range []string{"2", "1"} {
		t.Run("precision"+prec, func(t *testing.T) {
			dir := t.TempDir()
			outs := map[string]string{}
			for _, ext := range []string{".uvh5", ".uvfits"} {
				out := filepath.Join(dir, "run"+ext)
				args := []string{"simulate", filepath.Join(ref, "obsparam.yaml"), "--eop", filepath.Join(ref, "eop.json"),
					"--precision", prec, "-o", out, "-q", "--backend", "cpu"}
				if ext == ".uvfits" {
					args = append(args, "--uvfits-drift") // the UVH5's numbers, unphased
				}
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", ext, code, stderr)
				}
				outs[ext] = stdout
			}
			if !strings.Contains(outs[".uvfits"], "UVFITS as pyuvsim writes it") {
				t.Errorf("simulate -o .uvfits says:\n%s", outs[".uvfits"])
			}
			u, err := uvh5.ReadFile(filepath.Join(dir, "run.uvh5"))
			if err != nil {
				t.Fatal(err)
			}
			f := readAstropy(t, py, filepath.Join(dir, "run.uvfits"))
			checkUVFITS(t, f, u, prec == "1")
		})
	}
}

func checkUVFITS(t *testing.T, f *astropyUVFITS, u *uvh5.File, single bool) {
	h := &u.Header
	nblts, nf, np := h.Nblts(), h.Nfreqs(), h.Npols()
	if !f.Groups || !f.IsGroups {
		t.Fatalf("not a random-groups file: GROUPS %v, GroupsHDU %v", f.Groups, f.IsGroups)
	}
	if want := []int{nblts, 1, 1, 1, nf, np, 3}; fmt.Sprint(f.Shape) != fmt.Sprint(want) {
		t.Fatalf("data shape %v, want %v", f.Shape, want)
	}
	hd := f.Header
	bitpix := -64.0
	if single {
		bitpix = -32
	}
	for k, want := range map[string]any{"SIMPLE": true, "GROUPS": true, "EXTEND": true, "BITPIX": bitpix, "NAXIS": 7.0, "NAXIS1": 0.0,
		"NAXIS2": 3.0, "NAXIS3": float64(np), "NAXIS4": float64(nf), "NAXIS5": 1.0, "NAXIS6": 1.0, "NAXIS7": 1.0,
		"GCOUNT": float64(nblts), "CTYPE2": "COMPLEX", "CTYPE3": "STOKES", "CTYPE4": "FREQ", "CTYPE5": "IF", "CTYPE6": "RA", "CTYPE7": "DEC",
		"OBJECT": "zenith", "TELESCOP": h.TelescopeName, "INSTRUME": h.Instrument, "BUNIT": h.VisUnits, "RADESYS": "icrs", "EPOCH": 2000.0,
		"BLTORDER": h.BltOrder, "PHASED": false} {
		if fmt.Sprint(hd[k]) != fmt.Sprint(want) {
			t.Errorf("header %s = %v, want %v", k, hd[k], want)
		}
	}
	for _, k := range []string{"PCOUNT", "CRVAL6", "CRVAL7", "LAT", "LON", "ALT", "DATE-OBS"} {
		if _, ok := hd[k]; !ok {
			t.Errorf("header %s missing", k)
		}
	}
	if math.Abs(num(t, hd, "LAT")-h.Latitude) > 1e-12 || math.Abs(num(t, hd, "LON")-h.Longitude) > 1e-12 || math.Abs(num(t, hd, "ALT")-h.Altitude) > 1e-9 {
		t.Errorf("LAT/LON/ALT %v %v %v, want %v %v %v", hd["LAT"], hd["LON"], hd["ALT"], h.Latitude, h.Longitude, h.Altitude)
	}
	// FREQ axis: every channel.
	for i, fr := range h.Freqs {
		got := num(t, hd, "CRVAL4") + (float64(i+1)-num(t, hd, "CRPIX4"))*num(t, hd, "CDELT4")
		if math.Abs(got-fr) > 1e-6*math.Abs(fr)*1e-3 {
			t.Errorf("channel %d: FREQ axis %v Hz, UVH5 %v", i, got, fr)
		}
	}
	// STOKES axis: the file's k-th polarization and its UVH5 index.
	polIdx := make([]int, np)
	for k := range np {
		code := int64(math.Round(num(t, hd, "CRVAL3") + (float64(k+1)-num(t, hd, "CRPIX3"))*num(t, hd, "CDELT3")))
		polIdx[k] = -1
		for j, p := range h.Pols {
			if p == code {
				polIdx[k] = j
			}
		}
		if polIdx[k] < 0 {
			t.Fatalf("STOKES axis entry %d = %d is not among the UVH5's %v", k, code, h.Pols)
		}
	}
	// Group parameters.
	names := map[string]bool{}
	for _, n := range f.Parnames {
		names[n] = true
	}
	for _, n := range []string{"UU", "VV", "WW", "DATE", "BASELINE", "SOURCE", "ANTENNA1", "ANTENNA2", "SUBARRAY", "INTTIM", "LST"} {
		if !names[n] {
			t.Errorf("group parameter %s missing (have %v)", n, f.Parnames)
		}
	}
	const c = 299792458.0
	uvwTol, dateTol := 1e-15, 1e-10 // s, days (float64 DATE relative to PZERO)
	if single {
		uvwTol, dateTol = 1e-13, 2e-9
	}
	for r := range nblts {
		a1, a2 := float64(h.Ant1[r]), float64(h.Ant2[r])
		if f.Par["ANTENNA1"][r] != a1 || f.Par["ANTENNA2"][r] != a2 || f.Par["BASELINE"][r] != 256*a1+a2 {
			t.Fatalf("row %d: ANTENNA1 %v ANTENNA2 %v BASELINE %v, want %v %v %v", r, f.Par["ANTENNA1"][r], f.Par["ANTENNA2"][r], f.Par["BASELINE"][r], a1, a2, 256*a1+a2)
		}
		if f.Par["SOURCE"][r] != 1 || f.Par["SUBARRAY"][r] != 1 {
			t.Fatalf("row %d: SOURCE %v SUBARRAY %v, want 1 1", r, f.Par["SOURCE"][r], f.Par["SUBARRAY"][r])
		}
		for k, n := range []string{"UU", "VV", "WW"} {
			if d := f.Par[n][r] + h.UVW[r][k]/c; math.Abs(d) > uvwTol {
				t.Fatalf("row %d: %s = %v s, want −uvw/c = %v (off %g)", r, n, f.Par[n][r], -h.UVW[r][k]/c, d)
			}
		}
		if d := f.Par["DATE"][r] - h.Times[r]; math.Abs(d) > dateTol {
			t.Fatalf("row %d: DATE %v, want %v (off %g d)", r, f.Par["DATE"][r], h.Times[r], d)
		}
		if d := f.Par["LST"][r] - h.LSTs[r]*180/math.Pi; math.Abs(d) > 1e-9 {
			t.Fatalf("row %d: LST %v deg, want %v", r, f.Par["LST"][r], h.LSTs[r]*180/math.Pi)
		}
		if math.Abs(f.Par["INTTIM"][r]-h.IntegrationTime[r]) > 1e-6*h.IntegrationTime[r] {
			t.Fatalf("row %d: INTTIM %v, want %v", r, f.Par["INTTIM"][r], h.IntegrationTime[r])
		}
	}
	// The visibilities, sample for sample: the file holds conj(V).
	peak, worst := 0.0, 0.0
	for r := range nblts {
		for fi := range nf {
			for k, j := range polIdx {
				v := u.Vis[(r*nf+fi)*np+j]
				o := ((r*nf+fi)*np + k) * 3
				re, im, wt := f.Data[o], f.Data[o+1], f.Data[o+2]
				worst = math.Max(worst, math.Hypot(re-real(v), im+imag(v)))
				peak = math.Max(peak, math.Hypot(real(v), imag(v)))
				if wt != 1 {
					t.Fatalf("row %d channel %d pol %d: weight %v, want 1 (nsamples 1, unflagged)", r, fi, k, wt)
				}
			}
		}
	}
	tol := 1e-12
	if single {
		tol = 1e-6
	}
	if peak == 0 || worst > tol*peak {
		t.Errorf("visibilities: UVFITS vs conj(UVH5) differ by %.3g (peak %.3g)", worst, peak)
	}
	t.Logf("%d rows × %d channels × %d pols: largest difference %.3g of peak %.3g", nblts, nf, np, worst, peak)
	checkAN(t, f, h)
	// SU: the one source, ID 1.
	if ids := column[[]float64](t, f.SU.Columns, "ID. NO."); len(ids) != 1 || ids[0] != 1 {
		t.Errorf("SU ID. NO. %v, want [1]", ids)
	}
	if src := column[[]string](t, f.SU.Columns, "SOURCE"); len(src) != 1 || strings.TrimSpace(src[0]) != "zenith" {
		t.Errorf("SU SOURCE %q, want zenith", src)
	}
	if ra := column[[]float64](t, f.SU.Columns, "RAEPO"); math.Abs(ra[0]-num(t, hd, "CRVAL6")) > 1e-12 {
		t.Errorf("SU RAEPO %v, CRVAL6 %v", ra, hd["CRVAL6"])
	}
	if !strings.Contains(strings.Join(f.History, "\n"), strings.SplitN(h.History, "\n", 2)[0][:min(20, len(h.History))]) {
		t.Errorf("history not carried: %q", f.History)
	}
}

// checkAN checks the AIPS AN table pyuvdata's reader needs.
func checkAN(t *testing.T, f *astropyUVFITS, h *uvh5.Header) {
	an := f.AN
	for _, k := range []string{"ARRAYX", "ARRAYY", "ARRAYZ", "GSTIA0", "DEGPDY", "FREQ", "RDATE", "POLARX", "POLARY", "UT1UTC", "DATUTC",
		"TIMESYS", "ARRNAM", "FRAME", "XYZHAND", "NO_IF", "EXTVER"} {
		if _, ok := an.Header[k]; !ok {
			t.Errorf("AN header %s missing", k)
		}
	}
	if an.Header["FRAME"] != "ITRF" || an.Header["TIMESYS"] != "UTC" || an.Header["ARRNAM"] != h.TelescopeName || an.Header["XYZHAND"] != "RIGHT" {
		t.Errorf("AN FRAME %v TIMESYS %v ARRNAM %v XYZHAND %v", an.Header["FRAME"], an.Header["TIMESYS"], an.Header["ARRNAM"], an.Header["XYZHAND"])
	}
	if r := math.Sqrt(sq(num(t, an.Header, "ARRAYX")) + sq(num(t, an.Header, "ARRAYY")) + sq(num(t, an.Header, "ARRAYZ"))); r < 6.35e6 || r > 6.39e6 {
		t.Errorf("ARRAYX/Y/Z at %v m from the geocentre", r)
	}
	if g := num(t, an.Header, "GSTIA0"); g < 0 || g >= 360 {
		t.Errorf("GSTIA0 %v deg", g)
	}
	names := column[[]string](t, an.Columns, "ANNAME")
	nosta := column[[]float64](t, an.Columns, "NOSTA")
	xyz := column[[][]float64](t, an.Columns, "STABXYZ")
	for _, k := range []string{"MNTSTA", "STAXOF", "POLTYA", "POLAA", "POLTYB", "POLAB"} {
		if _, ok := an.Columns[k]; !ok {
			t.Errorf("AN column %s missing", k)
		}
	}
	so, co := math.Sincos(h.Longitude * math.Pi / 180)
	for i := range h.AntennaNumbers {
		if strings.TrimRight(names[i], "\x00 ") != h.AntennaNames[i] || nosta[i] != float64(h.AntennaNumbers[i]) {
			t.Errorf("antenna %d: ANNAME %q NOSTA %v, want %q %d", i, names[i], nosta[i], h.AntennaNames[i], h.AntennaNumbers[i])
		}
		// rotECEF back to ECEF.
		x, y := co*xyz[i][0]-so*xyz[i][1], so*xyz[i][0]+co*xyz[i][1]
		p := h.AntennaPositions[i]
		if math.Abs(x-p[0])+math.Abs(y-p[1])+math.Abs(xyz[i][2]-p[2]) > 1e-9 {
			t.Errorf("antenna %d: STABXYZ %v is not rotECEF of %v", i, xyz[i], p)
		}
	}
}

func sq(x float64) float64 { return x * x }

// TestUVFITSPartialOnCancel: a UVFITS run cancelled after its first block
// leaves OUT.partial.uvfits, read by astropy, with the finished integrations
// weighted 1 and the rest flagged (weight ≤ 0, which pyuvdata reads as
// flagged), and no OUT.uvfits.
func TestUVFITSPartialOnCancel(t *testing.T) {
	py := needAstropy(t)
	out := filepath.Join(t.TempDir(), "x.uvfits")
	sim, obs, _ := cancelAfterFirstBlock(t, out)
	f := readAstropy(t, py, partialPath(out))
	nbl, np := len(obs.Baselines), len(obs.Pols)
	per := sim.NFreq() * np
	for row := range f.Shape[0] {
		ti := row / nbl
		for k := row * per; k < (row+1)*per; k++ {
			flagged := ti == 2 && (k-row*per)/np == 0 // time 2's first channel
			if wt := f.Data[3*k+2]; (wt <= 0) != flagged || (!flagged && wt != 1) {
				t.Fatalf("row %d (time %d): weight %v, want flagged=%v", row, ti, wt, flagged)
			}
		}
	}
}

// TestFilingUVFITS: an obsparam whose filing section asks for uvfits
// (pyuvsim's output_format: uvfits), run without -o (and with
// --uvfits-drift), writes OUTDIR/NAME.uvfits, which astropy reads as the
// same run's UVH5.
func TestFilingUVFITS(t *testing.T) {
	py := needAstropy(t)
	ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	dir := t.TempDir()
	for _, f := range []string{"telescope_config.yaml", "layout.csv", "sky.skyh5", "sky.txt", "sky_stokes.tsv"} {
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := os.ReadFile(filepath.Join(ref, "obsparam.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(obs), "  outdir: .\n  outfile_name: stokesI-gaussian.uvh5\n  output_format: uvh5\n",
		"  outdir: "+dir+"\n  outfile_name: run\n  output_format: uvfits\n", 1)
	if edited == string(obs) {
		t.Fatal("the reference's filing section changed: the test's edit no longer applies")
	}
	if err := os.WriteFile(filepath.Join(dir, "obsparam.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	eop := filepath.Join(ref, "eop.json")
	cfg := filepath.Join(dir, "obsparam.yaml")
	if code, _, stderr := runCLI(t, "simulate", cfg, "--eop", eop, "-q", "--backend", "cpu", "--uvfits-drift"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "simulate", cfg, "--eop", eop, "-o", filepath.Join(dir, "run-o.uvh5"), "-q", "--backend", "cpu"); code != 0 {
		t.Fatalf("-o run-o.uvh5: exit %d: %s", code, stderr)
	}
	u, err := uvh5.ReadFile(filepath.Join(dir, "run-o.uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	checkUVFITS(t, readAstropy(t, py, filepath.Join(dir, "run.uvfits")), u, false)
}
