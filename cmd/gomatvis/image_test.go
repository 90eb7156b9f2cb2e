package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/input"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/ms"
	"github.com/gomatvis/gomatvis/uvh5"
)

// imageRef is the pyuvsim reference imaged by the tests: 7 antennas
// (autos included), 3 times, 3 channels, 11 sources over the sky.
const imageRef = "../../testdata/reference/pyuvsim-stokesI-gaussian"

// readFITSPlane reads the first N×N plane of a BITPIX −32 FITS file
// (WSClean's and ours) and its NAXIS1.
func readFITSPlane(t *testing.T, path string) (int, []float32) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, off := 0, 0
	for ; off+80 <= len(b); off += 80 {
		c := string(b[off : off+80])
		if strings.HasPrefix(c, "NAXIS1  =") {
			n, _ = strconv.Atoi(strings.TrimSpace(c[10:30]))
		}
		if strings.HasPrefix(c, "END ") {
			off += 80
			break
		}
	}
	off = (off + 2879) / 2880 * 2880
	if n == 0 || off+4*n*n > len(b) {
		t.Fatalf("%s: NAXIS1 %d, %d bytes", path, n, len(b))
	}
	pix := make([]float32, n*n)
	for i := range pix {
		pix[i] = math.Float32frombits(binary.BigEndian.Uint32(b[off+4*i:]))
	}
	return n, pix
}

