package skymodel

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gomatvis/gomatvis/internal/h5read"
	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis/skymodel/healpix"
)

// ReadSkyH5File reads pyradiosky's SkyH5 format (SkyModel.write_skyh5,
// and the older layouts SkyModel.read_skyh5 still accepts):
//
//	/Header: component_type ("point" | "healpix"), Ncomponents, Nfreqs,
//	  spectral_type; point: name and skycoord/{ra,dec | l,b, frame} (older
//	  files: ra, dec or lon, lat, frame); healpix: nside, hpx_inds,
//	  hpx_order (ring if absent), hpx_frame/frame or frame (icrs if absent);
//	  freq_array, reference_frequency, spectral_index as the type needs.
//	/Data/stokes: (4, Nfreqs, Ncomponents) with a "unit" attribute: Jy or
//	  K sr for points, Jy/sr or K for HEALPix.
//
// HEALPix pixels become point components at their centres with flux =
// brightness × 4π/(12·nside²) (pyradiosky's healpix_to_point); brightness
// temperatures are converted to Jy with JyPerKSr in pyuvsim's order (see
// Sky.InKelvin). FK5 J2000 and galactic positions are rotated to ICRS. A
// subband file without freq_edge_array whose frequencies are not evenly
// spaced (within 1 Hz) is read as full, as pyradiosky does. Corrupt or
// hostile files give errors naming the file and the dataset or structure
// at fault: internal/h5read checks every declared size against the file's
// before allocating.
//
// Before reading any data it sizes the sky from /Header (skyTerms) and
// refuses one over the machine's memory budget (internal/membudget).
func ReadSkyH5File(path string) (*Sky, error) {
	return readSkyH5File(path, 0)
}

// readSkyH5File is ReadSkyH5File under a budget of maxMemory (0: the
// machine's).
func readSkyH5File(path string, maxMemory int64) (*Sky, error) {
	// Only a regular file: a FIFO would block, /dev/zero never end.
	fh, size, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := h5read.Open(fh, size)
	if err != nil {
		return nil, &ParseError{File: path, Err: fmt.Errorf("not a readable HDF5 file: %w", err)}
	}
	h, err := indexH5(f, path)
	if err != nil {
		return nil, err
	}
	if !h.groups["/Header"] {
		return nil, &ParseError{File: path, Err: errNotSkyH5}
	}
	return h.readSky(maxMemory)
}

// skyh5Header is what /Header declares.
type skyh5Header struct {
	healpix bool
	n, nf   int
	spec    SpectralType
}

func (h *h5file) readHeader() (skyh5Header, error) {
	var hd skyh5Header
	ct, err := h.str("/Header/component_type")
	if err != nil {
		return hd, err
	}
	switch ct {
	case "point":
	case "healpix":
		hd.healpix = true
	default:
		return hd, h.errf("/Header/component_type", ct, "want point or healpix")
	}
	if hd.n, err = h.scalarInt("/Header/Ncomponents"); err != nil {
		return hd, err
	}
	if hd.nf, err = h.scalarInt("/Header/Nfreqs"); err != nil {
		return hd, err
	}
	if hd.n == 0 || hd.nf == 0 {
		return hd, h.errf("/Header", fmt.Sprintf("Ncomponents=%d Nfreqs=%d", hd.n, hd.nf), "empty sky")
	}
	spec, err := h.str("/Header/spectral_type")
	if err != nil {
		return hd, err
	}
	if hd.spec, err = ParseSpectralType(spec); err != nil {
		return hd, h.errf("/Header/spectral_type", spec, "%w", err)
	}
	return hd, nil
}

func (h *h5file) readSky(maxMemory int64) (*Sky, error) {
	hd, err := h.readHeader()
	if err != nil {
		return nil, err
	}
	// The shape first: a header contradicting the data is the fault to
	// name, not the size it declares.
	if err := h.checkStokesShape(hd); err != nil {
		return nil, err
	}
	if err := h.checkSkySize(hd, maxMemory); err != nil {
		return nil, err
	}
	c := Components{Spectral: hd.spec}
	unit, err := h.readStokes(hd, &c)
	if err != nil {
		return nil, err
	}
	if err := h.readSpectrum(hd, &c); err != nil {
		return nil, err
	}
	omega := 0.0
	if hd.healpix {
		nside, err := h.readHealpix(hd, &c)
		if err != nil {
			return nil, err
		}
		omega = healpix.PixelArea(nside)
	} else if err := h.readPoints(hd, &c); err != nil {
		return nil, err
	}
	return build(h.name, c, unit, omega)
}

