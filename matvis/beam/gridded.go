package beam

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// GridType is the kind of quantity a gridded beam holds.
type GridType int

// Gridded beam types, as pyuvdata's UVBeam.beam_type.
const (
	// EField beams hold complex E-field components per feed and basis
	// vector axis.
	EField GridType = iota
	// Power beams hold (auto or cross) polarisation power products.
	Power
)

// String returns "efield" or "power".
func (t GridType) String() string {
	if t == Power {
		return "power"
	}
	return "efield"
}

// FreqTolHz is pyuvdata's default freq_interp_tol: a requested frequency
// closer than this to a beam channel uses that channel unchanged.
const FreqTolHz = 1.0

// azExtend is the number of azimuth columns pyuvdata copies onto each side
// of a grid whose azimuths wrap around.
const azExtend = 3

// Linear polarisation numbers (AIPS convention, as pyuvdata's
// polarization_array).
const (
	PolXX = -5
	PolYY = -6
	PolXY = -7
	PolYX = -8
)

// GridSpec describes the axes of a gridded beam; see NewGridded.
type GridSpec struct {
	// Name describes the beam in logs and errors (e.g. the file name).
	Name string
	// Type is EField or Power.
	Type GridType
	// AzRad are the azimuth samples (radians, East towards North),
	// strictly increasing and evenly spaced, at least 2.
	AzRad []float64
	// ZaRad are the zenith-angle samples (radians), strictly increasing
	// and evenly spaced, at least 2.
	ZaRad []float64
	// FreqsHz are the beam channels, strictly increasing.
	FreqsHz []float64
	// Feeds are the feed names in feed_array order ("x", "y"); required
	// for E-field beams.
	Feeds []string
	// Pols are the polarisation numbers of a power beam's products
	// (PolXX, PolYY, ..., or 1 for pseudo-Stokes I); required for power
	// beams.
	Pols []int
	// NAxesVec is the number of basis-vector axes (2 for E-field az/za
	// beams, usually 1 for power beams).
	NAxesVec int
	// Basis, optional, holds the basis vectors of an E-field beam, shape
	// (NAxesVec, 2, len(ZaRad), len(AzRad)) row-major; nil means the
	// aligned basis, in pyuvdata's order for az/za beams: axis 0 = φ̂
	// (azimuth, East through North), axis 1 = θ̂ (zenith angle), as
	// matvis.Coherency reads them. It only enters the E-field → power
	// conversion, as in pyuvdata's efield_to_power.
	Basis []float64
}

// Gridded is a beam sampled on an azimuth / zenith-angle grid over
// frequency: a beamfits file, or an analytic beam sampled by
// NewGriddedFromAnalytic. It reproduces what matvis's CPU backend gets from
// pyuvdata (UVBeam.interp with "az_za_map_coordinates"): frequency
// interpolation (nearest channel within 1 Hz, otherwise cubic, or the kind
// WithFreqInterp gives), the
// 3-column azimuth extension of a wrapping grid, and spatial interpolation
// by scipy.ndimage.map_coordinates (prefiltered cubic B-spline by default,
// bilinear with order 1), out-of-grid = 0. WithSpatialInterp chooses
// pyuvdata's default spatial interpolation instead, "az_za_simple"
// (pyuvsim's): the bicubic interpolating spline of RectBivariateSpline.
//
// The raw grid is stored once, as float64 or (WithPrecision(1)) float32,
// and shared by the values WithOrder, WithFreqInterp, WithSpatialInterp
// and WithPrecision return. A Gridded is
// immutable and safe for concurrent use.
type Gridded struct {
	spec  GridSpec
	ncomp int // feeds (E-field) or pols (power)
	cplx  bool
	// raw grid, layout [vec][comp][freq][za][az], interleaved re/im when
	// cplx; exactly one of d64, d32 is set.
	d64   []float64
	d32   []float32
	order int
	// freqKind is the frequency interpolation kind (WithFreqInterp);
	// "" is the default, cubic.
	freqKind string
	// spatial is the spatial interpolation (WithSpatialInterp); "" is
	// the default, map_coordinates.
	spatial string
	// pole: the planes continue through the pole where they can
	// (WithPole, PoleApplies); false is the edge treatment.
	pole bool
}

