// Command gen writes the inputs of the end-to-end benchmark (bench/e2e.sh):
// one simulation, 350 antennas of a HERA-like hexagon × N point sources ×
// F channels × T times, in the four forms a user hands gomatvis simulate:
//
//	inline    spec.json with the sky inline (sources.ra_rad, dec_rad, flux_jy)
//	text      spec.json + sky.txt, pyradiosky's text catalog
//	skyh5     spec.json + sky.skyh5, pyradiosky's SkyH5
//	obsparam  obsparam.yaml (pyuvsim's) + layout.csv + telescope.yaml + sky.skyh5
//
// The sky is the same in every form: positions uniform on the sphere, Stokes
// I from 0.1 to 10 Jy at 150 MHz with a spectral index around −0.8 (inline:
// evaluated at each channel). The output is seeded: the same flags write the
// same bytes on every machine.
//
// Usage:
//
//	go run ./bench/e2e/gen -form inline -nsrc 200000 -nfreq 1 -o bench/tmp/inline-2e5-1
package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gomatvis/gomatvis/internal/h5write"
)

// The simulation's fixed shape and site (HERA's).
const (
	nAnt      = 350
	hexPitchM = 14.6
	jitterM   = 0.03 // east and north: off the lattice, still coplanar
	dishM     = 14.0
	latDeg    = -30.72152612068957
	lonDeg    = 21.428303826863015
	heightM   = 1051.69
	refFreqHz = 150e6
	chanHz    = 100e3
	startJD   = 2459845.0
	intTimeS  = 10.7
)

// config is what the flags choose.
type config struct {
	form      string
	nsrc      int
	nfreq     int
	ntime     int
	precision int
	seed      uint64
	dir       string
}

func main() {
	var c config
	flag.StringVar(&c.form, "form", "inline", "inline, text, skyh5 or obsparam")
	flag.IntVar(&c.nsrc, "nsrc", 200000, "number of point sources")
	flag.IntVar(&c.nfreq, "nfreq", 1, "number of channels, 100 kHz apart from 150 MHz")
	flag.IntVar(&c.ntime, "ntime", 1, "number of times, 10.7 s apart")
	flag.IntVar(&c.precision, "precision", 2, "the spec's precision: 1 (float32) or 2 (float64); an obsparam runs in float64")
	flag.Uint64Var(&c.seed, "seed", 1, "the random stream's seed (layout jitter and sky)")
	flag.StringVar(&c.dir, "o", "", "output directory (created)")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.dir == "" {
		return errors.New("-o DIR is required")
	}
	if c.nsrc < 1 || c.nfreq < 1 || c.ntime < 1 {
		return fmt.Errorf("-nsrc %d, -nfreq %d, -ntime %d: each must be at least 1", c.nsrc, c.nfreq, c.ntime)
	}
	if c.precision != 1 && c.precision != 2 {
		return fmt.Errorf("-precision %d: want 1 or 2", c.precision)
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(c.seed, 0x6e2e))
	ants := hexLayout(r)
	s := newSky(r, c.nsrc)
	switch c.form {
	case "inline":
		return writeFile(filepath.Join(c.dir, "spec.json"), func(w *bufio.Writer) error { return writeSpec(w, c, ants, s, "") })
	case "text":
		if err := writeFile(filepath.Join(c.dir, "sky.txt"), s.writeText); err != nil {
			return err
		}
		return writeFile(filepath.Join(c.dir, "spec.json"), func(w *bufio.Writer) error { return writeSpec(w, c, ants, s, "sky.txt") })
	case "skyh5":
		if err := s.writeSkyH5(filepath.Join(c.dir, "sky.skyh5")); err != nil {
			return err
		}
		return writeFile(filepath.Join(c.dir, "spec.json"), func(w *bufio.Writer) error { return writeSpec(w, c, ants, s, "sky.skyh5") })
	case "obsparam":
		if err := s.writeSkyH5(filepath.Join(c.dir, "sky.skyh5")); err != nil {
			return err
		}
		return writeObsparam(c, ants)
	}
	return fmt.Errorf("-form %q: want inline, text, skyh5 or obsparam", c.form)
}