// stokesPath is where a SkyH5 keeps its Stokes parameters.
const stokesPath = "/Data/stokes"

// checkStokesShape checks /Data/stokes's shape against the header.
func (h *h5file) checkStokesShape(hd skyh5Header) error {
	dims, err := h.shape(stokesPath)
	if err != nil {
		return err
	}
	if len(dims) != 3 || dims[0] != 4 || dims[1] != hd.nf || dims[2] != hd.n {
		return h.errf(stokesPath, fmt.Sprint(dims), "shape does not match (4, Nfreqs=%d, Ncomponents=%d)", hd.nf, hd.n)
	}
	return nil
}

// readStokes reads /Data/stokes after checking its shape against the header.
func (h *h5file) readStokes(hd skyh5Header, c *Components) (fluxUnit, error) {
	const path = stokesPath
	if err := h.checkStokesShape(hd); err != nil {
		return fluxUnit{}, err
	}
	us, ok, err := h.attrString(path, "unit")
	if err != nil {
		return fluxUnit{}, err
	}
	if !ok {
		return fluxUnit{}, h.errf(path, "", "no unit attribute")
	}
	u, err := parseFluxUnit(us)
	if err != nil {
		return u, h.errf(path+" attribute unit", us, "%w", err)
	}
	if u.perSr != hd.healpix {
		return u, h.errf(path+" attribute unit", us, "unit does not suit component_type (point: Jy or K sr; healpix: Jy/sr or K)")
	}
	v, err := h.floats(path, 4*hd.nf*hd.n)
	if err != nil {
		return u, err
	}
	m := hd.nf * hd.n
	for p := range 4 {
		c.Stokes[p] = v[p*m : (p+1)*m : (p+1)*m]
	}
	if hd.spec != Subband {
		for k, x := range v {
			if !finite(x) {
				return u, h.errf(path, fmt.Sprint(x), "element %d (Stokes %c, frequency %d, component %d) is not finite",
					k, "IQUV"[k/m], k%m/hd.n, k%hd.n)
			}
		}
	}
	dropZeroStokes(&c.Stokes)
	return u, nil
}

// dropZeroStokes sets all-zero Q, U and V to nil (zero, to New) and, when
// any was dropped, gives the others arrays of their own: they are slices
// of the one (4, Nfreqs, N) read, which a Stokes-I sky would otherwise
// hold whole (4× its size) for as long as it lives.
func dropZeroStokes(st *[4][]float64) {
	dropped := false
	for p := 1; p < 4; p++ {
		if allZero(st[p]) {
			st[p], dropped = nil, true
		}
	}
	if !dropped {
		return
	}
	for p := range st {
		if st[p] != nil {
			st[p] = slices.Clone(st[p])
		}
	}
}

// readSpectrum reads the frequency information the spectral type needs.
func (h *h5file) readSpectrum(hd skyh5Header, c *Components) error {
	var err error
	switch hd.spec {
	case Subband, Full:
		if c.Freqs, err = h.positiveFreqs("/Header/freq_array", hd.nf); err != nil {
			return err
		}
		if hd.spec == Subband && !h.has("/Header/freq_edge_array") && !evenlySpaced(c.Freqs, 1) {
			c.Spectral = Full // pyradiosky: "spectral_type will be set to 'full'"
		}
	case SpectralIndex, Flat:
		if hd.nf != 1 {
			return h.errf("/Header/Nfreqs", fmt.Sprint(hd.nf), "a %s sky has Nfreqs = 1", hd.spec)
		}
		if h.has("/Header/reference_frequency") || hd.spec == SpectralIndex {
			if c.RefFreq, err = h.positiveFreqs("/Header/reference_frequency", hd.n); err != nil {
				return err
			}
		}
		if hd.spec == Flat && c.RefFreq == nil && h.has("/Header/freq_array") {
			if c.Freqs, err = h.positiveFreqs("/Header/freq_array", 1); err != nil {
				return err
			}
		}
		if hd.spec == SpectralIndex {
			if c.Index, err = h.floats("/Header/spectral_index", hd.n); err != nil {
				return err
			}
			for i, a := range c.Index {
				if !finite(a) {
					return h.errf("/Header/spectral_index", fmt.Sprint(a), "component %d: not finite", i)
				}
			}
		}
	}
	return nil
}

func (h *h5file) positiveFreqs(path string, n int) ([]float64, error) {
	v, err := h.scaledFloats(path, n, freqUnits, "Hz")
	if err != nil {
		return nil, err
	}
	for i, f := range v {
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, h.errf(path, fmt.Sprint(f), "element %d: frequency must be positive and finite", i)
		}
	}
	return v, nil
}