// NewGridded builds a gridded beam from its axes and data. data has
// pyuvdata's data_array layout (NAxesVec, Nfeeds or Npols, Nfreqs, Nza,
// Naz), row-major. The beam interpolates with cubic splines (order 3) in
// float64; see WithOrder and WithPrecision.
func NewGridded(spec GridSpec, data []complex128) (*Gridded, error) {
	g, err := newGriddedShape(spec)
	if err != nil {
		return nil, err
	}
	if want := g.nvals(); len(data) != want {
		return nil, fmt.Errorf("beam: %s: data has %d values, want NAxesVec·N%s·Nfreqs·Nza·Naz = %d·%d·%d·%d·%d = %d",
			g, len(data), compWord(spec.Type), spec.NAxesVec, g.ncomp, len(spec.FreqsHz), len(spec.ZaRad), len(spec.AzRad), want)
	}
	for i, v := range data {
		if math.IsNaN(real(v)) || math.IsNaN(imag(v)) || math.IsInf(real(v), 0) || math.IsInf(imag(v), 0) {
			return nil, fmt.Errorf("beam: %s: data value %d is %v: must be finite", g, i, v)
		}
		if imag(v) != 0 {
			g.cplx = true
		}
	}
	if g.cplx {
		g.d64 = make([]float64, 2*len(data))
		for i, v := range data {
			g.d64[2*i], g.d64[2*i+1] = real(v), imag(v)
		}
	} else {
		g.d64 = make([]float64, len(data))
		for i, v := range data {
			g.d64[i] = real(v)
		}
	}
	return g, nil
}

func compWord(t GridType) string {
	if t == Power {
		return "pols"
	}
	return "feeds"
}

// newGriddedShape validates spec and returns a Gridded without data.
func newGriddedShape(spec GridSpec) (*Gridded, error) {
	name := spec.Name
	if name == "" {
		name = "gridded beam"
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("beam: %s: "+format, append([]any{name}, a...)...)
	}
	if spec.Type != EField && spec.Type != Power {
		return nil, bad("type %d: want EField or Power", int(spec.Type))
	}
	if err := checkAxis(spec.AzRad, true); err != nil {
		return nil, bad("azimuth axis: %w", err)
	}
	if err := checkAxis(spec.ZaRad, true); err != nil {
		return nil, bad("zenith-angle axis: %w", err)
	}
	if len(spec.FreqsHz) == 0 {
		return nil, bad("no frequencies")
	}
	if err := checkAxis(spec.FreqsHz, false); err != nil {
		return nil, bad("frequency axis: %w", err)
	}
	if spec.NAxesVec < 1 {
		return nil, bad("NAxesVec = %d: must be at least 1", spec.NAxesVec)
	}
	g := &Gridded{spec: spec, order: 3}
	g.spec.Name = name
	switch spec.Type {
	case EField:
		if len(spec.Feeds) == 0 {
			return nil, bad("an E-field beam needs its feed names")
		}
		g.ncomp = len(spec.Feeds)
		g.spec.Pols = nil
	case Power:
		if len(spec.Pols) == 0 {
			return nil, bad("a power beam needs its polarisations")
		}
		g.ncomp = len(spec.Pols)
	}
	if spec.Basis != nil {
		want := spec.NAxesVec * 2 * len(spec.ZaRad) * len(spec.AzRad)
		if len(spec.Basis) != want {
			return nil, bad("basis vectors: %d values, want NAxesVec·2·Nza·Naz = %d", len(spec.Basis), want)
		}
	}
	return g, nil
}

// checkAxis reports an axis that is not finite and strictly increasing
// (and, when even, not evenly spaced to 1e-6 of a step, or shorter than 2).
func checkAxis(v []float64, even bool) error {
	if even && len(v) < 2 {
		return fmt.Errorf("%d samples: need at least 2", len(v))
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("value %d is %v: must be finite", i, x)
		}
		if i > 0 && !(x > v[i-1]) {
			return fmt.Errorf("values %d, %d = %v, %v: must be strictly increasing", i-1, i, v[i-1], x)
		}
	}
	if even {
		d := v[1] - v[0]
		for i := 2; i < len(v); i++ {
			if math.Abs((v[i]-v[i-1])-d) > 1e-6*d {
				return fmt.Errorf("step %d is %v, the first is %v: the grid must be evenly spaced", i, v[i]-v[i-1], d)
			}
		}
	}
	return nil
}

