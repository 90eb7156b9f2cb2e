package beamfits

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/astrogo/fitsio"
	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/internal/membudget"
)

// Primary-HDU axis numbers of a regularly gridded beamfits file (pyuvdata
// uvbeam/beamfits.py): FITS axis 1 varies fastest.
const (
	bfAxAz      = 1
	bfAxZa      = 2
	bfAxFreq    = 3
	bfAxFeedPol = 4
	bfAxSpw     = 5
	bfAxVec     = 6
	bfAxComplex = 7
)

// Load reads a beamfits file (pyuvdata's UVBeam format) holding an
// E-field or power beam on an azimuth / zenith-angle grid. Axis values come
// from CRVAL/CDELT/CRPIX (degrees unless CUNIT says "rad"; frequencies in
// Hz unless CUNIT says kHz, MHz or GHz); E-field feeds from FEEDLIST (e/n
// mapped to x/y through XORIENT); basis vectors from the BASISVEC
// extension. The bandpass (BANDPARM) is not applied, as in matvis.
// HEALPix or orthoslant grids, 3-vector E-fields, more than one spectral
// window, unknown beam types and malformed files are errors.
//
// Anything but a regular file is refused (see inputfile.Open), and the
// sizes every HDU header declares are checked against the file's size
// before any of it is decoded.
func Load(path string) (*beam.Gridded, error) {
	return load(path, membudget.System())
}

// load is Load under m's memory budget (checkLoadSize).
func load(path string, m membudget.Machine) (*beam.Gridded, error) {
	f, size, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("beam: beamfits: %w", err)
	}
	defer f.Close()
	if err := checkFITSSizes(f, size); err != nil {
		return nil, fmt.Errorf("beam: beamfits %s: %w: %w", path, errNotFITS, err)
	}
	if err := checkLoadSize(m, f, size, path); err != nil {
		return nil, fmt.Errorf("beam: %w", err)
	}
	g, err := readBeamFITS(f, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("beam: beamfits %s: %w", path, err)
	}
	return g, nil
}

// readBeamFITS decodes an open beamfits file; name labels the beam.
func readBeamFITS(f *os.File, name string) (g *beam.Gridded, err error) {
	defer func() {
		// fitsio can panic on some malformed inputs; report those as errors.
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("not a readable FITS file: %v", r)
		}
	}()
	ff, err := fitsio.Open(f)
	if err != nil {
		return nil, fmt.Errorf("not a readable FITS file: %w", err)
	}
	defer ff.Close()
	hdus := ff.HDUs()
	if len(hdus) == 0 {
		return nil, errors.New("no HDUs: an empty file, not a readable FITS file")
	}
	prim, ok := hdus[0].(fitsio.Image)
	if !ok {
		return nil, errors.New("primary HDU is not an image")
	}
	b := bfHeader{h: prim.Header(), axes: prim.Header().Axes()}
	for i, a := range b.axes {
		if a < 1 {
			return nil, fmt.Errorf("NAXIS%d = %d: the beam has no pixels", i+1, a)
		}
	}
	spec := beam.GridSpec{Name: name}
	if spec.Type, err = b.beamType(); err != nil {
		return nil, err
	}
	if err := b.checkCoordSys(); err != nil {
		return nil, err
	}
	if spec.AzRad, spec.ZaRad, spec.FreqsHz, err = b.gridAxes(); err != nil {
		return nil, err
	}
	ncplx, err := b.vectorAxes(&spec)
	if err != nil {
		return nil, err
	}
	if err := b.feedPolAxis(&spec); err != nil {
		return nil, err
	}
	data, err := b.data(prim, &spec, ncplx)
	if err != nil {
		return nil, err
	}
	if err := readBasis(hdus[1:], &spec); err != nil {
		return nil, err
	}
	return beam.NewGridded(spec, data)
}

// bfHeader is a beamfits primary HDU's header and its axis lengths.
type bfHeader struct {
	h    *fitsio.Header
	axes []int
}

// ctype is axis ax's CTYPE, lower case.
func (b bfHeader) ctype(ax int) string {
	return strings.ToLower(strings.TrimSpace(hdrString(b.h, fmt.Sprintf("CTYPE%d", ax))))
}

// naxis is axis ax's length (1 beyond the last axis).
func (b bfHeader) naxis(ax int) int {
	if ax > len(b.axes) {
		return 1
	}
	return b.axes[ax-1]
}

