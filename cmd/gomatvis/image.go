package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/imaging"
	"github.com/gomatvis/gomatvis/matvis/input"
	"github.com/gomatvis/gomatvis/matvis/skymodel"
	"github.com/gomatvis/gomatvis/uvh5"
)

// imageUsage is the image command's usage line.
const imageUsage = "image RUN.uvh5|RUN.ms|RUN.uvfits|SPEC.json|OBSPARAM.yaml -o IMG.fits|IMG.png [--psf] [--size N] [--scale ARCMIN] [--weight natural|uniform|briggs:R] [--padding P] [--pol I|xx|yy|xy|yx] [--phase-center RA,DEC] [--eop FILE] [--sky CATALOG] [--eps E]: the dirty image (or PSF) of a run in Jy/beam, w-terms exact, as WSClean's dirty image; a SPEC or OBSPARAM is simulated first (as simulate -o RUN.uvh5 would) and its sources are marked on a PNG"

// imageFlags are the image command's settings.
type imageFlags struct {
	out, weight, pol, centre, eop, sky string
	psf                                bool
	size                               int
	scale, eps, padding                float64
	// marks are a simulated input's sources, for a PNG without --sky.
	marks []imaging.Mark
}

func runImage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o imageFlags
	fs.StringVar(&o.out, "o", "", "output: IMG.fits (Jy/beam, SIN WCS) or IMG.png (a figure with a colour bar)")
	fs.BoolVar(&o.psf, "psf", false, "image the point-spread function (unit visibilities) instead of the data")
	fs.IntVar(&o.size, "size", 0, "image side in pixels, even (0: from the data: the field reaches twice λ/B_min, at most 8192)")
	fs.Float64Var(&o.scale, "scale", 0, "pixel size in arcminutes (0: a third of the finest fringe, 1/(3·max|uv|))")
	fs.StringVar(&o.weight, "weight", "natural", "weighting: natural, uniform or briggs:R (WSClean's definitions, on the image's uv grid)")
	fs.Float64Var(&o.padding, "padding", 1.2, "WSClean's -padding, which sets the uv grid uniform and Briggs weights are counted on (its padded image's); the image itself is exact, unpadded")
	fs.StringVar(&o.pol, "pol", "I", "polarization: I ((xx+yy)/2), xx, yy, xy or yx")
	fs.StringVar(&o.centre, "phase-center", "", "ICRS phase centre `RA,DEC` in degrees for a UVH5 (default: the zenith of the first time); an MS is imaged at its own")
	fs.StringVar(&o.eop, "eop", "", "Earth-orientation `FILE` for phasing a UVH5 (IERS finals2000A, EOP C04 or a per-time eop.json; default: the embedded IERS table)")
	fs.StringVar(&o.sky, "sky", "", "sky `CATALOG` (skyh5, text, tsv) whose sources are marked on a PNG")
	fs.Float64Var(&o.eps, "eps", 1e-6, "relative accuracy of the transform (1e-14 to 1e-1)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one RUN.uvh5, RUN.ms, RUN.uvfits, SPEC.json or OBSPARAM.yaml (got %d inputs)", errUsage, len(pos))
	}
	if err := o.check(pos[0]); err != nil {
		return err
	}
	t0 := time.Now()
	var v *imaging.Vis
	var wcs imaging.WCS
	if isSimInput(pos[0]) {
		v, wcs, err = o.simulateForImage(ctx, pos[0], stderr)
	} else {
		v, wcs, err = readForImage(pos[0], o)
	}
	if err != nil {
		return err
	}
	read := time.Since(t0)
	im, err := o.image(ctx, v)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if err := o.write(im, wcs, pos[0]); err != nil {
		return err
	}
	what := "dirty image"
	if o.psf {
		what = "PSF"
	}
	fmt.Fprintf(stdout, "%s of %s: %d×%d pixels of %.4g′, %s weighting, pol %s, Σw %.6g, in %.3g s (reading %.3g s) → %s\n",
		what, pos[0], im.N, im.N, im.Cell*180/math.Pi*60, o.weight, o.pol, im.WeightSum, time.Since(t0).Seconds(), read.Seconds(), o.out)
	return nil
}