func (g *Gridded) nplane() int { return len(g.spec.ZaRad) * len(g.spec.AzRad) }
func (g *Gridded) nvals() int {
	return g.spec.NAxesVec * g.ncomp * len(g.spec.FreqsHz) * g.nplane()
}

// String describes the beam.
func (g *Gridded) String() string { return g.spec.Name }

// Type is EField or Power.
func (g *Gridded) Type() GridType { return g.spec.Type }

// Az returns the azimuth samples in radians (a copy).
func (g *Gridded) Az() []float64 { return slices.Clone(g.spec.AzRad) }

// Za returns the zenith-angle samples in radians (a copy).
func (g *Gridded) Za() []float64 { return slices.Clone(g.spec.ZaRad) }

// Freqs returns the beam channels in Hz (a copy).
func (g *Gridded) Freqs() []float64 { return slices.Clone(g.spec.FreqsHz) }

// Feeds returns the feed names of an E-field beam (nil for power beams).
func (g *Gridded) Feeds() []string { return slices.Clone(g.spec.Feeds) }

// Pols returns the polarisation numbers of a power beam (nil for E-field
// beams).
func (g *Gridded) Pols() []int { return slices.Clone(g.spec.Pols) }

// NAxesVec is the number of basis-vector axes.
func (g *Gridded) NAxesVec() int { return g.spec.NAxesVec }

// Basis is a copy of the beam's basis vectors (GridSpec.Basis): nil when
// they are aligned with (φ̂, θ̂).
func (g *Gridded) Basis() []float64 { return slices.Clone(g.spec.Basis) }

// NComp is the number of feeds (E-field) or polarisations (power).
func (g *Gridded) NComp() int { return g.ncomp }

// Order is the spatial interpolation order, 1 (bilinear) or 3 (cubic).
func (g *Gridded) Order() int { return g.order }

// Precision is 1 when the raw grid is stored as float32, 2 for float64.
func (g *Gridded) Precision() int {
	if g.d32 != nil {
		return 1
	}
	return 2
}

// Wraps reports whether the azimuth axis covers the full circle, by
// pyuvdata's test: |az_first − az_last| + Δaz within Δaz (+1e-5 relative)
// of 2π. Such grids are extended by 3 columns on each side before the
// spatial interpolation.
func (g *Gridded) Wraps() bool {
	az := g.spec.AzRad
	d := az[1] - az[0]
	length := math.Abs(az[0]-az[len(az)-1]) + d
	return math.Abs(length-2*math.Pi) <= d+1e-5*2*math.Pi
}

// GridPixels is the number of (za, az) samples of the raw grid, the beam's
// share of the memory model's raw beam-grid term.
func (g *Gridded) GridPixels() int { return g.nplane() }

// RawGridBytes is the memory model's raw beam-grid term (matvis
// get_required_chunks): nFeed·nAx·nPix complex values of 8·precision
// bytes each (precision 1 = complex64, 2 = complex128).
func RawGridBytes(nFeed, nAx, nPix, precision int) int64 {
	return int64(nFeed) * int64(nAx) * int64(nPix) * 2 * 4 * int64(precision)
}

// StoredBytes is the memory the raw grid actually occupies here.
func (g *Gridded) StoredBytes() int64 {
	if g.d32 != nil {
		return int64(len(g.d32)) * 4
	}
	return int64(len(g.d64)) * 8
}

// WithOrder returns the beam interpolating with spline order 1 (bilinear)
// or 3 (prefiltered cubic B-spline, pyuvdata's default); the raw grid is
// shared.
func (g *Gridded) WithOrder(order int) (*Gridded, error) {
	if order != 1 && order != 3 {
		return nil, fmt.Errorf("beam: %s: spline order %d: want 1 (bilinear) or 3 (cubic)", g, order)
	}
	c := *g
	c.order = order
	return &c, nil
}

