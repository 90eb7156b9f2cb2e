package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/casatable"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/ms"
	"github.com/gomatvis/gomatvis/uvh5"
)

// msTables are the tables of an MS: the main table ("") and its subtables.
var msTables = []string{"", "ANTENNA", "DATA_DESCRIPTION", "FEED", "FIELD", "FLAG_CMD", "HISTORY", "OBSERVATION",
	"POINTING", "POLARIZATION", "PROCESSOR", "SOURCE", "SPECTRAL_WINDOW", "STATE"}

// exampleEOP is the Earth orientation the example run used at each of
// its times, for ms.Phasing.
func exampleEOP(t *testing.T) (*matvis.Simulation, *matvis.Observation, func(float64) (astro.EOP, error)) {
	t.Helper()
	sim, obs, err := (&simInput{path: "example", spec: mustSpec(t)}).build(context.Background(), buildOptions{uvh5: true})
	if err != nil {
		t.Fatal(err)
	}
	return sim, obs, func(jd float64) (astro.EOP, error) {
		i := slices.Index(sim.Times, jd)
		if i < 0 || obs.EOP == nil {
			return astro.EOP{}, fmt.Errorf("JD %v is not a time of the example", jd)
		}
		return obs.EOP[i], nil
	}
}

// wholeMS writes, with package ms alone, the MS of a whole UVH5 result.
func wholeMS(t *testing.T, uvh5Path, out string, centre *phase.Centre, eop func(float64) (astro.EOP, error)) {
	t.Helper()
	f, err := uvh5.ReadFile(uvh5Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ms.WriteUVH5(out, f, ms.Phasing{Centre: centre, EOP: eop}); err != nil {
		t.Fatal(err)
	}
}

// sameMS fails unless two MSs hold the same bytes in every table, but for
// HISTORY's TIME (when each was written), whose other columns must read
// back equal.
func sameMS(t *testing.T, got, want string) {
	t.Helper()
	for _, tab := range msTables {
		for _, f := range []string{"table.dat", "table.f0", "table.info"} {
			if tab == "HISTORY" && f == "table.f0" {
				continue
			}
			a, b := mustRead(t, filepath.Join(got, tab, f)), mustRead(t, filepath.Join(want, tab, f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s/%s differs from the whole result's (%d and %d bytes)", filepath.Join(filepath.Base(got), tab), f, len(a), len(b))
			}
		}
	}
	a, b := readTable(t, filepath.Join(got, "HISTORY")), readTable(t, filepath.Join(want, "HISTORY"))
	for i, c := range a.Desc.Columns {
		if c.Name != "TIME" && fmt.Sprint(a.Values[i]) != fmt.Sprint(b.Values[i]) {
			t.Errorf("HISTORY.%s: %v, the whole result's %v", c.Name, a.Values[i], b.Values[i])
		}
	}
}

func readTable(t *testing.T, dir string) *casatable.Table {
	t.Helper()
	tab, err := casatable.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// col is a table's column by name.
func col[T any](t *testing.T, tab *casatable.Table, name string) T {
	t.Helper()
	for i, c := range tab.Desc.Columns {
		if c.Name == name {
			v, ok := tab.Values[i].(T)
			if !ok {
				t.Fatalf("column %s holds %T", name, tab.Values[i])
			}
			return v
		}
	}
	t.Fatalf("no column %s", name)
	var zero T
	return zero
}

// TestMSEqualsWholeResult: simulate -o run.ms (streamed, a time at a time
// as the run finishes them) holds the bytes that package ms writes from
// the whole result (the same run's UVH5 through ms.WriteUVH5), phased to
// the first time's zenith by default and to --phase-center when given;
// and so does a run streamed in blocks of two channels, which hands the
// writer every time in pieces.
func TestMSEqualsWholeResult(t *testing.T) {
	sim, obs, eop := exampleEOP(t)
	dir := t.TempDir()
	uv := filepath.Join(dir, "run.uvh5")
	if code, _, stderr := runCLI(t, "simulate", "example", "-o", uv, "-q", "--backend", "cpu"); code != 0 {
		t.Fatalf("uvh5 run: exit %d: %s", code, stderr)
	}
	centre, err := parseCentre("207.45,-33.72")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		centre *phase.Centre
	}{
		{"zenith", nil, nil},
		{"phase-center", []string{"--phase-center", "207.45,-33.72"}, &centre},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			want := filepath.Join(d, "whole.ms")
			wholeMS(t, uv, want, tc.centre, eop)
			got := filepath.Join(d, "run.ms")
			args := append([]string{"simulate", "example", "-o", got, "-q", "--backend", "cpu"}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "Measurement Set") {
				t.Errorf("stdout does not say what was written:\n%s", stdout)
			}
			sameMS(t, got, want)
			field := readTable(t, filepath.Join(got, "FIELD"))
			dirs := col[[]float64](t, field, "PHASE_DIR")
			if tc.centre != nil && (dirs[0] != centre.RA || dirs[1] != centre.Dec) {
				t.Errorf("FIELD PHASE_DIR %v, want the --phase-center's %v, %v rad", dirs, centre.RA, centre.Dec)
			}
		})
	}
	t.Run("channel blocks", func(t *testing.T) {
		d := t.TempDir()
		want := filepath.Join(d, "whole.ms")
		wholeMS(t, uv, want, nil, eop)
		got := filepath.Join(d, "run.ms")
		w, err := openOutput(got, sim, obs, phasing{}, &strings.Builder{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := output.Run(context.Background(), cpu.New(), sim, w, output.Options{BlockBytes: 2 * output.IntegrationBytes(sim)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Largest.NTime() != 1 || sum.Largest.NFreq() != 2 {
			t.Fatalf("blocks of up to %d times × %d channels; the test wants channel pieces of times", sum.Largest.NTime(), sum.Largest.NFreq())
		}
		sameMS(t, got, want)
	})
	t.Run("blocks out of order", func(t *testing.T) {
		// A writer may be handed later times first (Writer.WriteBlock takes
		// blocks in any order); the MS is written time after time.
		d := t.TempDir()
		want := filepath.Join(d, "whole.ms")
		wholeMS(t, uv, want, nil, eop)
		got := filepath.Join(d, "run.ms")
		w, err := openOutput(got, sim, obs, phasing{}, &strings.Builder{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []matvis.Block{{F0: 0, F1: sim.NFreq(), T0: 3, T1: sim.NTime()}, {F0: 0, F1: sim.NFreq(), T0: 0, T1: 3}} {
			sub, err := sim.Subset(b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cpu.New().Run(context.Background(), sub)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteBlock(b, res); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		sameMS(t, got, want)
	})
}

// TestMSPartialOnCancel: a run cancelled with time 2's first channel
// unfinished keeps OUT.partial.ms with every time, that channel flagged
// (FLAG set for it alone, WEIGHT of its rows still the median of the
// others' samples) and everything else the complete run's values; a
// second cancelled run replaces it, and a complete run removes it.
func TestMSPartialOnCancel(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.ms")
	sim, obs, kept := cancelAfterFirstBlock(t, out)
	want := fmt.Sprintf("5 of 6 times finished (%d of %d integrations), saved to %s (the others flagged)", 6*sim.NFreq()-1, 6*sim.NFreq(), partialPath(out))
	if kept != want {
		t.Errorf("kept: %q, want %q", kept, want)
	}
	part := readTable(t, partialPath(out))
	nbl, nf, np := len(obs.Baselines), sim.NFreq(), len(obs.Pols)
	if part.Rows != 6*nbl {
		t.Fatalf("%d rows, want every time's %d", part.Rows, 6*nbl)
	}
	flags, flagRow := col[[]bool](t, part, "FLAG"), col[[]bool](t, part, "FLAG_ROW")
	for r := range part.Rows {
		if flagRow[r] {
			t.Fatalf("row %d: FLAG_ROW set; only one channel of its time is missing", r)
		}
		for c := range nf {
			for p := range np {
				if got, wantF := flags[(r*nf+c)*np+p], r/nbl == 2 && c == 0; got != wantF {
					t.Fatalf("row %d (time %d) channel %d: FLAG %v, want %v", r, r/nbl, c, got, wantF)
				}
			}
		}
	}
	full := filepath.Join(dir, "full.ms")
	if code, _, stderr := runCLI(t, "simulate", "example", "-o", full, "-q", "--backend", "cpu"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	whole := readTable(t, full)
	a, b := col[[]complex64](t, part, "DATA"), col[[]complex64](t, whole, "DATA")
	for i := range a {
		if !flags[i] && a[i] != b[i] {
			t.Fatalf("DATA[%d] = %v, the complete run's %v", i, a[i], b[i])
		}
	}
	cancelAfterFirstBlock(t, out) // over the existing partial
	if readTable(t, partialPath(out)).Rows != part.Rows {
		t.Error("the second partial MS is not whole")
	}
	code, _, stderr := runCLI(t, "simulate", "example", "-o", out, "-q", "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(partialPath(out)); err == nil || !strings.Contains(stderr, "removed "+partialPath(out)) {
		t.Errorf("the complete run left the stale partial MS (stderr %q)", stderr)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestMSRefusals: bad phasing flags, an existing MS and an MS whose
// StManAipsIO columns (all but DATA and FLAG) pass the 4 GiB its file
// holds are refused before any compute, saying what to do.
func TestMSRefusals(t *testing.T) {
	dir := t.TempDir()
	big := writeSpec(t, dir, func(m map[string]any) {
		// 64 antennas × 1 channel × 20 000 times: 41.6 million rows of
		// about 108 bytes outside DATA and FLAG, 4.5 GB. (DATA and FLAG
		// are tiled, without that limit.)
		var ants [][3]float64
		for i := range 64 {
			ants = append(ants, [3]float64{float64(i%8) * 15, float64(i/8) * 15, 0})
		}
		var freqs, times []float64
		freqs = append(freqs, 100e6)
		for i := range 20000 {
			times = append(times, 2459845.25+float64(i)/86400)
		}
		m["antennas_enu_m"], m["freqs_hz"], m["times_jd"] = ants, freqs, times
		m["sources"] = map[string]any{"ra_rad": []float64{1}, "dec_rad": []float64{-0.5}, "flux_jy": [][]float64{{1}}}
		delete(m, "eop")
	}, "")
	existing := filepath.Join(dir, "old.ms")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"one number", []string{"example", "-o", filepath.Join(dir, "a.ms"), "--phase-center", "10"}, []string{"--phase-center 10", "RA_DEG,DEC_DEG"}},
		{"not numbers", []string{"example", "-o", filepath.Join(dir, "a.ms"), "--phase-center", "ten,20"}, []string{"RA_DEG,DEC_DEG"}},
		{"RA 360", []string{"example", "-o", filepath.Join(dir, "a.ms"), "--phase-center", "360,0"}, []string{"right ascension 360", "0 <= RA < 360"}},
		{"RA NaN", []string{"example", "-o", filepath.Join(dir, "a.ms"), "--phase-center", "NaN,0"}, []string{"right ascension NaN"}},
		{"Dec -91", []string{"example", "-o", filepath.Join(dir, "a.uvfits"), "--phase-center", "10,-91"}, []string{"declination -91", "-90 <= Dec <= 90"}},
		{"centre for uvh5", []string{"example", "-o", filepath.Join(dir, "a.uvh5"), "--phase-center", "10,20"}, []string{"--phase-center is for -o OUT.ms or OUT.uvfits"}},
		{"drift for ms", []string{"example", "-o", filepath.Join(dir, "a.ms"), "--uvfits-drift"}, []string{"--uvfits-drift is for -o OUT.uvfits"}},
		{"drift and centre", []string{"example", "-o", filepath.Join(dir, "a.uvfits"), "--uvfits-drift", "--phase-center", "1,2"}, []string{"give one of the two"}},
		{"centre for a shard", []string{"example", "--shard", "1/2", "-o", filepath.Join(dir, "a.gmvpart"), "--phase-center", "1,2"}, []string{"--phase-center is for -o OUT.ms or OUT.uvfits"}},
		{"existing", []string{"example", "-o", existing}, []string{existing, "exists", "remove it or choose another -o"}},
		{"over 4 GiB", []string{big, "-o", filepath.Join(dir, "big.ms")}, []string{"over the 4 GiB", "20000 times × 2080 baselines × 1 channels × 1 polarizations", "-o OUT.uvh5", "several runs of fewer times"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"simulate", "-q", "--backend", "cpu"}, tc.args...)...)
			if code == 0 {
				t.Fatalf("accepted; stdout %s", stdout)
			}
			for _, w := range tc.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "sources,") || strings.Contains(stdout, "sources,") {
				t.Errorf("refused after computing:\n%s%s", stdout, stderr)
			}
		})
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != "spec.json" && n != "old.ms" {
			t.Errorf("a refused run left %s", n)
		}
	}
}

// TestFilingMS: an obsparam whose filing section asks for output_format:
// ms writes OUTDIR/NAME.ms, phased to the first time's zenith as
// pyuvdata's write_ms(force_phase=True) names and places it
// (PHASING.md: zenith_at_jd2459845.000000, ICRS 3.533399411514538,
// -0.534177159073103 rad).
func TestFilingMS(t *testing.T) {
	obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
	editFile(t, obs, `outfile_name: .*\n  output_format: uvh5`, "outfile_name: run\n  output_format: ms")
	code, _, stderr := runCLI(t, "simulate", obs, "-q", "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := filepath.Join(filepath.Dir(obs), "run.ms")
	main := readTable(t, out)
	if main.Rows != 84 {
		t.Errorf("%d rows, pyuvdata's MS of this config has 84", main.Rows)
	}
	field := readTable(t, filepath.Join(out, "FIELD"))
	if name := col[[]string](t, field, "NAME"); len(name) != 1 || name[0] != "zenith_at_jd2459845.000000" {
		t.Errorf("FIELD NAME %q", name)
	}
	dirs := col[[]float64](t, field, "PHASE_DIR")
	if math.Abs(dirs[0]-3.533399411514538) > 1e-12 || math.Abs(dirs[1]+0.534177159073103) > 1e-12 {
		t.Errorf("FIELD PHASE_DIR %v, pyuvdata's (3.533399411514538, -0.534177159073103)", dirs)
	}
}