// check refuses flags that cannot work before anything is read.
func (o *imageFlags) check(in string) error {
	ext := strings.ToLower(filepath.Ext(o.out))
	switch {
	case o.out == "":
		return fmt.Errorf("%w: -o IMG.fits or IMG.png is required", errUsage)
	case ext != ".fits" && ext != ".png":
		return fmt.Errorf("-o %s: the output must end in .fits or .png", o.out)
	case o.size != 0 && (o.size < 2 || o.size%2 != 0 || o.size > 1<<15):
		return fmt.Errorf("--size %d: must be even, from 2 to 32768", o.size)
	case o.scale < 0 || math.IsNaN(o.scale) || math.IsInf(o.scale, 0):
		return fmt.Errorf("--scale %v: must be a positive number of arcminutes (0: from the data)", o.scale)
	case !(o.eps >= 1e-14 && o.eps <= 0.1):
		return fmt.Errorf("--eps %v: must be from 1e-14 to 0.1", o.eps)
	case !(o.padding >= 1 && o.padding <= 10):
		return fmt.Errorf("--padding %v: must be from 1 to 10 (WSClean's default 1.2)", o.padding)
	}
	if _, err := imaging.ParseWeighting(o.weight); err != nil {
		return fmt.Errorf("--weight: %w", err)
	}
	if a, err := filepath.Abs(o.out); err == nil {
		if b, err := filepath.Abs(in); err == nil && a == b {
			return fmt.Errorf("-o %s is the input: choose another -o", o.out)
		}
	}
	return nil
}

// isSimInput says whether in is a simulation's input (a spec, the
// embedded example or a pyuvsim obsparam) rather than a run's output.
func isSimInput(in string) bool {
	return in == "example" || strings.EqualFold(filepath.Ext(in), ".json") || isObsParam(in)
}

// simulateForImage runs `gomatvis simulate IN -o RUN.uvh5 -q` into a
// temporary directory, removed afterwards, and reads the UVH5 back as
// readForImage does: the image is the one of the file simulate writes
// for IN (TestImageSpecEqualsUVH5). Without --sky, a PNG marks the
// simulation's own sources. simulate's report goes to stderr.
func (o *imageFlags) simulateForImage(ctx context.Context, in string, stderr io.Writer) (*imaging.Vis, imaging.WCS, error) {
	dir, err := os.MkdirTemp("", "gomatvis-image-")
	if err != nil {
		return nil, imaging.WCS{}, err
	}
	defer os.RemoveAll(dir)
	run := filepath.Join(dir, "run.uvh5")
	if err := runSimulate(ctx, []string{"-q", "-o", run, in}, stderr, stderr); err != nil {
		return nil, imaging.WCS{}, fmt.Errorf("simulating %s for the image: %w", in, err)
	}
	if o.sky == "" && strings.EqualFold(filepath.Ext(o.out), ".png") {
		if o.marks, err = simMarks(ctx, in); err != nil {
			return nil, imaging.WCS{}, err
		}
	}
	return readForImage(run, *o)
}

// simMarks are the sources of a spec or obsparam: a spec's listed
// positions, or its (or the obsparam's) catalog read.
func simMarks(ctx context.Context, in string) ([]imaging.Mark, error) {
	si, err := loadInput(ctx, in)
	if err != nil {
		return nil, err
	}
	var path, filetype string
	switch {
	case si.cfg != nil:
		path, filetype = si.cfg.Sources.Catalog, si.cfg.Sources.Filetype
	case si.spec.Sources.Catalog != nil:
		path, filetype = si.spec.Sources.Catalog.Path, si.spec.Sources.Catalog.Filetype
		if !filepath.IsAbs(path) {
			path = filepath.Join(si.spec.Dir, path)
		}
	default:
		var marks []imaging.Mark
		for i, ra := range si.spec.Sources.RARad {
			marks = append(marks, imaging.Mark{Name: fmt.Sprintf("source %d", i), RA: ra, Dec: si.spec.Sources.DecRad[i]})
		}
		return marks, nil
	}
	marks, err := catalogMarks(path, filetype)
	if err != nil {
		return nil, fmt.Errorf("the sources of %s to mark: %w", in, err)
	}
	return marks, nil
}

// catalogMarks are a sky catalog's sources.
func catalogMarks(path, filetype string) ([]imaging.Mark, error) {
	sky, err := skymodel.ReadFile(path, filetype)
	if err != nil {
		return nil, err
	}
	var marks []imaging.Mark
	for i, ra := range sky.RA() {
		marks = append(marks, imaging.Mark{Name: sky.Names()[i], RA: ra, Dec: sky.Dec()[i]})
	}
	return marks, nil
}

