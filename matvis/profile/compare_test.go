package profile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCompareFigure(t *testing.T) {
	rep, err := ReadJSON("../../bench/profiles/gpu-dev.json")
	if err != nil {
		t.Fatal(err)
	}
	peer := PeerRun{Name: "matvis", Chunks: 1, PerIntegration: 0.021,
		PerChunk: []PeerStage{{"beam", 1.6e-3}, {"tau_z", 0.46e-3}, {"matprod", 18.3e-3}}}
	// The fused label follows the run: the Gram product inside the Z
	// kernel, or beam and τ/Z in one kernel before a separate product.
	for _, fused := range []bool{false, true} {
		r := *rep
		r.GramFused, r.BeamInTauZ = fused, true
		f, err := CompareFigure("dev", peer, &r, []string{"source"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range f.Series {
			names = append(names, s.Name)
		}
		label, other := "beam+tau_z (fused)", "beam+tau_z+matprod (fused)"
		if fused {
			label, other = other, label
		}
		for _, want := range []string{"beam", "matprod", otherStage, label, "coords"} {
			if !slices.Contains(names, want) {
				t.Errorf("fused %v: series %v lack %q", fused, names, want)
			}
		}
		if slices.Contains(names, other) {
			t.Errorf("fused %v: series %v hold %q", fused, names, other)
		}
	}
	f, err := CompareFigure("dev", peer, rep, []string{"source"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Count("labels") != 1 || len(f.Caption) != 1 {
		t.Errorf("series %+v, caption %q", f.Series, f.Caption)
	}
	if pl := f.LegendPlacement(); len(pl.Covers) > 0 {
		t.Errorf("legend covers %v", pl.Covers)
	}
	for _, tc := range []struct {
		peer PeerRun
		ok   bool
	}{{peer, true}, {PeerRun{Name: "x", Chunks: 0, PerIntegration: 1}, false}, {PeerRun{Name: "x", Chunks: 1}, false}} {
		if _, err := CompareFigure("t", tc.peer, rep, nil); (err == nil) != tc.ok {
			t.Errorf("peer %+v: error %v, want ok = %v", tc.peer, err, tc.ok)
		}
	}
}

func TestConfigName(t *testing.T) {
	dev, _ := Preset("dev")
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(*Config) {}, "dev"},
		{func(c *Config) { c.NSrc, c.NTimes = 20000, 3 }, "dev, nsrc 20000, ntimes 3"},
		{func(c *Config) { c.Coords = "precomputed" }, "dev, coords precomputed"},
		{func(c *Config) { c.Preset = "nonesuch" }, "nonesuch"},
	} {
		c := dev
		tc.edit(&c)
		if got := c.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
	}
	if !strings.HasPrefix(plural(1, "chunk"), "1 chunk") || plural(30, "chunk") != "30 chunks" {
		t.Error("plural")
	}
}

// TestCommittedFiguresLegends draws every figure of the committed
// summaries (the docs figures) and fails when a legend covers data.
func TestCommittedFiguresLegends(t *testing.T) {
	files, _ := filepath.Glob("../../bench/profiles/*.json")
	if len(files) == 0 {
		t.Skip("no bench/profiles/*.json here")
	}
	for _, path := range files {
		rep, err := ReadJSON(path)
		if err != nil {
			t.Fatal(err)
		}
		Rederive(rep)
		figs, names, err := Figures(rep)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, f := range figs {
			if pl := f.LegendPlacement(); len(pl.Covers) > 0 {
				t.Errorf("%s %s: legend covers %v", filepath.Base(path), names[i], pl.Covers)
			}
		}
	}
}