// hexLayout returns the nAnt points of a hexagonal lattice nearest its
// centre (ties broken by angle, so the set is the same everywhere), each
// moved by a Gaussian jitter east and north.
func hexLayout(r *rand.Rand) [][3]float64 {
	type pt struct{ e, n, d, a float64 }
	var pts []pt
	const k = 12 // rings: 3k(k+1)+1 = 469 ≥ 350 points
	for i := -k; i <= k; i++ {
		for j := -k; j <= k; j++ {
			if abs(i+j) > k {
				continue
			}
			e := hexPitchM * (float64(i) + float64(j)/2)
			n := hexPitchM * float64(j) * math.Sqrt(3) / 2
			pts = append(pts, pt{e, n, math.Hypot(e, n), math.Atan2(n, e)})
		}
	}
	slices.SortFunc(pts, func(a, b pt) int {
		if math.Abs(a.d-b.d) > 1e-9 {
			return cmp.Compare(a.d, b.d)
		}
		return cmp.Compare(a.a, b.a)
	})
	ants := make([][3]float64, nAnt)
	for i := range ants {
		ants[i] = [3]float64{pts[i].e + jitterM*r.NormFloat64(), pts[i].n + jitterM*r.NormFloat64(), 0}
	}
	return ants
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sky is the point sources: ICRS degrees, Stokes I at refFreqHz, index.
type sky struct {
	raDeg, decDeg, fluxJy, index []float64
}

func newSky(r *rand.Rand, n int) *sky {
	s := &sky{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range n {
		// Rounded to the 8 decimals a pyradiosky text catalog keeps, so
		// every form holds the same numbers.
		s.raDeg[i] = round8(360 * r.Float64())
		s.decDeg[i] = round8(math.Asin(2*r.Float64()-1) * 180 / math.Pi)
		s.fluxJy[i] = round8(0.1 + 9.9*r.Float64())
		s.index[i] = round8(-0.8 + 0.2*r.NormFloat64())
	}
	return s
}

func round8(x float64) float64 { return math.Round(x*1e8) / 1e8 }

// flux is source i's Stokes I at f.
func (s *sky) flux(i int, f float64) float64 {
	return s.fluxJy[i] * math.Pow(f/refFreqHz, s.index[i])
}

func freqs(n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = refFreqHz + chanHz*float64(i)
	}
	return f
}

// writeFile writes path through a buffered writer filled by fill.
func writeFile(path string, fill func(*bufio.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	if err := fill(w); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return fh.Close()
}

// num formats x as Python's json.dump does: the shortest decimal that
// reads back as x.
func num(b []byte, x float64) []byte { return strconv.AppendFloat(b, x, 'g', -1, 64) }

// writeSpec writes a simspec v1 spec; catalog, when set, replaces the
// inline sources.
func writeSpec(w *bufio.Writer, c config, ants [][3]float64, s *sky, catalog string) error {
	fmt.Fprintf(w, `{"name": "e2e-%s-%d-%d", "telescope": {"lat_deg": %v, "lon_deg": %v, "height_m": %v},`+"\n",
		c.form, c.nsrc, c.nfreq, latDeg, lonDeg, heightM)
	var b []byte
	b = append(b, ` "antennas_enu_m": [`...)
	for i, a := range ants {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(num(append(num(append(num(append(b, '['), a[0]), ", "...), a[1]), ", "...), a[2]), ']')
	}
	b = append(b, "],\n \"freqs_hz\": "...)
	b = appendList(b, freqs(c.nfreq))
	times := make([]float64, c.ntime)
	for i := range times {
		times[i] = startJD + float64(i)*intTimeS/86400
	}
	b = append(b, ",\n \"times_jd\": "...)
	b = appendList(b, times)
	b = append(b, ",\n"...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if catalog != "" {
		fmt.Fprintf(w, ` "sources": {"catalog": {"path": %q}},`+"\n", catalog)
	} else if err := writeInlineSources(w, c, s); err != nil {
		return err
	}
	fmt.Fprintf(w, ` "beams": [{"type": "gaussian", "diameter_m": %v}], "beam_idx": null, "antpairs": null,`+"\n", dishM)
	fmt.Fprintf(w, ` "polarized": false, "precision": %d}`+"\n", c.precision)
	return nil
}

func appendList(b []byte, x []float64) []byte {
	b = append(b, '[')
	for i, v := range x {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = num(b, v)
	}
	return append(b, ']')
}

// writeInlineSources writes sources.ra_rad, dec_rad and flux_jy (one
// array per source of its flux at each channel).
func writeInlineSources(w *bufio.Writer, c config, s *sky) error {
	n := len(s.raDeg)
	rad := make([]float64, n)
	b := make([]byte, 0, 1<<16)
	list := func(key string, deg []float64) error {
		for i, d := range deg {
			rad[i] = d * math.Pi / 180
		}
		b = appendList(append(b[:0], ` "`+key+`": `...), rad)
		_, err := w.Write(append(b, ",\n"...))
		return err
	}
	if _, err := w.WriteString(` "sources": {` + "\n"); err != nil {
		return err
	}
	if err := list("ra_rad", s.raDeg); err != nil {
		return err
	}
	if err := list("dec_rad", s.decDeg); err != nil {
		return err
	}
	f := freqs(c.nfreq)
	if _, err := w.WriteString(` "flux_jy": [`); err != nil {
		return err
	}
	for i := range n {
		b = b[:0]
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '[')
		for k, fk := range f {
			if k > 0 {
				b = append(b, ", "...)
			}
			b = num(b, s.flux(i, fk))
		}
		if _, err := w.Write(append(b, ']')); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]},\n")
	return err
}

// writeText writes pyradiosky's text catalog (write_text_catalog's
// columns for a spectral-index sky, tab-separated, 8 decimals).
func (s *sky) writeText(w *bufio.Writer) error {
	if _, err := w.WriteString("source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\tFrequency [Hz]\tSpectral_Index\n"); err != nil {
		return err
	}
	for i := range s.raDeg {
		if _, err := fmt.Fprintf(w, "src%07d\t%.8f\t%.8f\t%.8f\t%.8f\t%.8f\n", i, s.raDeg[i], s.decDeg[i], s.fluxJy[i], refFreqHz, s.index[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeSkyH5 writes pyradiosky's SkyH5 (point components, spectral index,
// positions in Header/skycoord) as write_skyh5 lays it out.
func (s *sky) writeSkyH5(path string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := s.fillSkyH5(fh); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return fh.Close()
}

func (s *sky) fillSkyH5(fh *os.File) error {
	n := len(s.raDeg)
	f, err := h5write.Create(fh)
	if err != nil {
		return err
	}
	hdr, err := f.Root().Group("Header")
	if err != nil {
		return err
	}
	names := make([]string, n)
	ref := make([]float64, n)
	for i := range names {
		names[i] = fmt.Sprintf("src%07d", i)
		ref[i] = refFreqHz
	}
	steps := []func() error{
		func() error { return hdr.String("component_type", "point") },
		func() error { return hdr.Scalar("Ncomponents", int64(n)) },
		func() error { return hdr.Scalar("Nfreqs", int64(1)) },
		func() error { return hdr.String("spectral_type", "spectral_index") },
		func() error { return hdr.Strings("name", names) },
		func() error { return withUnit(hdr, "reference_frequency", ref, "Hz") },
		func() error { return hdr.Array("spectral_index", s.index) },
		func() error { return s.skycoord(hdr) },
		func() error { return s.stokes(f.Root()) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return f.Close()
}

func (s *sky) skycoord(hdr *h5write.Group) error {
	sc, err := hdr.Group("skycoord")
	if err != nil {
		return err
	}
	if err := sc.String("frame", "icrs"); err != nil {
		return err
	}
	if err := sc.String("representation_type", "spherical"); err != nil {
		return err
	}
	if err := withUnit(sc, "ra", s.raDeg, "deg"); err != nil {
		return err
	}
	return withUnit(sc, "dec", s.decDeg, "deg")
}

// stokes writes /Data/stokes, (4, 1, n): I, then Q = U = V = 0.
func (s *sky) stokes(root *h5write.Group) error {
	data, err := root.Group("Data")
	if err != nil {
		return err
	}
	n := len(s.fluxJy)
	d, err := data.Dataset("stokes", h5write.Float64, 4, 1, n)
	if err != nil {
		return err
	}
	if err := d.WriteAt(0, s.fluxJy); err != nil {
		return err
	}
	if err := d.WriteAt(int64(n), make([]float64, 3*n)); err != nil {
		return err
	}
	return d.StringAttr("unit", "Jy")
}

// withUnit writes a 1-d float64 dataset with its unit attribute.
func withUnit(g *h5write.Group, name string, v []float64, unit string) error {
	d, err := g.Dataset(name, h5write.Float64, len(v))
	if err != nil {
		return err
	}
	if err := d.WriteAt(0, v); err != nil {
		return err
	}
	return d.StringAttr("unit", unit)
}

// writeObsparam writes pyuvsim's obsparam, its layout CSV and telescope
// configuration (one Gaussian beam, the xx polarization only, as the
// specs' unpolarized runs).
func writeObsparam(c config, ants [][3]float64) error {
	err := writeFile(filepath.Join(c.dir, "layout.csv"), func(w *bufio.Writer) error {
		fmt.Fprintf(w, "Name     Number   BeamID   E           N           U\n")
		for i, a := range ants {
			fmt.Fprintf(w, "HH%-6d %6d %6d %12.6f %12.6f %12.6f\n", i, i, 0, a[0], a[1], a[2])
		}
		return nil
	})
	if err != nil {
		return err
	}
	loc := fmt.Sprintf("(%v, %v, %v)", latDeg, lonDeg, heightM)
	err = writeFile(filepath.Join(c.dir, "telescope.yaml"), func(w *bufio.Writer) error {
		fmt.Fprintf(w, "beam_paths:\n  0:\n    type: gaussian\n    diameter: %v\ntelescope_location: %s\ntelescope_name: HERA\n", dishM, loc)
		return nil
	})
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(c.dir, "obsparam.yaml"), func(w *bufio.Writer) error {
		fmt.Fprintf(w, "filing:\n  outdir: .\n  outfile_name: obsparam.uvh5\n  output_format: uvh5\n  clobber: true\n")
		fmt.Fprintf(w, "freq:\n  Nfreqs: %d\n  channel_width: %v\n  start_freq: %v\n", c.nfreq, chanHz, refFreqHz)
		fmt.Fprintf(w, "sources:\n  catalog: sky.skyh5\n")
		fmt.Fprintf(w, "telescope:\n  array_layout: layout.csv\n  telescope_config_name: telescope.yaml\n")
		fmt.Fprintf(w, "time:\n  Ntimes: %d\n  integration_time: %v\n  start_time: %v\n", c.ntime, intTimeS, startJD)
		fmt.Fprintf(w, "polarization_array:\n- -5\n")
		return nil
	})
}