// readForImage reads an MS (a directory), a UVFITS file (by its
// extension) or a UVH5 file.
func readForImage(in string, o imageFlags) (*imaging.Vis, imaging.WCS, error) {
	st, err := os.Stat(in)
	if err != nil {
		return nil, imaging.WCS{}, err
	}
	if st.IsDir() || isUVFITS(in) {
		kind := "a Measurement Set"
		if !st.IsDir() {
			kind = "a UVFITS file"
		}
		if o.centre != "" || o.eop != "" {
			return nil, imaging.WCS{}, fmt.Errorf("%s is %s, already phased: --phase-center and --eop apply to a UVH5 only", in, kind)
		}
		if !st.IsDir() {
			return imaging.FromUVFITS(in, o.pol)
		}
		return imaging.FromMS(in, o.pol)
	}
	f, err := uvh5.ReadFile(in)
	if err != nil {
		return nil, imaging.WCS{}, err
	}
	p, err := o.phasing(&f.Header)
	if err != nil {
		return nil, imaging.WCS{}, err
	}
	return imaging.FromUVH5(f, o.pol, p)
}

// phasing is the centre and Earth orientation a UVH5 is phased with.
func (o *imageFlags) phasing(h *uvh5.Header) (imaging.Phasing, error) {
	var p imaging.Phasing
	if o.centre != "" {
		c, err := parseCentre(o.centre)
		if err != nil {
			return p, fmt.Errorf("%w: --phase-center %q: %w", errUsage, o.centre, err)
		}
		p.Centre = &c
	}
	var times []float64
	seen := map[float64]bool{}
	for _, jd := range h.Times {
		if !seen[jd] {
			seen[jd] = true
			times = append(times, jd)
		}
	}
	var eops []astro.EOP
	var err error
	if o.eop != "" {
		if eops, err = input.ReadEOPFile(o.eop, times); err != nil {
			return p, fmt.Errorf("--eop: %w", err)
		}
	} else if eops, err = input.BuiltinEOP(times, nil); err != nil {
		return p, err
	}
	byJD := map[float64]astro.EOP{}
	for i, jd := range times {
		byJD[jd] = eops[i]
	}
	p.EOP = func(jd float64) (astro.EOP, error) {
		e, ok := byJD[jd]
		if !ok {
			return e, fmt.Errorf("no Earth orientation for JD %v", jd)
		}
		return e, nil
	}
	return p, nil
}

// image makes the dirty image or PSF.
func (o *imageFlags) image(ctx context.Context, v *imaging.Vis) (*imaging.Image, error) {
	wt, _ := imaging.ParseWeighting(o.weight)
	wt.Padding = o.padding
	g, err := imaging.DefaultGeometry(v)
	if err != nil {
		return nil, err
	}
	if o.size != 0 {
		g.N = o.size
	}
	if o.scale != 0 {
		g.Cell = o.scale / 60 * math.Pi / 180
	}
	opt := imaging.Options{Eps: o.eps}
	return untilCancelled(ctx, "imaging", func() (*imaging.Image, error) {
		if o.psf {
			return imaging.PSF(v, g, wt, opt)
		}
		return imaging.Dirty(v, g, wt, opt)
	})
}

// write writes the FITS file or the PNG.
func (o *imageFlags) write(im *imaging.Image, wcs imaging.WCS, in string) error {
	if strings.EqualFold(filepath.Ext(o.out), ".fits") {
		hist := fmt.Sprintf("gomatvis image %s --weight %s --pol %s (psf %v)", filepath.Base(in), o.weight, o.pol, o.psf)
		return atomicfile.Write(o.out, func(w io.Writer) error { return imaging.WriteFITS(w, im, wcs, hist) })
	}
	marks := o.marks
	if o.sky != "" {
		var err error
		if marks, err = catalogMarks(o.sky, ""); err != nil {
			return fmt.Errorf("--sky: %w", err)
		}
	}
	title := fmt.Sprintf("%s: %s, %s weighting", filepath.Base(in), map[bool]string{false: "dirty image, pol " + o.pol, true: "PSF"}[o.psf], o.weight)
	b, err := imaging.PlotPNG(im, wcs, title, marks)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(o.out, b)
}
