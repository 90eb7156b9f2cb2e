package obsparam

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSelectAndAntPairs(t *testing.T) {
	// testLayout: antennas 0 (0,0,0), 1 (14.6,0,0.5), 2 (0,14.6,-0.5).
	cases := []struct {
		name, extra string
		want        [][2]int
	}{
		{"all, ant2<ant1", "", [][2]int{{0, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}}},
		{"ant1<ant2", "ordering:\n  conjugation_convention: ant1<ant2\n", [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}},
		{"antenna_nums", "select:\n  antenna_nums: [0, '2']\n", [][2]int{{0, 0}, {2, 0}, {2, 2}}},
		{"antenna_names", "select:\n  antenna_names: [A1, A2]\n", [][2]int{{1, 1}, {2, 1}, {2, 2}}},
		{"cross", "select:\n  ant_str: cross\n", [][2]int{{1, 0}, {2, 0}, {2, 1}}},
		{"auto", "select:\n  ant_str: auto\n", [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{"no_autos", "select:\n  no_autos: true\n", [][2]int{{1, 0}, {2, 0}, {2, 1}}},
		{"ant_str pairs", "select:\n  ant_str: 0_1, 2_1\n", [][2]int{{1, 0}, {2, 1}}},
		{"bls string", "select:\n  bls: '[(0, 1), (2, 2)]'\n", [][2]int{{1, 0}, {2, 2}}},
		{"bls list + nums", "select:\n  bls: [[0, 1], [1, 2]]\n  antenna_nums: [0, 1]\n", [][2]int{{1, 0}}},
		{"u<0", "ordering:\n  conjugation_convention: u<0\n", [][2]int{{0, 0}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 2}}},
		{"v>0", "ordering:\n  conjugation_convention: v>0\n", [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := obsWith("", "", tc.extra)
			if strings.Contains(tc.extra, "ordering:") {
				obs = strings.Replace(testFreq+testTime+testRest, "ordering:\n  conjugation_convention: ant2<ant1\n", tc.extra, 1)
			}
			c := mustRead(t, files{obs: obs})
			if got := c.AntPairs(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("AntPairs %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAntPairIndices(t *testing.T) {
	c := mustRead(t, files{layout: "Name Number BeamID E N U\nB 10 0 0 0 0\nA 3 1 1 0 0\nC 7 0 2 0 0\n",
		obs: obsWith("", "", "select:\n  ant_str: cross\n")})
	// ant2<ant1, sorted: (7, 3), (10, 3), (10, 7); indices: 10->0, 3->1, 7->2.
	if got, want := c.AntPairs(), [][2]int{{7, 3}, {10, 3}, {10, 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("AntPairs %v, want %v", got, want)
	}
	if got, want := c.AntPairIndices(), [][]int{{2, 1}, {0, 1}, {0, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("AntPairIndices %v, want %v", got, want)
	}
}

func TestUVConventionsByHand(t *testing.T) {
	// uvw = ENU(ant2) - ENU(ant1). For (0, 1): u = 14.6 > 0, so u<0 swaps it.
	// For (0, 2): u = 0, v = 14.6 > 0: u<0 swaps (v decides), v<0 swaps.
	// For (1, 2): u = -14.6, v = 14.6: u<0 keeps, u>0 swaps, v<0 swaps, v>0 keeps.
	c := mustRead(t, files{})
	want := map[string]map[[2]int]bool{
		"u<0": {{0, 1}: true, {0, 2}: true, {1, 2}: false},
		"u>0": {{0, 1}: false, {0, 2}: false, {1, 2}: true},
		"v<0": {{0, 1}: true, {0, 2}: true, {1, 2}: true},
		"v>0": {{0, 1}: false, {0, 2}: false, {1, 2}: false},
	}
	for conv, m := range want {
		c.Ordering.ConjugationConvention = conv
		for p, swap := range m {
			if got := c.orient(p) != p; got != swap {
				t.Errorf("%s %v: swapped %v, want %v", conv, p, got, swap)
			}
		}
	}
}

func TestOrdering(t *testing.T) {
	cases := []struct {
		blt, order, minor string
	}{
		{"[time, baseline]", "time", "baseline"},
		{"time", "time", "baseline"},
		{"baseline", "baseline", "time"},
		{"[ant1]", "ant1", "ant2"},
		{"[ant2, time]", "ant2", "time"},
		{"bda", "bda", ""},
		{"[time, time]", "time", "baseline"},
	}
	for _, tc := range cases {
		obs := strings.Replace(testFreq+testTime+testRest, "  conjugation_convention: ant2<ant1\n", "  conjugation_convention: v<0\n  blt_order: "+tc.blt+"\n", 1)
		c := mustRead(t, files{obs: obs})
		o := c.Ordering
		if o.BLTOrder != tc.order || o.BLTMinorOrder != tc.minor || o.ConjugationConvention != "v<0" || !o.ConjugationGiven {
			t.Errorf("blt_order %s: got %+v, want %s %s", tc.blt, o, tc.order, tc.minor)
		}
	}
}

func TestPols(t *testing.T) {
	cases := []struct {
		pols      string
		want      []int
		polarized bool
		feed      string
	}{
		{"[-5]", []int{-5}, false, "x"},
		{"[yy]", []int{-6}, false, "y"},
		{"[XX, yy]", []int{-5, -6}, true, ""},
		{"[-7]", []int{-7}, true, ""},
		{"[xx, xy]", []int{-5, -7}, true, ""},
		{"['xx', 'yy', 'xy', 'yx']", []int{-5, -6, -7, -8}, true, ""},
		{"[-8, -7, -6, -5]", []int{-8, -7, -6, -5}, true, ""},
		{"[hh]", []int{-5}, false, "x"},
	}
	for _, tc := range cases {
		c := mustRead(t, files{obs: obsWith("", "", "polarization_array: "+tc.pols+"\n")})
		if !reflect.DeepEqual(c.Pols, tc.want) || c.Polarized() != tc.polarized || c.Feed() != tc.feed {
			t.Errorf("%s: pols %v polarized %v feed %q; want %v %v %q", tc.pols, c.Pols, c.Polarized(), c.Feed(), tc.want, tc.polarized, tc.feed)
		}
	}
}

// TestPolsNeedBeamFeeds follows pyuvsim: the polarizations must be made
// of the beams' feeds.
func TestPolsNeedBeamFeeds(t *testing.T) {
	tel := "beam_paths:\n  0: !AnalyticBeam\n    class: UniformBeam\n    feed_array: [x]\n" + site
	c := mustRead(t, files{tel: tel, layout: oneBeamLayout, obs: obsWith("", "", "polarization_array: [xx]\n")})
	if !reflect.DeepEqual(c.Pols, []int{-5}) || c.Feed() != "x" {
		t.Errorf("pols %v feed %q", c.Pols, c.Feed())
	}
	_, err := readCase(t, files{tel: tel, layout: oneBeamLayout, obs: obsWith("", "", "polarization_array: [xx, yy]\n")})
	wantErr(t, err, "polarization_array", "require feed y", "[x]")
}

func TestFiling(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		filing, want, format string
		warn                 string
	}{
		{"", "_results.uvh5", "uvh5", "no output format"},
		{"filing:\n  outfile_prefix: sim\n  output_format: uvh5\n", "sim_results.uvh5", "uvh5", ""},
		{"filing:\n  outfile_prefix: sim\n  outfile_suffix: run2\n  output_format: npy\n", "sim_run2.npy", "npy", ""},
		{"filing:\n  outfile_name: ''\n  outfile_suffix: x\n  output_format: uvh5\n", "_x.uvh5", "uvh5", ""},
		{"filing:\n  outdir: " + dir + "\n  outfile_name: out.uvh5\n", filepath.Join(dir, "out.uvh5"), "uvh5", ""},
		{"filing:\n  outdir: sub/dir\n  outfile_name: out.npy\n", "sub/dir/out.npy", "npy", ""},
		{"filing:\n  outfile_name: name\n  output_format: uvh5\n  clobber: yes\n", "name.uvh5", "uvh5", ""},
		{"filing:\n  outfile_prefix: sim\n  output_format: uvfits\n", "sim_results.uvfits", "uvfits", ""},
		{"filing:\n  outfile_name: out.uvfits\n", "out.uvfits", "uvfits", ""},
		{"filing:\n  outfile_prefix: sim\n  output_format: ms\n", "sim_results.ms", "ms", ""},
		{"filing:\n  outfile_name: out.ms\n", "out.ms", "ms", ""},
		// An absolute name is the path, outdir aside (Python's
		// os.path.join in pyuvsim's write_uvdata): it lost its '/'.
		{"filing:\n  outdir: sub\n  outfile_name: " + dir + "/abs.uvh5\n", filepath.Join(dir, "abs.uvh5"), "uvh5", ""},
		{"filing:\n  outfile_name: " + dir + "//x/../abs2\n  output_format: npy\n", filepath.Join(dir, "abs2.npy"), "npy", ""},
	}
	for _, tc := range cases {
		c := mustRead(t, files{obs: obsWith("", "", tc.filing)})
		if got := c.OutputPath(); got != tc.want || c.Filing.Format != tc.format {
			t.Errorf("%q: OutputPath %q format %q, want %q %q", tc.filing, got, c.Filing.Format, tc.want, tc.format)
		}
		if tc.warn != "" && !hasWarning(c, tc.warn) {
			t.Errorf("%q: no warning %q in %q", tc.filing, tc.warn, c.Warnings)
		}
	}
}

// TestOutputPathNoClobber follows pyuvsim's check_file_exists_and_increment.
func TestOutputPathNoClobber(t *testing.T) {
	dir := t.TempDir()
	c := &Config{Filing: Filing{OutDir: dir, OutfileName: "run_7.uvh5", Format: "uvh5"}}
	p := filepath.Join(dir, "run_7.uvh5")
	if got := c.OutputPath(); got != p {
		t.Fatalf("free name: %q, want %q", got, p)
	}
	for _, name := range []string{"run_7.uvh5", "run_0.uvh5"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := c.OutputPath(), filepath.Join(dir, "run_1.uvh5"); got != want {
		t.Errorf("taken: %q, want %q (trailing _7 dropped, _0 taken)", got, want)
	}
	c.Filing.Clobber = true
	if got := c.OutputPath(); got != p {
		t.Errorf("clobber: %q, want %q", got, p)
	}
}

func TestSources(t *testing.T) {
	c := mustRead(t, files{obs: strings.Replace(obsWith("", "", ""), "  catalog: sky.txt\n",
		"  catalog: sky.txt\n  filetype: text\n  spectral_type: flat\n  min_flux: 0.2\n  max_flux: 1.5\n  non_negative: true\n  non_nan: any\n"+
			"  table_name: single\n  flux_columns: [S1, S2]\n  horizon_buffer: 0.04\n  freq_interp_kind: linear\n  colour: red\n", 1)})
	s := c.Sources
	if filepath.Base(s.Catalog) != "sky.txt" || !filepath.IsAbs(s.Catalog) || s.Filetype != "text" || s.SpectralType != "flat" ||
		*s.MinFlux != 0.2 || *s.MaxFlux != 1.5 || !s.NonNegative || s.NonNaN != "any" {
		t.Errorf("%+v", s)
	}
	if !reflect.DeepEqual(s.ReadOptions, map[string]any{"table_name": "single", "flux_columns": []any{"S1", "S2"}}) {
		t.Errorf("read options %#v", s.ReadOptions)
	}
	for _, w := range []string{"sources.horizon_buffer", "sources.freq_interp_kind", "sources.colour"} {
		if !hasWarning(c, w, "ignored") {
			t.Errorf("no warning for %s in %q", w, c.Warnings)
		}
	}
}

func TestObsparamWarnings(t *testing.T) {
	c := mustRead(t, files{obs: obsWith("", "", "cat_name: zenith\nbanana: 1\nselect:\n  polarizations: [-5]\n  foo: 1\n") +
		"telescope_extra: 1\n"})
	for _, w := range []string{"cat_name", "banana", "select.polarizations", "select.foo", "telescope_extra"} {
		if !hasWarning(c, w) {
			t.Errorf("no warning naming %s in %q", w, c.Warnings)
		}
	}
	if !hasWarning(c, "obsparam.yaml:17", "banana", "unknown top-level key") {
		t.Errorf("warning lacks file:line: %q", c.Warnings)
	}
}

func TestObsparamErrors(t *testing.T) {
	base := obsWith("", "", "")
	cases := []struct {
		name, obs string
		frags     []string
	}{
		{"truncated", base[:len(base)-40], []string{"obsparam.yaml:14", "malformed YAML", "could not find expected ':'"}},
		{"malformed", "freq: [1, 2\n", []string{"malformed YAML", "line"}},
		{"tab indent", "freq:\n\tNfreqs: 3\n", []string{"malformed YAML"}},
		{"two docs", base + "---\nfreq: {}\n", []string{"more than one YAML document"}},
		{"list top", "- freq\n", []string{"top level must be a mapping"}},
		{"scalar top", "hello\n", []string{"top level must be a mapping"}},
		{"no freq", testTime + testRest, []string{"freq", "required"}},
		{"no time", testFreq + testRest, []string{"time", "required"}},
		{"no sources", testFreq + testTime + "telescope:\n  array_layout: layout.csv\n  telescope_config_name: telescope_config.yaml\n", []string{"sources", "required"}},
		{"no catalog", strings.Replace(base, "  catalog: sky.txt\n", "  filetype: text\n", 1), []string{"sources.catalog", "no catalog"}},
		{"mock", strings.Replace(base, "catalog: sky.txt", "catalog: mock", 1), []string{"mock catalogs"}},
		{"missing catalog", strings.Replace(base, "catalog: sky.txt", "catalog: gleam.vot", 1), []string{"obsparam.yaml:10", "sources.catalog", "file not found", "gleam.vot"}},
		{"catalog URL", strings.Replace(base, "catalog: sky.txt", "catalog: https://example.org/sky.skyh5", 1), []string{"sources.catalog", "URLs are not supported"}},
		{"catalog dir", strings.Replace(base, "catalog: sky.txt", "catalog: /", 1), []string{"not a regular file"}},
		{"bad filetype", strings.Replace(base, "catalog: sky.txt", "catalog: sky.txt\n  filetype: csv", 1), []string{"sources.filetype", `"csv"`}},
		{"no config", strings.Replace(base, "  telescope_config_name: telescope_config.yaml\n", "", 1), []string{"telescope.telescope_config_name", "required"}},
		{"no layout", strings.Replace(base, "  array_layout: layout.csv\n", "", 1), []string{"array_layout must be provided"}},
		{"layout mapping", strings.Replace(base, "  array_layout: layout.csv\n", "  array_layout: {0: [0, 0, 0]}\n", 1), []string{"given as a mapping"}},
		{"redundant", base + "select:\n  redundant_threshold: 0.1\n", []string{"select.redundant_threshold", "not supported"}},
		{"select freqs", base + "select:\n  freq_chans: [0]\n", []string{"select.freq_chans", "freq and time sections"}},
		{"unknown antenna", base + "select:\n  antenna_nums: [0, 9]\n", []string{"select.antenna_nums[1]", "antenna number 9 is not in the layout"}},
		{"unknown name", base + "select:\n  antenna_names: [ZZ]\n", []string{"select.antenna_names[0]", `"ZZ"`}},
		{"bad bls", base + "select:\n  bls: '[(0, 1, \"xx\")]'\n", []string{"select.bls", "pairs with a polarization are not supported"}},
		{"bls unknown ant", base + "select:\n  bls: '[(0, 5)]'\n", []string{"select.bls", "antenna number 5"}},
		{"bls twice", base + "select:\n  bls: '[(0, 1), (1, 0)]'\n", []string{"select.bls", "listed twice"}},
		{"bls triple", base + "select:\n  bls: [[0, 1, 2]]\n", []string{"select.bls[0]", "pair"}},
		{"ant_str pol", base + "select:\n  ant_str: 1x_2y\n", []string{"select.ant_str", "not supported"}},
		{"no_autos", base + "select:\n  no_autos: maybe\n", []string{"select.no_autos", "true or false"}},
		{"conjugation", strings.Replace(base, "ant2<ant1", "ant1>ant2", 1), []string{"ordering.conjugation_convention", `"ant1>ant2"`, "must be one of"}},
		{"blt order", base[:strings.Index(base, "ordering:")] + "ordering:\n  blt_order: [baseline, ant1]\n", []string{"ordering.blt_order", "conflicts"}},
		{"blt bda minor", base[:strings.Index(base, "ordering:")] + "ordering:\n  blt_order: [bda, time]\n", []string{"bda"}},
		{"pol circular", base + "polarization_array: [-1]\n", []string{"polarization_array", "circular"}},
		{"pol stokes str", base + "polarization_array: [pI]\n", []string{"polarization_array", `"pI"`, "not a linear"}},
		{"pol en", base + "polarization_array: [ee]\n", []string{"x_orientation"}},
		{"pol dup", base + "polarization_array: [xx, -5]\n", []string{"appears twice"}},
		{"pol scalar", base + "polarization_array: -5\n", []string{"polarization_array", "must be a list"}},
		{"pol empty", base + "polarization_array: []\n", []string{"must not be empty"}},
		{"format miriad", base + "filing:\n  output_format: miriad\n", []string{"filing.output_format", `"miriad"`, "uvh5", "uvfits", "ms", "npy"}},
		{"ext miriad", base + "filing:\n  outfile_name: a.miriad\n", []string{".miriad extension", ".ms"}},
		{"clobber", base + "filing:\n  clobber: sometimes\n", []string{"filing.clobber", "true or false"}},
		{"outdir number", base + "filing:\n  outdir: 7\n", []string{"filing.outdir", "must be a string"}},
		{"duplicate section", base + "freq:\n  Nfreqs: 1\n", []string{"duplicate key"}},
		{"merge key", "defaults: &d\n  Nfreqs: 3\n" + strings.Replace(base, "freq:\n", "freq:\n  <<: *d\n", 1), []string{"merge keys"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, files{obs: tc.obs})
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestFileLimits(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	wantErr(t, err, "not a regular file")
	_, err = Read(filepath.Join(dir, "none.yaml"))
	wantErr(t, err, "cannot open the obsparam file")
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(big)
	wantErr(t, err, "over the 67108864-byte limit")
}

// TestPathsRelativeToObsparam checks pyuvsim's rule from another working
// directory: the names in the obsparam are found beside it.
func TestPathsRelativeToObsparam(t *testing.T) {
	p := writeCase(t, files{})
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if c.Telescope.LayoutFile != filepath.Join(dir, "layout.csv") || c.Telescope.ConfigFile != filepath.Join(dir, "telescope_config.yaml") ||
		c.Sources.Catalog != filepath.Join(dir, "sky.txt") {
		t.Errorf("paths %q %q %q not beside %s", c.Telescope.LayoutFile, c.Telescope.ConfigFile, c.Sources.Catalog, dir)
	}
	_ = wd
}

// TestWorkingDirectoryFirst checks the other half of pyuvsim's rule: a
// relative name that exists in the working directory wins, with a warning.
func TestWorkingDirectoryFirst(t *testing.T) {
	p := writeCase(t, files{})
	cwd := t.TempDir()
	t.Chdir(cwd)
	if err := os.WriteFile(filepath.Join(cwd, "sky.txt"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sources.Catalog != filepath.Join(cwd, "sky.txt") || !hasWarning(c, "sources.catalog", "exists both as") {
		t.Errorf("catalog %q warnings %q", c.Sources.Catalog, c.Warnings)
	}
}
