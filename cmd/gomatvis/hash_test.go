package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigHash(t *testing.T) {
	dir := t.TempDir()
	hashOf := func(t *testing.T, path string, o hashInputs) string {
		t.Helper()
		in, err := loadInput(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := configHash(in, o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	npyOpts := hashInputs{format: "npy"}
	base := hashOf(t, writeSpec(t, dir, nil, ""), npyOpts)
	// The example re-spelled: other key order and spacing, same values.
	var m map[string]any
	json.Unmarshal([]byte(exampleSpec), &m)
	pretty, _ := json.MarshalIndent(m, "", "    ")
	p := filepath.Join(dir, "pretty.json")
	os.WriteFile(p, pretty, 0o644)
	if h := hashOf(t, p, npyOpts); h != base {
		t.Errorf("re-spelled spec: hash %s, want %s", h[:12], base[:12])
	}
	if h := hashOf(t, "example", npyOpts); h != base {
		t.Errorf("embedded example: hash %s, want %s", h[:12], base[:12])
	}
	other := t.TempDir()
	for _, c := range []struct {
		name string
		path string
		o    hashInputs
	}{
		{"uvh5 format", writeSpec(t, other, nil, ""), hashInputs{format: "uvh5"}},
		{"coord method", writeSpec(t, other, nil, ""), hashInputs{format: "npy", coordMethod: "CoordinateRotationAstropy"}},
		{"precision", writeSpec(t, other, func(m map[string]any) { m["precision"] = 1 }, ""), npyOpts},
		{"one flux", writeSpec(t, other, func(m map[string]any) {
			f := m["sources"].(map[string]any)["flux_jy"].([]any)
			f[3].([]any)[0] = 1.5
		}, ""), npyOpts},
	} {
		if h := hashOf(t, c.path, c.o); h == base {
			t.Errorf("%s: same hash as the example", c.name)
		}
	}
	// An obsparam hashes its files' bytes: changing the catalog changes it.
	src := filepath.Dir(obsparamPath)
	cp := t.TempDir()
	for _, f := range []string{"obsparam.yaml", "telescope_config.yaml", "layout.csv", "sky.txt", "sky.skyh5", "sky_stokes.tsv"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cp, f), b, 0o644)
	}
	obs := filepath.Join(cp, "obsparam.yaml")
	h1 := hashOf(t, obs, hashInputs{format: "uvh5"})
	if h := hashOf(t, obsparamPath, hashInputs{format: "uvh5"}); h != h1 {
		t.Errorf("copied obsparam: hash %s, want %s", h[:12], h1[:12])
	}
	in, _ := loadInput(context.Background(), obs)
	cat := in.cfg.Sources.Catalog
	b, _ := os.ReadFile(cat)
	os.WriteFile(cat, append(b, []byte(strings.Repeat(" ", 1))...), 0o644)
	if h := hashOf(t, obs, hashInputs{format: "uvh5"}); h == h1 {
		t.Errorf("obsparam with another catalog (%s): same hash", cat)
	}
	// A simspec hashes the bytes of the catalog it names, too (written
	// here beside a copy of the spec, so the edit touches no reference).
	spec := filepath.Join("..", "..", "testdata", "specs", "stokesI-gaussian.json")
	var sm map[string]any
	sb, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sb, &sm); err != nil {
		t.Fatal(err)
	}
	specDir, err := filepath.Abs(filepath.Dir(spec))
	if err != nil {
		t.Fatal(err)
	}
	sdir := t.TempDir()
	catSrc := filepath.Join(specDir, sm["sources"].(map[string]any)["catalog"].(map[string]any)["path"].(string))
	cb, err := os.ReadFile(catSrc)
	if err != nil {
		t.Fatal(err)
	}
	catCopy := filepath.Join(sdir, "sky.skyh5")
	os.WriteFile(catCopy, cb, 0o644)
	sm["sources"].(map[string]any)["catalog"].(map[string]any)["path"] = "sky.skyh5"
	layout := sm["layout_csv"].(string)
	sm["layout_csv"] = filepath.Join(specDir, layout)
	js, _ := json.Marshal(sm)
	specCopy := filepath.Join(sdir, "spec.json")
	os.WriteFile(specCopy, js, 0o644)
	s1 := hashOf(t, specCopy, npyOpts)
	if h := hashOf(t, specCopy, npyOpts); h != s1 {
		t.Fatalf("the same simspec twice: hashes %s and %s", h[:12], s1[:12])
	}
	cb[len(cb)/2] ^= 1 // one bit of the catalog's bytes
	os.WriteFile(catCopy, cb, 0o644)
	if h := hashOf(t, specCopy, npyOpts); h == s1 {
		t.Errorf("simspec with another catalog (%s): same hash", catCopy)
	}
}