// beamType reads BTYPE (or a Jy/beam BUNIT): E-field or power.
func (b bfHeader) beamType() (beam.GridType, error) {
	btype := strings.ToLower(strings.TrimSpace(hdrString(b.h, "BTYPE")))
	if btype == "" && strings.ToLower(strings.TrimSpace(hdrString(b.h, "BUNIT"))) == "jy/beam" {
		btype = "power"
	}
	if btype == "intensity" {
		btype = "power"
	}
	switch btype {
	case "efield":
		return beam.EField, nil
	case "power":
		return beam.Power, nil
	case "":
		return 0, errors.New("BTYPE missing: not a beamfits file (no beam type)")
	}
	return 0, fmt.Errorf("BTYPE = %q: unknown beam type, want \"efield\" or \"power\"", btype)
}

// checkCoordSys accepts only az_za pixels (COORDSYS, or as CTYPE1/2 say)
// and the axes a beamfits file has before the feed axis.
func (b bfHeader) checkCoordSys() error {
	ctype, n := b.ctype, len(b.axes)
	cs := strings.TrimSpace(hdrString(b.h, "COORDSYS"))
	if cs == "" {
		switch {
		case ctype(1) == "azimuth" && ctype(2) == "zenangle":
			cs = "az_za"
		case ctype(1) == "pix_ind":
			cs = "healpix"
		case ctype(1) == "zenx-sin" && ctype(2) == "zeny-sin":
			cs = "orthoslant_zenith"
		}
	}
	switch cs {
	case "az_za":
	case "":
		return fmt.Errorf("CTYPE1, CTYPE2 = %q, %q: not a beamfits pixel coordinate system", ctype(1), ctype(2))
	default:
		return fmt.Errorf("COORDSYS = %q: only az_za grids are supported", cs)
	}
	if ctype(1) != "azimuth" || ctype(2) != "zenangle" {
		return fmt.Errorf("CTYPE1, CTYPE2 = %q, %q: want AZIMUTH, ZENANGLE for an az_za beam", ctype(1), ctype(2))
	}
	if n < bfAxFeedPol {
		return fmt.Errorf("NAXIS = %d: a beamfits primary HDU has at least 4 axes", n)
	}
	if ctype(bfAxFreq) != "freq" {
		return fmt.Errorf("CTYPE3 = %q: want FREQ", ctype(bfAxFreq))
	}
	return nil
}

// gridAxes reads the azimuth and zenith-angle axes in radians and the
// frequency axis in Hz.
func (b bfHeader) gridAxes() (az, za, freqs []float64, err error) {
	if az, err = hduAxis(b.h, bfAxAz, b.naxis(bfAxAz)); err != nil {
		return nil, nil, nil, err
	}
	if za, err = hduAxis(b.h, bfAxZa, b.naxis(bfAxZa)); err != nil {
		return nil, nil, nil, err
	}
	for _, a := range []struct {
		ax int
		v  []float64
	}{{bfAxAz, az}, {bfAxZa, za}} {
		switch u := hdrStringDefault(b.h, fmt.Sprintf("CUNIT%d", a.ax), "deg"); u {
		case "deg":
			for i := range a.v {
				a.v[i] *= deg2rad()
			}
		case "rad":
		default:
			return nil, nil, nil, fmt.Errorf("CUNIT%d = %q: want \"deg\" or \"rad\"", a.ax, u)
		}
	}
	if freqs, err = hduAxis(b.h, bfAxFreq, b.naxis(bfAxFreq)); err != nil {
		return nil, nil, nil, err
	}
	switch u := hdrStringDefault(b.h, "CUNIT3", "Hz"); u {
	case "Hz":
	case "kHz", "MHz", "GHz":
		fac := map[string]float64{"kHz": 1e3, "MHz": 1e6, "GHz": 1e9}[u]
		for i := range freqs {
			freqs[i] *= fac
		}
	default:
		return nil, nil, nil, fmt.Errorf("CUNIT3 = %q: frequency units not recognised", u)
	}
	return az, za, freqs, nil
}