// evenlySpaced reports whether the spacing of x is constant within tol.
func evenlySpaced(x []float64, tol float64) bool {
	if len(x) < 2 {
		return false
	}
	d0 := (x[len(x)-1] - x[0]) / float64(len(x)-1)
	for k := 1; k < len(x); k++ {
		if math.Abs(x[k]-x[k-1]-d0) > tol {
			return false
		}
	}
	return true
}

// readPoints reads names and positions of point components.
func (h *h5file) readPoints(hd skyh5Header, c *Components) error {
	names, err := h.strs("/Header/name")
	if err != nil {
		return err
	}
	if len(names) != hd.n {
		return h.errf("/Header/name", "", "%d names, Ncomponents is %d", len(names), hd.n)
	}
	c.Names = names
	g, lonName, latName, frameName, err := h.pointCoordinates()
	if err != nil {
		return err
	}
	fr, err := ParseFrame(frameName)
	if err != nil {
		return h.errf(g+"/frame", frameName, "%w", err)
	}
	if c.RA, err = h.scaledFloats(g+"/"+lonName, hd.n, angleUnits, "deg"); err != nil {
		return err
	}
	if c.Dec, err = h.scaledFloats(g+"/"+latName, hd.n, angleUnits, "deg"); err != nil {
		return err
	}
	for i := range c.RA {
		// Each coordinate is blamed on its own dataset: a NaN in ra was
		// reported as dec.
		if !finite(c.RA[i]) {
			return h.errf(g+"/"+lonName, fmt.Sprint(c.RA[i]), "component %d: not finite: want a longitude", i)
		}
		if !finite(c.Dec[i]) || math.Abs(c.Dec[i]) > math.Pi/2 {
			return h.errf(g+"/"+latName, fmt.Sprintf("%v (%.6g°)", c.Dec[i], c.Dec[i]*180/math.Pi), "component %d: want a finite latitude from −90° to 90°", i)
		}
		if ra := c.RA[i]; !(ra >= 0 && ra < 2*math.Pi) { // math.Mod (slow) returns ra itself there
			c.RA[i] = math.Mod(ra, 2*math.Pi)
			if c.RA[i] < 0 {
				c.RA[i] += 2 * math.Pi
			}
		}
	}
	ToICRS(fr, c.RA, c.Dec)
	return nil
}

// pointCoordinates finds where a point file keeps its positions: the
// Header/skycoord group (current pyradiosky), else Header/lon, lat and
// frame, else Header/ra and dec (older files; frame icrs if absent).
func (h *h5file) pointCoordinates() (group, lon, lat, frame string, err error) {
	switch {
	case h.groups["/Header/skycoord"]:
		group = "/Header/skycoord"
		// err is the function's: a := here shadowed it, and the frame's
		// read error below was dropped (the frame read as "").
		var rep string
		rep, err = h.optStr(group+"/representation_type", "spherical")
		if err != nil {
			return "", "", "", "", err
		}
		if rep != "spherical" && rep != "unitspherical" {
			return "", "", "", "", h.errf(group+"/representation_type", rep, "only spherical positions are supported")
		}
		lon, lat = "ra", "dec"
		frame, err = h.optStr(group+"/frame", "icrs")
		if frame == "galactic" {
			lon, lat = "l", "b"
		}
	case h.has("/Header/lon") && h.has("/Header/lat") && h.has("/Header/frame"):
		group, lon, lat = "/Header", "lon", "lat"
		frame, err = h.str("/Header/frame")
	case h.has("/Header/ra") && h.has("/Header/dec"):
		group, lon, lat = "/Header", "ra", "dec"
		frame, err = h.optStr("/Header/frame", "icrs")
	default:
		// A link in place of the positions' group or datasets is named as
		// one, not read as positions missing.
		for _, p := range []string{"/Header/skycoord", "/Header/lon", "/Header/lat", "/Header/ra", "/Header/dec"} {
			if desc, ok := h.f.Link(p); ok {
				return "", "", "", "", h.errf(p, "", "%s: %w", desc, h5read.ErrLinkNotFollowed)
			}
		}
		return "", "", "", "", h.errf("/Header", "", "no component location information (skycoord, lon/lat/frame or ra/dec)")
	}
	if err == nil {
		err = h.checkFrameEquinox(group)
	}
	return group, lon, lat, frame, err
}