// WithFreqInterp returns the beam interpolating along frequency with
// kind, one of FreqInterpKinds — pyuvdata's freq_interp_kind, which it
// passes to scipy.interpolate.interp1d: "cubic" (the default, the
// not-a-knot cubic spline; needs 4 channels), "quadratic" (scipy's
// make_interp_spline with k = 2 and its default knots; 3 channels),
// "linear" and "slinear" (2 channels), "zero" and "previous" (the channel
// at or below), "next" (at or above), "nearest-up" (the nearer, the upper
// one on a tie), and "nearest" (the nearer, the lower one on a tie, as
// pyuvdata's np.argmin picks it, at any frequency, outside the beam's
// range too, as pyuvdata allows). Every kind takes a channel within
// FreqTolHz as is, as pyuvdata does. The raw grid is shared.
func (g *Gridded) WithFreqInterp(kind string) (*Gridded, error) {
	if !validFreqInterp(kind) {
		return nil, fmt.Errorf("beam: %s: freq_interp_kind %q: want one of %s", g, kind, strings.Join(FreqInterpKinds(), ", "))
	}
	c := *g
	c.freqKind = kind
	if kind == "cubic" {
		c.freqKind = ""
	}
	return &c, nil
}

// FreqInterp is the frequency interpolation kind (see WithFreqInterp).
func (g *Gridded) FreqInterp() string {
	if g.freqKind == "" {
		return "cubic"
	}
	return g.freqKind
}

// freqWeights are the channel weights at freqHz for the beam's kind.
func (g *Gridded) freqWeights(freqHz float64) ([]float64, error) {
	return freqWeightsKind(g.spec.FreqsHz, freqHz, FreqTolHz, g.FreqInterp())
}

// WithPrecision returns the beam with its raw grid stored as float32
// (precision 1) or float64 (precision 2). Interpolation arithmetic stays
// float64; precision 1 also keeps the per-frequency planes of At in
// float32. Converting float32 back to 2 does not restore lost digits.
func (g *Gridded) WithPrecision(precision int) (*Gridded, error) {
	if precision != 1 && precision != 2 {
		return nil, fmt.Errorf("beam: %s: precision %d: want 1 (float32) or 2 (float64)", g, precision)
	}
	if precision == g.Precision() {
		return g, nil
	}
	c := *g
	if precision == 1 {
		c.d32 = make([]float32, len(g.d64))
		for i, v := range g.d64 {
			c.d32[i] = float32(v)
		}
		c.d64 = nil
	} else {
		c.d64 = make([]float64, len(g.d32))
		for i, v := range g.d32 {
			c.d64[i] = float64(v)
		}
		c.d32 = nil
	}
	return &c, nil
}

// value returns raw sample i (index into the complex layout).
func (g *Gridded) value(i int) (re, im float64) {
	if g.cplx {
		if g.d32 != nil {
			return float64(g.d32[2*i]), float64(g.d32[2*i+1])
		}
		return g.d64[2*i], g.d64[2*i+1]
	}
	if g.d32 != nil {
		return float64(g.d32[i]), 0
	}
	return g.d64[i], 0
}

// index of the first sample of plane (vec, comp, freq).
func (g *Gridded) planeStart(vec, comp, freq int) int {
	return ((vec*g.ncomp+comp)*len(g.spec.FreqsHz) + freq) * g.nplane()
}

// feedIndex finds the feed of an unpolarized mode among the beam's feeds.
func (g *Gridded) feedIndex(f Feed) (int, error) {
	want := f.String()
	for i, name := range g.spec.Feeds {
		if strings.EqualFold(name, want) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("beam: %s: feed %q not among the beam's feeds %v", g, want, g.spec.Feeds)
}

// polIndex finds the auto polarisation of feed f in a power beam.
func (g *Gridded) polIndex(f Feed) (int, error) {
	want := PolXX
	if f == FeedY {
		want = PolYY
	}
	for i, p := range g.spec.Pols {
		if p == want {
			return i, nil
		}
	}
	return 0, fmt.Errorf("beam: %s: power beam has no %s%s polarisation (pols %v)", g, f, f, g.spec.Pols)
}