// vectorAxes checks the spectral-window, vector and complex axes, sets
// spec.NAxesVec and returns the complex axis's length (1: real data).
func (b bfHeader) vectorAxes(spec *beam.GridSpec) (ncplx int, err error) {
	ctype, naxis, n := b.ctype, b.naxis, len(b.axes)
	if n >= bfAxSpw {
		if ctype(bfAxSpw) != "if" {
			return 0, fmt.Errorf("CTYPE5 = %q: want IF", ctype(bfAxSpw))
		}
		if naxis(bfAxSpw) != 1 {
			return 0, fmt.Errorf("NAXIS5 = %d: more than one spectral window is not supported", naxis(bfAxSpw))
		}
	}
	spec.NAxesVec = 1
	if n >= bfAxVec {
		if ctype(bfAxVec) != "vecind" {
			return 0, fmt.Errorf("CTYPE6 = %q: want VECIND", ctype(bfAxVec))
		}
		spec.NAxesVec = naxis(bfAxVec)
	} else if spec.Type == beam.EField {
		return 0, fmt.Errorf("NAXIS = %d: an E-field beam needs 7 axes", n)
	}
	ncplx = 1
	if n >= bfAxComplex {
		if ctype(bfAxComplex) != "complex" {
			return 0, fmt.Errorf("CTYPE7 = %q: want COMPLEX", ctype(bfAxComplex))
		}
		ncplx = naxis(bfAxComplex)
		if ncplx != 2 {
			return 0, fmt.Errorf("NAXIS7 = %d: the complex axis must have 2 entries", ncplx)
		}
	} else if spec.Type == beam.EField {
		return 0, fmt.Errorf("NAXIS = %d: an E-field beam needs 7 axes", n)
	}
	if n > bfAxComplex {
		return 0, fmt.Errorf("NAXIS = %d: at most 7 axes expected", n)
	}
	return ncplx, nil
}

// feedPolAxis reads the feed axis of an E-field beam (FEEDLIST) or the
// polarisation axis of a power beam into spec.
func (b bfHeader) feedPolAxis(spec *beam.GridSpec) error {
	ncomp := b.naxis(bfAxFeedPol)
	switch spec.Type {
	case beam.EField:
		if c := b.ctype(bfAxFeedPol); c != "feedind" {
			return fmt.Errorf("CTYPE4 = %q: want FEEDIND for an E-field beam", c)
		}
		feeds, err := beamfitsFeeds(b.h)
		if err != nil {
			return err
		}
		if len(feeds) != ncomp {
			return fmt.Errorf("FEEDLIST has %d feeds %v, the feed axis NAXIS4 = %d", len(feeds), feeds, ncomp)
		}
		spec.Feeds = feeds
		if spec.NAxesVec != 2 {
			return fmt.Errorf("NAXIS6 = %d: only 2-vector E-fields (θ̂, φ̂) are supported", spec.NAxesVec)
		}
	case beam.Power:
		if c := b.ctype(bfAxFeedPol); c != "stokes" {
			return fmt.Errorf("CTYPE4 = %q: want STOKES for a power beam", c)
		}
		pv, err := hduAxis(b.h, bfAxFeedPol, ncomp)
		if err != nil {
			return err
		}
		for _, p := range pv {
			if p != math.Round(p) {
				return fmt.Errorf("polarisation axis value %v is not an integer", p)
			}
			spec.Pols = append(spec.Pols, int(p))
		}
	}
	return nil
}

// data reads the primary image as complex values (FITS order: az fastest,
// then za, freq, feed/pol, spw, vec, complex); auto-polarisation power
// beams are kept real, as pyuvdata's fix_auto_power does.
func (b bfHeader) data(prim fitsio.Image, spec *beam.GridSpec, ncplx int) ([]complex128, error) {
	ncomp, nvec := b.naxis(bfAxFeedPol), spec.NAxesVec
	nval := b.naxis(1) * b.naxis(2) * b.naxis(3) * ncomp * nvec
	raw, err := imageFloats(prim, nval*ncplx)
	if err != nil {
		return nil, fmt.Errorf("primary data: %w", err)
	}
	data := make([]complex128, nval)
	for i := range data {
		if ncplx == 2 {
			data[i] = complex(raw[i], raw[nval+i])
		} else {
			data[i] = complex(raw[i], 0)
		}
	}
	if spec.Type != beam.Power {
		return data, nil
	}
	np := b.naxis(1) * b.naxis(2) * b.naxis(3)
	for v := 0; v < nvec; v++ {
		for c, p := range spec.Pols {
			if p == beam.PolXX || p == beam.PolYY || p > 0 || p == -1 || p == -2 {
				off := (v*ncomp + c) * np
				for i := off; i < off+np; i++ {
					data[i] = complex(real(data[i]), 0)
				}
			}
		}
	}
	return data, nil
}

