package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImageSpecEqualsUVH5: `gomatvis image SPEC` is the image of the
// UVH5 that `gomatvis simulate SPEC -o RUN.uvh5` writes (the embedded
// HERA-19 example, XX only), pixel for pixel; its PNG marks the spec's own
// sources; and a spec that cannot be simulated is refused naming it.
func TestImageSpecEqualsUVH5(t *testing.T) {
	dir := t.TempDir()
	runOK := func(args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("gomatvis %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
	uv := filepath.Join(dir, "run.uvh5")
	runOK("simulate", "-q", "example", "-o", uv)
	fromUV, fromSpec := filepath.Join(dir, "uv.fits"), filepath.Join(dir, "spec.fits")
	runOK("image", uv, "--size", "64", "--pol", "xx", "-o", fromUV)
	runOK("image", "example", "--size", "64", "--pol", "xx", "-o", fromSpec)
	n1, a := readFITSPlane(t, fromUV)
	n2, b := readFITSPlane(t, fromSpec)
	if n1 != n2 {
		t.Fatalf("sizes %d and %d", n1, n2)
	}
	var diff, peak float64
	for i := range a {
		diff = max(diff, math.Abs(float64(a[i])-float64(b[i])))
		peak = max(peak, math.Abs(float64(a[i])))
	}
	t.Logf("max|image(SPEC) − image(UVH5)| = %.3g of the peak %.4g", diff/peak, peak)
	if peak == 0 || diff > 1e-6*peak {
		t.Errorf("max|image(SPEC) − image(UVH5)| = %.3g of the peak %.4g", diff/peak, peak)
	}

	spec, err := loadSpec("example")
	if err != nil {
		t.Fatal(err)
	}
	marks, err := simMarks(context.Background(), "example")
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) == 0 || len(marks) != len(spec.Sources.RARad) {
		t.Errorf("%d marks for the example's %d sources", len(marks), len(spec.Sources.RARad))
	}
	for i, m := range marks {
		if m.RA != spec.Sources.RARad[i] || m.Dec != spec.Sources.DecRad[i] {
			t.Errorf("mark %d at (%v, %v), source at (%v, %v)", i, m.RA, m.Dec, spec.Sources.RARad[i], spec.Sources.DecRad[i])
		}
	}
	png := filepath.Join(dir, "spec.png")
	runOK("image", "example", "--size", "64", "--pol", "xx", "-o", png)
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("PNG from a spec: %v", err)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"image", bad, "-o", filepath.Join(dir, "bad.fits")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "bad.json") {
		t.Errorf("image of an incomplete spec: exit %d, stderr %q; want an error naming bad.json", code, stderr.String())
	}
}

// TestImageUVFITSEqualsMS: the UVFITS file and the MS that simulate
// writes of one spec (the example, both phased to the first time's
// zenith) give the same image, and the same as its UVH5 phased here:
// FromUVFITS undoes pyuvdata's conventions (uvw −u/c, data conjugated;
// without that the image would be mirrored).
func TestImageUVFITSEqualsMS(t *testing.T) {
	dir := t.TempDir()
	img := func(args ...string) []float32 {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("gomatvis %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		if args[0] == "simulate" {
			return nil
		}
		_, pix := readFITSPlane(t, args[len(args)-1])
		return pix
	}
	var images [][]float32
	for _, ext := range []string{".uvfits", ".ms", ".uvh5"} {
		run := filepath.Join(dir, "run"+ext)
		img("simulate", "-q", "example", "-o", run)
		images = append(images, img("image", run, "--size", "64", "--pol", "xx", "-o", filepath.Join(dir, "img"+ext+".fits")))
	}
	for k, name := range []string{"MS", "UVH5"} {
		var diff, peak float64
		for i, a := range images[0] {
			diff = max(diff, math.Abs(float64(a)-float64(images[k+1][i])))
			peak = max(peak, math.Abs(float64(images[k+1][i])))
		}
		t.Logf("max|image(UVFITS) − image(%s)| = %.3g of the peak %.4g", name, diff/peak, peak)
		if peak == 0 || diff > 1e-6*peak {
			t.Errorf("max|image(UVFITS) − image(%s)| = %.3g of the peak %.4g, over 1e-6", name, diff/peak, peak)
		}
	}
}
