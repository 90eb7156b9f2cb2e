package main

import (
	"encoding/json"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/npy"
	"github.com/gomatvis/gomatvis/uvh5"
)

// copyObsparam copies the pyuvsim reference configuration ref (obsparam,
// telescope config, layout, catalog) into a fresh directory, with the
// obsparam's filing section pointed there (pyuvsim's outdir is relative
// to the working directory), and returns the obsparam's path.
func copyObsparam(t *testing.T, ref string) string {
	t.Helper()
	src := filepath.Join(sharedtest.Dir(t), "reference", ref)
	dir := t.TempDir()
	for _, f := range []string{"obsparam.yaml", "telescope_config.yaml", "layout.csv", "sky.skyh5"} {
		b := mustRead(t, filepath.Join(src, f))
		if f == "obsparam.yaml" {
			b = []byte(strings.Replace(string(b), "outdir: .", "outdir: "+dir, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "obsparam.yaml")
}

// editFile replaces the first match of the regular expression re in path.
func editFile(t *testing.T, path, re, with string) {
	t.Helper()
	b := mustRead(t, path)
	loc := regexp.MustCompile(re).FindIndex(b)
	if loc == nil {
		t.Fatalf("%s: no %q to replace", path, re)
	}
	b = append(append(append([]byte(nil), b[:loc[0]]...), with...), b[loc[1]:]...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readMeta reads an npy output's OUT.meta.json.
func readMeta(t *testing.T, out string) outputMeta {
	t.Helper()
	var m outputMeta
	if err := json.Unmarshal(mustRead(t, metaPath(out)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// npyComplex reads an npy of visibilities as complex128.
func npyComplex(t *testing.T, p string) (*npy.Array, []complex128) {
	t.Helper()
	a, err := npy.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	v := a.AsComplex128()
	if v == nil {
		t.Fatalf("%s: dtype %v, want complex", p, a.DType)
	}
	return a, v
}

// TestObsparamNpyEqualsUVH5: an obsparam's -o X.npy used to fail with
// "the simulation was not made with Observation.UseConventions". Its npy
// now holds the numbers of the UVH5 of the same run (pyuvsim's
// conventions, said in the meta.json) in simulate's npy layout, exactly,
// for a Stokes-I and a full-Stokes sky, fp64 and fp32, both feeds and one.
func TestObsparamNpyEqualsUVH5(t *testing.T) {
	for _, c := range []struct {
		name, ref string
		pols      string // polarization_array replacement ("" keeps the file's)
		extra     []string
		polarized bool
		dtype     string
	}{
		{"stokesI gaussian", "pyuvsim-stokesI-gaussian", "", nil, true, "complex128"},
		{"stokesI gaussian fp32", "pyuvsim-stokesI-gaussian", "", []string{"--precision", "1"}, true, "complex64"},
		{"full-Stokes airy", "pyuvsim-fullstokes-airy", "", nil, true, "complex128"},
		{"yy only", "pyuvsim-stokesI-gaussian", "polarization_array:\n- -6\n", nil, false, "complex128"},
		{"xx and xy", "pyuvsim-stokesI-gaussian", "polarization_array:\n- -5\n- -7\n", []string{"--matprod", "pairs", "--min-chunks", "2"}, true, "complex128"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := copyObsparam(t, c.ref)
			if c.pols != "" {
				editFile(t, obs, `polarization_array:\n(- -\d\n)+`, c.pols)
			}
			dir := filepath.Dir(obs)
			outs := map[string]string{}
			for _, ext := range []string{".npy", ".uvh5"} {
				out := filepath.Join(dir, "run"+ext)
				args := append([]string{"simulate", obs, "-o", out, "-q", "--backend", "cpu"}, c.extra...)
				if code, _, e := runCLI(t, args...); code != 0 {
					t.Fatalf("%s: exit %d: %s", ext, code, e)
				}
				outs[ext] = out
			}
			f, err := uvh5.ReadFile(outs[".uvh5"])
			if err != nil {
				t.Fatal(err)
			}
			a, vis := npyComplex(t, outs[".npy"])
			m := readMeta(t, outs[".npy"])
			h := f.Header
			nf, nt, nbl, np := f.Counts.Nfreqs, f.Counts.Ntimes, f.Counts.Nbls, f.Counts.Npols
			wantShape := []int{nf, nt, nbl}
			if c.polarized {
				wantShape = append(wantShape, 2, 2)
			}
			if !equalInts(a.Shape, wantShape) || !equalInts(m.Shape, wantShape) {
				t.Fatalf("npy shape %v, meta %v; want %v", a.Shape, m.Shape, wantShape)
			}
			if m.Conventions != "pyuvsim" || !strings.Contains(m.Convention, "V(ant1, ant2)") || m.DType != c.dtype || m.Polarized != c.polarized {
				t.Errorf("meta: conventions %q (%q), dtype %s, polarized %v; want pyuvsim, %s, %v", m.Conventions, m.Convention, m.DType, m.Polarized, c.dtype, c.polarized)
			}
			if (c.dtype == "complex64") != h.SinglePrecision || (c.dtype == "complex64") != (a.DType == npy.Complex64) {
				t.Errorf("precision: npy %v, UVH5 single %v, want %s", a.DType, h.SinglePrecision, c.dtype)
			}
			if len(m.Pols) != np || len(m.AntPairs) != nbl {
				t.Fatalf("meta: %d pols, %d antpairs; the UVH5 has %d, %d", len(m.Pols), len(m.AntPairs), np, nbl)
			}
			// The antpairs are the UVH5's baselines, in its order, by index
			// into antenna_numbers.
			for k, p := range m.AntPairs {
				if a1, a2 := int64(m.AntNums[p[0]]), int64(m.AntNums[p[1]]); a1 != h.Ant1[k] || a2 != h.Ant2[k] {
					t.Fatalf("antpairs[%d] = %v: antennas (%d, %d), the UVH5's baseline %d is (%d, %d)", k, p, a1, a2, k, h.Ant1[k], h.Ant2[k])
				}
			}
			var peak, worst float64
			for ti := range nt {
				for k := range nbl {
					for fi := range nf {
						for pi := range np {
							if m.Pols[pi] != int(h.Pols[pi]) {
								t.Fatalf("polarization_array %v, the UVH5's %v", m.Pols, h.Pols)
							}
							idx := (fi*nt+ti)*nbl + k
							if c.polarized {
								p, q := m.PolIndex[pi][0], m.PolIndex[pi][1]
								if wp, wq := matvis.PolIndex(m.Pols[pi], true); p != wp || q != wq {
									t.Fatalf("pol_index[%d] = %v, want [%d %d]", pi, m.PolIndex[pi], wp, wq)
								}
								idx = idx*4 + p*2 + q
							}
							u := f.Vis[(ti*nbl+k)*nf*np+fi*np+pi]
							peak = math.Max(peak, cmplx.Abs(u))
							worst = math.Max(worst, cmplx.Abs(vis[idx]-u))
						}
					}
				}
			}
			if worst != 0 || peak == 0 {
				t.Errorf("npy vs UVH5: largest difference %g (peak %g); want the same numbers", worst, peak)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestObsparamRunFlags: --precision and the matvis options, which an
// obsparam run did not take, apply to it (and to a spec) as the spec's
// fields do: --precision 1 gives complex64 within 1e-5 of fp64's peak,
// for npy, UVH5 and a sharded npy; --min-chunks and --matprod reach the
// run; a bad value is a usage error.
func TestObsparamRunFlags(t *testing.T) {
	obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
	dir := filepath.Dir(obs)
	run := func(t *testing.T, out string, extra ...string) {
		t.Helper()
		args := append([]string{"simulate", obs, "-o", out, "-q", "--backend", "cpu"}, extra...)
		if code, _, e := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, e)
		}
	}
	ref := filepath.Join(dir, "fp64.npy")
	run(t, ref)
	_, want := npyComplex(t, ref)
	var peak float64
	for _, v := range want {
		peak = math.Max(peak, cmplx.Abs(v))
	}
	read := map[string]func(t *testing.T, p string) ([]complex128, bool){
		".npy": func(t *testing.T, p string) ([]complex128, bool) {
			a, v := npyComplex(t, p)
			return v, a.DType == npy.Complex64 && readMeta(t, p).Precision == 1
		},
		".uvh5": func(t *testing.T, p string) ([]complex128, bool) {
			f, err := uvh5.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Back to the npy layout (freq, time, baseline, 2, 2) with the
			// four polarizations at their feed indices.
			c := f.Counts
			v := make([]complex128, len(f.Vis))
			for ti := range c.Ntimes {
				for k := range c.Nbls {
					for fi := range c.Nfreqs {
						for pi, pol := range f.Header.Pols {
							p, q := matvis.PolIndex(int(pol), true)
							v[(((fi*c.Ntimes+ti)*c.Nbls+k)*2+p)*2+q] = f.Vis[((ti*c.Nbls+k)*c.Nfreqs+fi)*c.Npols+pi]
						}
					}
				}
			}
			return v, f.Header.SinglePrecision
		},
	}
	for _, c := range []struct {
		name, ext string
		shards    int
	}{
		{"npy", ".npy", 0},
		{"uvh5", ".uvh5", 0},
		{"sharded npy", ".npy", 2},
	} {
		t.Run("precision 1 "+c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "fp32"+c.ext)
			if c.shards == 0 {
				run(t, out, "--precision", "1")
			} else {
				parts := shardAll(t, t.TempDir(), obs, c.shards, "--precision", "1", "--format", strings.TrimPrefix(c.ext, "."))
				if code, _, e := runCLI(t, append([]string{"merge", "-o", out}, parts...)...); code != 0 {
					t.Fatalf("merge: %s", e)
				}
			}
			got, fp32 := read[c.ext](t, out)
			if !fp32 {
				t.Errorf("%s: not single precision", out)
			}
			if len(got) != len(want) {
				t.Fatalf("%d visibilities, fp64 has %d", len(got), len(want))
			}
			var worst float64
			for i := range got {
				worst = math.Max(worst, cmplx.Abs(got[i]-want[i]))
			}
			if worst > 1e-5*peak || worst == 0 {
				t.Errorf("fp32 vs fp64: %.3g of the peak (want ≤ 1e-5, and not 0: an fp64 run)", worst/peak)
			}
			t.Logf("fp32 vs fp64: %.3g of the peak", worst/peak)
		})
	}
	t.Run("options reach the run", func(t *testing.T) {
		for _, c := range []struct {
			args    []string
			chunks  int
			matprod string
		}{
			{[]string{"--min-chunks", "3"}, 3, "herk"},
			{[]string{"--matprod", "pairs", "--source-buffer", "0.5", "--memory-buffer", "0.8", "--max-memory", "4000000000"}, 1, "pairs"},
		} {
			out := filepath.Join(t.TempDir(), "o.npy")
			run(t, out, c.args...)
			m := readMeta(t, out)
			if m.Chunks != c.chunks || !strings.HasPrefix(m.MatProd, c.matprod) {
				t.Errorf("%v: %d chunks, matprod %q; want %d, %s", c.args, m.Chunks, m.MatProd, c.chunks, c.matprod)
			}
			_, got := npyComplex(t, out)
			for i := range got {
				if cmplx.Abs(got[i]-want[i]) > 1e-12*peak {
					t.Fatalf("%v: visibility %d differs from the default run's by %g", c.args, i, cmplx.Abs(got[i]-want[i]))
				}
			}
		}
	})
	t.Run("bad values", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--precision", "3"}, "--precision 3"},
			{[]string{"--precision", "0"}, "--precision 0"},
			{[]string{"--matprod", "gemm"}, "--matprod"},
			{[]string{"--min-chunks", "0"}, "--min-chunks"},
			{[]string{"--source-buffer", "1.5"}, "--source-buffer"},
			{[]string{"--memory-buffer", "0"}, "--memory-buffer"},
			{[]string{"--max-memory", "-1"}, "--max-memory"},
		} {
			for _, in := range []string{obs, "example"} {
				out := filepath.Join(t.TempDir(), "x.npy")
				code, _, e := runCLI(t, append([]string{"simulate", in, "-o", out, "-q", "--backend", "cpu"}, c.args...)...)
				if code != 2 || !strings.Contains(e, c.want) {
					t.Errorf("%s %v: exit %d, stderr %q; want 2 naming %q", filepath.Base(in), c.args, code, e, c.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s %v: a refused run wrote %s", in, c.args, out)
				}
			}
		}
	})
}

// TestObsparamOutputIsNotAnInput: neither -o nor the filing section's
// outfile_name with clobber: true may replace an input of an obsparam
// run (the obsparam, the layout, the catalog, a beam file), however
// named; the refusal names the output and the input, and every file of
// the run's directory is unchanged afterwards.
func TestObsparamOutputIsNotAnInput(t *testing.T) {
	link := func(t *testing.T, dir, from, to string) string {
		t.Helper()
		p := filepath.Join(dir, to)
		if err := os.Link(filepath.Join(dir, from), p); err != nil {
			t.Skip(err)
		}
		return p
	}
	// catalogAs renames the catalog to name (read as skyh5).
	catalogAs := func(t *testing.T, obs, name string) {
		dir := filepath.Dir(obs)
		if err := os.Rename(filepath.Join(dir, "sky.skyh5"), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		editFile(t, obs, `catalog: sky.skyh5`, "catalog: "+name+"\n  filetype: skyh5")
	}
	// beamAs makes beam 0 the beamfits file name (file_type: beamfits).
	beamAs := func(t *testing.T, obs, name string) {
		dir := filepath.Dir(obs)
		b := mustRead(t, sharedtest.HERABeam(t))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		editFile(t, filepath.Join(dir, "telescope_config.yaml"), `(?s)  0:\n    type: gaussian\n    diameter: 8.0\n`, "  0:\n    filename: "+name+"\n    file_type: beamfits\n")
	}
	// filing sets outfile_name (and clobber: true).
	filing := func(t *testing.T, obs, name string) {
		editFile(t, obs, `outfile_name: .*`, "outfile_name: "+name)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, obs string) []string // the output arguments
		wants []string
	}{
		{"-o the obsparam", func(t *testing.T, obs string) []string {
			return []string{"-o", obs}
		}, []string{"is the input obsparam", "choose another -o"}},
		{"-o a link to the obsparam", func(t *testing.T, obs string) []string {
			return []string{"-o", link(t, filepath.Dir(obs), "obsparam.yaml", "run.npy")}
		}, []string{"run.npy is the input obsparam"}},
		{"-o the layout's other name", func(t *testing.T, obs string) []string {
			return []string{"-o", link(t, filepath.Dir(obs), "layout.csv", "run.uvh5")}
		}, []string{"run.uvh5 is the input array layout"}},
		{"-o the catalog", func(t *testing.T, obs string) []string {
			catalogAs(t, obs, "sky.uvh5")
			return []string{"-o", filepath.Join(filepath.Dir(obs), "sky.uvh5")}
		}, []string{"sky.uvh5 is the input catalog (sources.catalog)"}},
		{"-o the catalog as the meta sidecar", func(t *testing.T, obs string) []string {
			catalogAs(t, obs, "v.meta.json")
			return []string{"-o", filepath.Join(filepath.Dir(obs), "v.npy")}
		}, []string{"v.meta.json is the input catalog"}},
		{"-o a beam file", func(t *testing.T, obs string) []string {
			beamAs(t, obs, "beam.npy")
			return []string{"-o", filepath.Join(filepath.Dir(obs), "beam.npy")}
		}, []string{"beam.npy is the input beam file (beam_paths[0])"}},
		{"--shard -o the catalog", func(t *testing.T, obs string) []string {
			catalogAs(t, obs, "sky.gmvpart")
			return []string{"--shard", "0/2", "-o", filepath.Join(filepath.Dir(obs), "sky.gmvpart")}
		}, []string{"sky.gmvpart is the input catalog"}},
		{"outfile_name a link to the obsparam", func(t *testing.T, obs string) []string {
			link(t, filepath.Dir(obs), "obsparam.yaml", "run.uvh5")
			filing(t, obs, "run.uvh5")
			return nil
		}, []string{"run.uvh5 is the input obsparam", "filing.outfile_name"}},
		{"outfile_name the catalog", func(t *testing.T, obs string) []string {
			catalogAs(t, obs, "sky.uvh5")
			filing(t, obs, "sky.uvh5")
			return nil
		}, []string{"sky.uvh5 is the input catalog (sources.catalog)", "filing.outfile_name"}},
		{"outfile_name a beam file", func(t *testing.T, obs string) []string {
			beamAs(t, obs, "beam.uvh5")
			filing(t, obs, "beam.uvh5")
			return nil
		}, []string{"beam.uvh5 is the input beam file", "filing.outfile_name"}},
		{"outfile_name npy, the catalog", func(t *testing.T, obs string) []string {
			catalogAs(t, obs, "sky.npy")
			filing(t, obs, "sky.npy")
			editFile(t, obs, `output_format: uvh5`, "output_format: npy")
			return nil
		}, []string{"sky.npy is the input catalog", "filing.outfile_name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
			if !strings.Contains(string(mustRead(t, obs)), "clobber: true") {
				t.Fatal("the reference obsparam no longer has clobber: true")
			}
			dir := filepath.Dir(obs)
			outArgs := tc.setup(t, obs)
			before := map[string]string{}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				before[e.Name()] = fileState(t, filepath.Join(dir, e.Name()))
			}
			code, stdout, stderr := runCLI(t, append([]string{"simulate", obs, "-q", "--backend", "cpu"}, outArgs...)...)
			if code == 0 {
				t.Fatalf("exit 0 (stdout %q); want a refusal", stdout)
			}
			for _, w := range tc.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for n, st := range before {
				if got := fileState(t, filepath.Join(dir, n)); got != st {
					t.Errorf("%s changed", n)
				}
			}
			if ents2, _ := os.ReadDir(dir); len(ents2) != len(ents) {
				t.Errorf("%d files in the run's directory after, %d before", len(ents2), len(ents))
			}
		})
	}
}
