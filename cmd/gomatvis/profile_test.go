package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/profile"
)

func TestProfileCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	var out, errb bytes.Buffer
	args := []string{"profile", "--preset", "dev", "--backend", "cpu", "--nsrc", "2000", "--nant", "6", "--ntimes", "2", "--scaling=false", "-o", dir}
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	doc, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := profile.ValidateSummary(doc); err != nil {
		t.Fatal(err)
	}
	rep, err := profile.ReadJSON(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Config.NAnt != 6 || rep.Config.NBeam != 6 || rep.Config.NSrc != 2000 || rep.Config.Preset != "dev" {
		t.Errorf("config %+v: flags did not override the preset", rep.Config)
	}
	// roofline --from re-measures the ceilings and places the stages.
	rdir := filepath.Join(t.TempDir(), "roof")
	out.Reset()
	if code := run(context.Background(), []string{"roofline", "--from", filepath.Join(dir, "summary.json"), "-o", rdir}, &out, &errb); code != 0 {
		t.Fatalf("roofline exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"roofline.png", "roofline.svg", "roofline.json"} {
		if st, err := os.Stat(filepath.Join(rdir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestProfileBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"profile", "--preset", "huge", "-o", t.TempDir()},
		{"profile", "--precision", "3", "-o", t.TempDir()},
		{"profile", "--preset", "dev"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}