// TestImageAgainstWSClean: gomatvis image of the reference UVH5 (phased
// here by matvis/phase to the first time's zenith, or to a source by
// --phase-center) equals WSClean's dirty image of the MS that
// ms.WriteUVH5 makes of the same file phased to the same centre, natural
// and uniform weighting, both at their default padding (1.2), to 1e-3 of
// the peak inside 40° of the centre.
func TestImageAgainstWSClean(t *testing.T) {
	if testing.Short() {
		t.Skip("WSClean runs are not short")
	}
	if _, err := exec.LookPath("wsclean"); err != nil {
		t.Skip("wsclean is not installed (apt-get install wsclean; scripts/test.sh installs it)")
	}
	dir := t.TempDir()
	src := filepath.Join(imageRef, "stokesI-gaussian.uvh5")
	eopPath := filepath.Join(imageRef, "eop.json")
	f, err := uvh5.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The default centre (the first time's zenith), and src007 of the
	// sky (RA 218.173197°, Dec −17.145381°) given by --phase-center.
	centre := phase.Centre{Name: "src007", RA: 218.173197 * math.Pi / 180, Dec: -17.145381 * math.Pi / 180}
	type setup struct {
		name, weight string
		centre       *phase.Centre
	}
	for _, c := range []setup{{"zenith", "natural", nil}, {"zenith", "uniform", nil}, {"src007", "natural", &centre}} {
		t.Run(c.name+"-"+c.weight, func(t *testing.T) {
			imageVersusWSClean(t, dir, f, eopPath, c.weight, c.centre)
		})
	}
}

// imageVersusWSClean images the reference by gomatvis image and by
// WSClean on the MS of it that ms.WriteUVH5 phases to centre (nil: the
// first time's zenith), and compares them.
func imageVersusWSClean(t *testing.T, dir string, f *uvh5.File, eopPath, weight string, centre *phase.Centre) {
	name := weight
	var extra []string
	if centre != nil {
		name += "-" + centre.Name
		extra = []string{"--phase-center", strconv.FormatFloat(centre.RA*180/math.Pi, 'g', -1, 64) + "," + strconv.FormatFloat(centre.Dec*180/math.Pi, 'g', -1, 64)}
	}
	msPath := filepath.Join(dir, name+".ms")
	if err := ms.WriteUVH5(msPath, f, ms.Phasing{Centre: centre, EOP: eopFunc(t, eopPath, f.Header.Times)}); err != nil {
		t.Fatal(err)
	}
	const n, arcmin = 128, 40.0
	out := filepath.Join(dir, name+".fits")
	var stdout, stderr bytes.Buffer
	args := []string{"image", f.Path, "--eop", eopPath, "--size", strconv.Itoa(n), "--scale", strconv.FormatFloat(arcmin, 'g', -1, 64), "--weight", weight, "-o", out}
	args = append(args, extra...)
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("gomatvis %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	wsName := filepath.Join(dir, "ws-"+name)
	cmd := exec.Command("wsclean", "-j", "2", "-name", wsName, "-size", strconv.Itoa(n), strconv.Itoa(n),
		"-scale", strconv.FormatFloat(arcmin/60, 'g', -1, 64), "-weight", weight, "-pol", "I", "-niter", "0",
		"-no-update-model-required", "-use-wgridder", "-wgridder-accuracy", "1e-6", "-no-small-inversion", msPath)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wsclean: %v\n%s", err, b)
	}
	_, ours := readFITSPlane(t, out)
	_, ws := readFITSPlane(t, wsName+"-dirty.fits")
	var inside, all, peak float64
	cell := arcmin / 60 * math.Pi / 180
	r := math.Sin(40 * math.Pi / 180)
	for i := range ws {
		l, m := float64(n/2-i%n)*cell, float64(i/n-n/2)*cell
		if l*l+m*m >= 1 {
			continue // beyond the horizon: 0 here, WSClean's extrapolation there
		}
		peak = max(peak, math.Abs(float64(ws[i])))
		d := math.Abs(float64(ours[i] - ws[i]))
		all = max(all, d)
		if l*l+m*m <= r*r {
			inside = max(inside, d)
		}
	}
	t.Logf("%s: max|gomatvis − WSClean| = %.3g of the peak %.4g within 40°, %.3g over the image", name, inside/peak, peak, all/peak)
	if inside > 1e-3*peak {
		t.Errorf("%s: max|gomatvis − WSClean| within 40° = %.3g of the peak, over 1e-3", name, inside/peak)
	}
}

// eopFunc reads a per-time EOP file for the given times.
func eopFunc(t *testing.T, path string, times []float64) func(float64) (astro.EOP, error) {
	t.Helper()
	e, err := input.ReadEOPFile(path, times)
	if err != nil {
		t.Fatal(err)
	}
	by := map[float64]astro.EOP{}
	for i, jd := range times {
		by[jd] = e[i]
	}
	return func(jd float64) (astro.EOP, error) { return by[jd], nil }
}

// TestImageBadInput: refusals name the flag or file and say what to do.
func TestImageBadInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(imageRef, "stokesI-gaussian.uvh5")
	msDir := filepath.Join(dir, "x.ms")
	if err := os.Mkdir(msDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{src}, "-o IMG.fits or IMG.png is required"},
		{[]string{src, "-o", filepath.Join(dir, "a.jpg")}, "must end in .fits or .png"},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--size", "7"}, "--size 7: must be even"},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--scale", "-1"}, "--scale -1"},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--weight", "robust"}, `want natural, uniform or briggs:R`},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--weight", "briggs:x"}, `the robustness must be a number`},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--pol", "q"}, `polarization "q": want I, xx`},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--pol", "rr"}, `polarization "rr" is not in the data`},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--phase-center", "10"}, "--phase-center \"10\": want RA_DEG,DEC_DEG"},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--eps", "0"}, "--eps 0"},
		{[]string{src, "-o", filepath.Join(dir, "a.fits"), "--padding", "0.5"}, "--padding 0.5: must be from 1 to 10"},
		{[]string{msDir, "-o", filepath.Join(dir, "a.fits"), "--eop", "x"}, "--phase-center and --eop apply to a UVH5 only"},
		{[]string{msDir, "-o", filepath.Join(dir, "a.fits")}, "only Measurement Sets written by gomatvis"},
		{[]string{filepath.Join(imageRef, "stokesI-gaussian.phased-zenith.uvh5"), "-o", filepath.Join(dir, "a.fits")}, "only unprojected (drift-scan) files are imaged"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"image"}, c.args...), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("gomatvis image %s: exit %d, stderr %q; want an error containing %q", strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
	}
}

// TestImagePNG: a PNG of the reference with its sky marked decodes, at the
// figure's size, and holds the colour map's range of colours (not blank).
func TestImagePNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ref.png")
	var stdout, stderr bytes.Buffer
	args := []string{"image", filepath.Join(imageRef, "stokesI-gaussian.uvh5"), "--eop", filepath.Join(imageRef, "eop.json"),
		"--size", "64", "--sky", filepath.Join(imageRef, "sky.skyh5"), "-o", out}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	// 13 cm + 2.2 cm by 13 cm at 192 dpi.
	if b := img.Bounds(); b.Dx() != 1149 || b.Dy() != 983 {
		t.Errorf("PNG is %d × %d pixels, want 1149 × 983", b.Dx(), b.Dy())
	}
	colours := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 100 {
		t.Errorf("the PNG has %d distinct colours in a sample: blank?", len(colours))
	}
}