// checkFrameEquinox refuses an FK5 frame whose equinox is not J2000.
func (h *h5file) checkFrameEquinox(g string) error {
	if !h.has(g + "/equinox") {
		return nil
	}
	eq, err := h.str(g + "/equinox")
	if err != nil {
		return err
	}
	if e := strings.TrimRight(strings.TrimPrefix(eq, "J2000"), "0"); e != "" && e != "." {
		return h.errf(g+"/equinox", eq, "only equinox J2000 is supported")
	}
	return nil
}

func (h *h5file) optStr(path, def string) (string, error) {
	if !h.has(path) {
		return def, nil
	}
	return h.str(path)
}

// readHealpix turns HEALPix pixels into components at the pixel centres.
func (h *h5file) readHealpix(hd skyh5Header, c *Components) (int, error) {
	nside, err := h.scalarInt("/Header/nside")
	if err != nil {
		return 0, err
	}
	order, err := h.optStr("/Header/hpx_order", "ring")
	if err != nil {
		return 0, err
	}
	order = strings.ToLower(order)
	if order != "ring" && order != "nested" {
		return 0, h.errf("/Header/hpx_order", order, "want ring or nested")
	}
	nest := order == "nested"
	if err := healpix.CheckNside(nside, nest); err != nil {
		return 0, h.errf("/Header/nside", fmt.Sprint(nside), "%w", err)
	}
	frameName, err := h.healpixFrame()
	if err != nil {
		return 0, err
	}
	fr, err := ParseFrame(frameName)
	if err != nil {
		return 0, h.errf("/Header/hpx_frame", frameName, "%w", err)
	}
	inds, err := h.floats("/Header/hpx_inds", hd.n)
	if err != nil {
		return 0, err
	}
	c.RA, c.Dec, c.Names = make([]float64, hd.n), make([]float64, hd.n), make([]string, hd.n)
	for i, p := range inds {
		th, ph, err := healpix.Pix2Ang(nside, int64(p), nest)
		if err != nil || p != math.Trunc(p) {
			return 0, h.errf("/Header/hpx_inds", fmt.Sprint(p), "element %d: invalid pixel index for nside %d", i, nside)
		}
		c.RA[i], c.Dec[i] = ph, math.Pi/2-th
		c.Names[i] = fmt.Sprintf("nside%d_%s_%d", nside, order, int64(p))
	}
	if i, j, ok := repeatedPixel(inds, healpix.Npix(nside)); ok {
		return 0, h.errf("/Header/hpx_inds", fmt.Sprint(inds[j]), "element %d repeats element %d: each pixel must appear once (a map with a pixel twice counts its flux twice, and is usually missing another)", j, i)
	}
	ToICRS(fr, c.RA, c.Dec)
	return nside, nil
}

// repeatedPixel finds a pixel index that appears twice in inds (whole
// numbers in [0, npix)), returning its first two positions (i < j). A sorted map (pyradiosky writes them so) is
// checked in place; otherwise a bitmap of the npix pixels when it is no
// larger than a copy of inds, else a sorted copy.
func repeatedPixel(inds []float64, npix int64) (i, j int, ok bool) {
	sorted := true
	for k := 1; k < len(inds) && sorted; k++ {
		sorted = inds[k] > inds[k-1]
	}
	if sorted {
		return 0, 0, false
	}
	dup := -1.0
	if npix <= 64*int64(len(inds)) {
		seen := make([]uint64, (npix+63)/64)
		for _, p := range inds {
			w, b := int64(p)/64, uint64(1)<<(int64(p)%64)
			if seen[w]&b != 0 {
				dup = p
				break
			}
			seen[w] |= b
		}
	} else {
		// Whole numbers: sorted as integers, 3× faster than as floats.
		c := make([]int64, len(inds))
		for k, p := range inds {
			c[k] = int64(p)
		}
		slices.Sort(c)
		for k := 1; k < len(c); k++ {
			if c[k] == c[k-1] {
				dup = float64(c[k])
				break
			}
		}
	}
	if dup < 0 {
		return 0, 0, false
	}
	i = slices.Index(inds, dup)
	j = i + 1 + slices.Index(inds[i+1:], dup)
	return i, j, true
}

// healpixFrame finds the map's frame: /Header/hpx_frame (group with a
// "frame" entry, or a string), else /Header/frame, else icrs.
func (h *h5file) healpixFrame() (string, error) {
	switch {
	case h.groups["/Header/hpx_frame"]:
		if err := h.checkFrameEquinox("/Header/hpx_frame"); err != nil {
			return "", err
		}
		return h.str("/Header/hpx_frame/frame")
	case h.has("/Header/hpx_frame"):
		return h.str("/Header/hpx_frame")
	}
	return h.optStr("/Header/frame", "icrs")
}