// readBasis reads the BASISVEC extension among ext, which an E-field beam
// needs (spec.Basis, nil when aligned with the grid's az/za unit vectors)
// and a power beam may have (checked, not kept).
func readBasis(ext []fitsio.HDU, spec *beam.GridSpec) error {
	var bv fitsio.HDU
	for _, hd := range ext {
		if strings.EqualFold(strings.TrimSpace(hd.Name()), "BASISVEC") {
			bv = hd
		}
	}
	switch {
	case bv != nil:
		basis, err := readBasisVec(bv, spec.AzRad, spec.ZaRad, spec.NAxesVec)
		if err != nil {
			return fmt.Errorf("BASISVEC: %w", err)
		}
		if spec.Type == beam.EField {
			if isAlignedBasis(basis, spec.NAxesVec, len(spec.ZaRad)*len(spec.AzRad)) {
				basis = nil
			}
			spec.Basis = basis
		}
	case spec.Type == beam.EField:
		return errors.New("E-field beam without a BASISVEC extension: basis vectors unknown")
	}
	return nil
}

// hdrString returns a header card's string value ("" when absent or not a
// string).
func hdrString(h *fitsio.Header, key string) string {
	c := h.Get(key)
	if c == nil {
		return ""
	}
	s, _ := c.Value.(string)
	return s
}

func hdrStringDefault(h *fitsio.Header, key, def string) string {
	if c := h.Get(key); c != nil {
		if s, ok := c.Value.(string); ok {
			return strings.TrimSpace(s)
		}
	}
	return def
}

// hdrNumber returns a numeric card as float64.
func hdrNumber(h *fitsio.Header, key string) (float64, error) {
	c := h.Get(key)
	if c == nil {
		return 0, fmt.Errorf("%s missing", key)
	}
	switch v := c.Value.(type) {
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	}
	return 0, fmt.Errorf("%s = %v (%T): not a number", key, c.Value, c.Value)
}

// hduAxis is pyuvdata's _gethduaxis: CDELT·(i − (CRPIX − 1)) + CRVAL.
func hduAxis(h *fitsio.Header, ax, n int) ([]float64, error) {
	var vals [3]float64
	for i, k := range []string{"CRVAL", "CDELT", "CRPIX"} {
		v, err := hdrNumber(h, fmt.Sprintf("%s%d", k, ax))
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	val, delta, index := vals[0], vals[1], vals[2]-1
	out := make([]float64, n)
	for i := range out {
		out[i] = delta*(float64(i)-index) + val
	}
	return out, nil
}

// beamfitsFeeds parses FEEDLIST ("[x, y]"), mapping e/n to x/y through
// XORIENT (or, absent, the order of e and n) as pyuvdata does.
func beamfitsFeeds(h *fitsio.Header) ([]string, error) {
	fl := strings.TrimSpace(hdrString(h, "FEEDLIST"))
	if fl == "" {
		return nil, errors.New("FEEDLIST missing: the feeds of the E-field beam are unknown")
	}
	if len(fl) < 2 || fl[0] != '[' || fl[len(fl)-1] != ']' {
		return nil, fmt.Errorf("FEEDLIST = %q: want a list like \"[x, y]\"", fl)
	}
	var feeds []string
	for _, s := range strings.Split(fl[1:len(fl)-1], ",") {
		s = strings.ToLower(strings.Trim(strings.TrimSpace(s), "'\""))
		if s == "" {
			return nil, fmt.Errorf("FEEDLIST = %q: empty feed name", fl)
		}
		feeds = append(feeds, s)
	}
	ie, in := -1, -1
	for i, s := range feeds {
		switch s {
		case "e":
			ie = i
		case "n":
			in = i
		}
	}
	if ie >= 0 && in >= 0 {
		xo := strings.ToLower(strings.TrimSpace(hdrString(h, "XORIENT")))
		if xo == "" {
			xo = "north"
			if ie < in {
				xo = "east"
			}
		}
		switch xo {
		case "east", "e", "ew":
			feeds[ie], feeds[in] = "x", "y"
		case "north", "n", "ns":
			feeds[in], feeds[ie] = "x", "y"
		default:
			return nil, fmt.Errorf("XORIENT = %q: want east or north", xo)
		}
	}
	return feeds, nil
}

// imageFloats decodes the first want pixels of an image HDU (BITPIX −32 or
// −64, or integers with BSCALE/BZERO) as float64.
func imageFloats(img fitsio.HDU, want int) ([]float64, error) {
	im, ok := img.(fitsio.Image)
	if !ok {
		return nil, errors.New("not an image HDU")
	}
	h := im.Header()
	total := 1
	for _, a := range h.Axes() {
		if a < 0 {
			return nil, fmt.Errorf("negative axis length %d", a)
		}
		total *= a
	}
	if len(h.Axes()) == 0 {
		total = 0
	}
	if total != want {
		return nil, fmt.Errorf("%d pixels, expected %d", total, want)
	}
	bitpix := h.Bitpix()
	size := bitpix / 8
	if size < 0 {
		size = -size
	}
	raw := im.Raw()
	if size == 0 || len(raw) < want*size {
		return nil, fmt.Errorf("data holds %d bytes, %d pixels of BITPIX %d need %d (truncated file?)", len(raw), want, bitpix, want*size)
	}
	scale, zero := 1.0, 0.0
	if v, err := hdrNumber(h, "BSCALE"); err == nil {
		scale = v
	}
	if v, err := hdrNumber(h, "BZERO"); err == nil {
		zero = v
	}
	out := make([]float64, want)
	be := binary.BigEndian
	for i := range out {
		b := raw[i*size:]
		var v float64
		switch bitpix {
		case -64:
			v = math.Float64frombits(be.Uint64(b))
		case -32:
			v = float64(math.Float32frombits(be.Uint32(b)))
		case 8:
			v = float64(b[0])
		case 16:
			v = float64(int16(be.Uint16(b)))
		case 32:
			v = float64(int32(be.Uint32(b)))
		case 64:
			v = float64(int64(be.Uint64(b)))
		default:
			return nil, fmt.Errorf("BITPIX = %d not supported", bitpix)
		}
		if bitpix > 0 {
			v = v*scale + zero
		}
		out[i] = v
	}
	return out, nil
}

// readBasisVec reads the BASISVEC extension, checking it matches the grid:
// FITS axes az, za, component, vector axis; returned in pyuvdata's
// (Naxes_vec, Ncomponents_vec, Nza, Naz) order.
func readBasisVec(hd fitsio.HDU, az, za []float64, nvec int) ([]float64, error) {
	im, ok := hd.(fitsio.Image)
	if !ok {
		return nil, errors.New("not an image HDU")
	}
	h := im.Header()
	axes := h.Axes()
	if len(axes) != 4 {
		return nil, fmt.Errorf("NAXIS = %d, want 4", len(axes))
	}
	if cs := strings.TrimSpace(hdrString(h, "COORDSYS")); cs != "az_za" {
		return nil, fmt.Errorf("COORDSYS = %q, the primary HDU's is az_za", cs)
	}
	if axes[0] != len(az) || axes[1] != len(za) {
		return nil, fmt.Errorf("grid %d × %d, the primary HDU's is %d × %d", axes[0], axes[1], len(az), len(za))
	}
	for i, ref := range [][]float64{az, za} {
		ax := i + 1
		v, err := hduAxis(h, ax, axes[i])
		if err != nil {
			return nil, err
		}
		switch u := hdrStringDefault(h, fmt.Sprintf("CUNIT%d", ax), "deg"); u {
		case "deg":
			for k := range v {
				v[k] *= deg2rad()
			}
		case "rad":
		default:
			return nil, fmt.Errorf("CUNIT%d = %q: want \"deg\" or \"rad\"", ax, u)
		}
		for k := range v {
			if v[k] != ref[k] {
				return nil, fmt.Errorf("axis %d value %d is %v, the primary HDU's is %v", ax, k, v[k], ref[k])
			}
		}
	}
	if axes[2] != 2 {
		return nil, fmt.Errorf("%d basis components: only 2 (θ̂, φ̂) are supported", axes[2])
	}
	if axes[3] != nvec {
		return nil, fmt.Errorf("%d vector axes, the primary HDU has %d", axes[3], nvec)
	}
	return imageFloats(im, axes[0]*axes[1]*axes[2]*axes[3])
}

// isAlignedBasis reports basis vectors that are the identity everywhere
// (axis k along component k), the common case.
func isAlignedBasis(b []float64, nvec, npix int) bool {
	if nvec != 2 {
		return false
	}
	for v := 0; v < 2; v++ {
		for c := 0; c < 2; c++ {
			want := 0.0
			if v == c {
				want = 1
			}
			for _, x := range b[(v*2+c)*npix : (v*2+c+1)*npix] {
				if x != want {
					return false
				}
			}
		}
	}
	return true
}

// deg2rad is numpy's degree → radian factor, π/180 rounded in float64
// arithmetic (not the exactly rounded constant).
func deg2rad() float64 {
	pi := math.Pi
	return pi / 180
}
