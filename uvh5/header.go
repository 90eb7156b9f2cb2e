// Package uvh5 writes and reads UVH5 files, the HDF5 visibility format of
// pyuvdata (UVH5 memo, version 1.2), in pure Go.
//
// The writer produces the layout pyuvdata 3.x writes: a /Header group of
// metadata datasets and a /Data group with visdata (compound {r, i} of
// float64 or float32), flags (h5py's bool enum) and nsamples (float32), all
// of shape (Nblts, Nfreqs, Npols) — the "current" shapes without pyuvdata
// 2's spectral-window axis. The data are contiguous, allocated up front and
// filled block by block in any order, so the writer's memory does not grow
// with Nblts. The reader also accepts the older (Nblts, 1, Nfreqs, Npols)
// shapes and h5py-written files (chunked, LZF-compressed flags and
// nsamples).
//
// Conventions of pyuvsim's output, which the reference files in
// testdata/reference show: baselines are stored with ant1 >= ant2
// (autocorrelations included); uvw_array = ENU(ant2) - ENU(ant1) in metres,
// in East-North-Up axes at the telescope (the phase center is unprojected),
// while antenna_positions are ECEF (ITRS axes) offsets from the telescope
// location, so uvw is antenna_positions[ant2] - antenna_positions[ant1]
// rotated from ECEF to ENU axes; the baseline-time axis is time-major (all baselines of the first time, then
// the next), polarizations xx, yy, xy, yx are -5, -6, -7, -8, and vis_units
// is "Jy". The package itself imposes none of these; it stores what the
// Header says.
package uvh5

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Version is the UVH5 format version written to Header/version.
const Version = "1.2"

// Header is the metadata of a UVH5 file: what the UVH5 memo's Header group
// holds. Per-baseline-time slices have length Nblts = len(Ant1); per-channel
// slices Nfreqs = len(Freqs); per-antenna slices Nants_telescope =
// len(AntennaNumbers). The N* counts of the file are derived from these.
//
// The fields are grouped as pyuvdata groups them (its Telescope object, the
// baseline-time and frequency axes, the phase center catalog); the groups
// are embedded, so a field is named without its group (h.Latitude,
// h.Freqs) and FieldError's Field names stay the fields' own.
type Header struct {
	Telescope
	BltAxis
	FreqAxis
	DriftCenter

	Pols []int64 // polarization_array (AIPS codes: xx=-5, yy=-6, xy=-7, yx=-8)

	VisUnits string // vis_units: "Jy", "K str" or "uncalib"
	History  string // history

	// SinglePrecision stores visdata as {r, i} float32 (complex64) rather
	// than float64.
	SinglePrecision bool
}

// Telescope is the telescope of a Header: its name, frame and location,
// and its antennas (all of them, Nants_telescope, used or not).
type Telescope struct {
	TelescopeName string // telescope_name, e.g. "HERA"
	Instrument    string // instrument
	// TelescopeFrame is telescope_frame: "itrs" (Earth; the default when
	// empty) or "mcmf" (Moon, then Ellipsoid names the lunar ellipsoid).
	TelescopeFrame string
	Ellipsoid      string
	Latitude       float64 // telescope latitude, degrees
	Longitude      float64 // telescope longitude, degrees
	Altitude       float64 // telescope altitude, metres

	AntennaNames   []string // antenna_names, Nants_telescope
	AntennaNumbers []int64  // antenna_numbers, Nants_telescope
	// AntennaPositions is antenna_positions: ECEF (ITRS) positions relative
	// to the telescope location, metres, as pyuvdata stores them (not ENU).
	AntennaPositions [][3]float64

	// XOrientation is x_orientation ("east" or "north"), written when set.
	XOrientation string
}

// BltAxis is the baseline-time axis of a Header: Nblts rows and how they
// are ordered.
type BltAxis struct {
	Ant1            []int64      // ant_1_array, antenna numbers, Nblts
	Ant2            []int64      // ant_2_array, Nblts
	UVW             [][3]float64 // uvw_array, metres, ENU axes for an unprojected center, Nblts
	Times           []float64    // time_array, JD (UTC), Nblts
	LSTs            []float64    // lst_array, radians, Nblts
	IntegrationTime []float64    // integration_time, seconds, Nblts

	// BltOrder is blt_order, e.g. "time, baseline", written when set.
	BltOrder string
	// BltsAreRectangular and TimeAxisFasterThanBls are written when not nil.
	BltsAreRectangular    *bool
	TimeAxisFasterThanBls *bool
}

// FreqAxis is the frequency axis of a Header: Nfreqs channels and their
// spectral windows.
type FreqAxis struct {
	Freqs        []float64 // freq_array, Hz, Nfreqs
	ChannelWidth []float64 // channel_width, Hz, Nfreqs
	// SpwArray is spw_array (Nspws); empty means [0].
	SpwArray []int64
	// FlexSpwIDArray is flex_spw_id_array (Nfreqs); empty means every
	// channel in SpwArray[0].
	FlexSpwIDArray []int64
}

// DriftCenter is the single unprojected (drift) phase center a Header
// writes, catalog id 0 (a file read may hold others: Catalog).
type DriftCenter struct {
	// PhaseCenterName is its cat_name; empty means "unprojected".
	PhaseCenterName string
	// PhaseCenterAppRA, PhaseCenterAppDec and PhaseCenterFramePA are the
	// apparent coordinates, radians, Nblts each. Empty means what pyuvdata
	// computes for an unprojected center: app RA = LST, app Dec = latitude,
	// frame position angle 0.
	PhaseCenterAppRA   []float64
	PhaseCenterAppDec  []float64
	PhaseCenterFramePA []float64
}

// FieldError is an invalid or unreadable field, with the file it concerns.
type FieldError struct {
	File  string // path of the UVH5 file
	Field string // Header field or HDF5 dataset name
	Err   error
}

// Error reports "uvh5: file: field: cause".
func (e *FieldError) Error() string {
	return fmt.Sprintf("uvh5: %s: %s: %v", e.File, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }

// Nblts returns the number of baseline-times.
func (h *Header) Nblts() int { return len(h.Ant1) }

// Nfreqs returns the number of frequency channels.
func (h *Header) Nfreqs() int { return len(h.Freqs) }

// Npols returns the number of polarizations.
func (h *Header) Npols() int { return len(h.Pols) }

// NantsTelescope returns the number of antennas of the telescope.
func (h *Header) NantsTelescope() int { return len(h.AntennaNumbers) }

// NantsData returns the number of distinct antennas in Ant1 and Ant2.
func (h *Header) NantsData() int {
	seen := map[int64]bool{}
	for i := range h.Ant1 {
		seen[h.Ant1[i]] = true
		seen[h.Ant2[i]] = true
	}
	return len(seen)
}

// Nbls returns the number of distinct (Ant1, Ant2) baselines.
func (h *Header) Nbls() int {
	seen := map[[2]int64]bool{}
	for i := range h.Ant1 {
		seen[[2]int64{h.Ant1[i], h.Ant2[i]}] = true
	}
	return len(seen)
}

// Ntimes returns the number of distinct times.
func (h *Header) Ntimes() int {
	seen := map[float64]bool{}
	for _, t := range h.Times {
		seen[t] = true
	}
	return len(seen)
}

// spws returns SpwArray, defaulted.
func (h *Header) spws() []int64 {
	if len(h.SpwArray) == 0 {
		return []int64{0}
	}
	return h.SpwArray
}

// flexSpw returns FlexSpwIDArray, defaulted.
func (h *Header) flexSpw() []int64 {
	if len(h.FlexSpwIDArray) > 0 {
		return h.FlexSpwIDArray
	}
	out := make([]int64, len(h.Freqs))
	for i := range out {
		out[i] = h.spws()[0]
	}
	return out
}

func (h *Header) frame() string {
	if h.TelescopeFrame == "" {
		return "itrs"
	}
	return h.TelescopeFrame
}

func (h *Header) catName() string {
	if h.PhaseCenterName == "" {
		return "unprojected"
	}
	return h.PhaseCenterName
}

// appCoords returns the apparent RA, Dec and frame position angle,
// defaulted as pyuvdata does for an unprojected center.
func (h *Header) appCoords() (ra, dec, pa []float64) {
	ra, dec, pa = h.PhaseCenterAppRA, h.PhaseCenterAppDec, h.PhaseCenterFramePA
	n := h.Nblts()
	if len(ra) == 0 {
		ra = h.LSTs
	}
	if len(dec) == 0 {
		dec = make([]float64, n)
		for i := range dec {
			dec[i] = h.Latitude * math.Pi / 180
		}
	}
	if len(pa) == 0 {
		pa = make([]float64, n)
	}
	return ra, dec, pa
}

// Validate checks that the header is complete and consistent: lengths
// agree with Nblts, Nfreqs, Npols and Nants_telescope, antennas in Ant1 and
// Ant2 exist, every float is finite. Errors are *FieldError naming the
// field (File left empty).
func (h *Header) Validate() error {
	for _, check := range []func() error{h.checkUTF8, h.checkTelescope, h.checkAntennas, h.checkBlts, h.checkFreqs, h.checkPols, h.checkMisc} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkUTF8 refuses a string that is not UTF-8: h5py and pyuvdata decode
// every string of the file as UTF-8 and fail on it. The readers of the
// inputs refuse such bytes with their file and line; this is the last
// guard.
func (h *Header) checkUTF8() error {
	for _, f := range []struct{ field, v string }{{"TelescopeName", h.TelescopeName}, {"Instrument", h.Instrument},
		{"History", h.History}, {"VisUnits", h.VisUnits}, {"TelescopeFrame", h.TelescopeFrame}, {"Ellipsoid", h.Ellipsoid},
		{"XOrientation", h.XOrientation}, {"BltOrder", h.BltOrder}, {"PhaseCenterName", h.PhaseCenterName}} {
		if !utf8.ValidString(f.v) {
			return bad(f.field, "%q is not UTF-8", f.v)
		}
	}
	for i, n := range h.AntennaNames {
		if !utf8.ValidString(n) {
			return bad("AntennaNames", "element %d %q is not UTF-8", i, n)
		}
	}
	return nil
}

func bad(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// ErrNotFinite marks a NaN or infinite value.
var ErrNotFinite = errors.New("not finite")

func finite(field string, v ...float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &FieldError{Field: field, Err: fmt.Errorf("element %d = %v: %w", i, x, ErrNotFinite)}
		}
	}
	return nil
}

func (h *Header) checkTelescope() error {
	switch {
	case h.TelescopeName == "":
		return bad("TelescopeName", "empty")
	case h.Instrument == "":
		return bad("Instrument", "empty")
	case h.frame() != "itrs" && h.frame() != "mcmf":
		return bad("TelescopeFrame", "%q is neither itrs nor mcmf", h.TelescopeFrame)
	case h.frame() == "mcmf" && h.Ellipsoid == "":
		return bad("Ellipsoid", "required for the mcmf frame")
	}
	if err := finite("Latitude/Longitude/Altitude", h.Latitude, h.Longitude, h.Altitude); err != nil {
		return err
	}
	if h.Latitude < -90 || h.Latitude > 90 {
		return bad("Latitude", "%v outside [-90, 90] degrees", h.Latitude)
	}
	if h.Longitude < -180 || h.Longitude > 360 {
		return bad("Longitude", "%v outside [-180, 360] degrees", h.Longitude)
	}
	return nil
}

func (h *Header) checkAntennas() error {
	n := len(h.AntennaNumbers)
	if n == 0 {
		return bad("AntennaNumbers", "no antennas")
	}
	if len(h.AntennaNames) != n {
		return bad("AntennaNames", "%d names for %d antennas", len(h.AntennaNames), n)
	}
	if len(h.AntennaPositions) != n {
		return bad("AntennaPositions", "%d positions for %d antennas", len(h.AntennaPositions), n)
	}
	seen, names := map[int64]bool{}, map[string]bool{}
	for i, a := range h.AntennaNumbers {
		// pyuvdata's acceptable range for antenna numbers is [0, 2^31-1].
		if seen[a] || a < 0 || a > math.MaxInt32 {
			return bad("AntennaNumbers", "number %d (element %d) out of [0, 2^31-1] or repeated", a, i)
		}
		seen[a] = true
		if n := h.AntennaNames[i]; n == "" || names[n] {
			return bad("AntennaNames", "element %d %q empty or repeated", i, n)
		}
		names[h.AntennaNames[i]] = true
		if err := finite("AntennaPositions", h.AntennaPositions[i][:]...); err != nil {
			return err
		}
	}
	return nil
}

func (h *Header) checkBlts() error {
	n := h.Nblts()
	if n == 0 {
		return bad("Ant1", "no baseline-times")
	}
	lengths := []struct {
		name string
		n    int
		opt  bool
	}{
		{"Ant2", len(h.Ant2), false}, {"UVW", len(h.UVW), false}, {"Times", len(h.Times), false},
		{"LSTs", len(h.LSTs), false}, {"IntegrationTime", len(h.IntegrationTime), false},
		{"PhaseCenterAppRA", len(h.PhaseCenterAppRA), true}, {"PhaseCenterAppDec", len(h.PhaseCenterAppDec), true},
		{"PhaseCenterFramePA", len(h.PhaseCenterFramePA), true},
	}
	for _, l := range lengths {
		if l.n != n && !(l.opt && l.n == 0) {
			return bad(l.name, "length %d, want Nblts = %d", l.n, n)
		}
	}
	ants := map[int64]bool{}
	for _, a := range h.AntennaNumbers {
		ants[a] = true
	}
	for i := range n {
		if !ants[h.Ant1[i]] || !ants[h.Ant2[i]] {
			return bad("Ant1/Ant2", "baseline-time %d uses antennas (%d, %d), not both in AntennaNumbers", i, h.Ant1[i], h.Ant2[i])
		}
		if err := finite("UVW", h.UVW[i][:]...); err != nil {
			return err
		}
		// pyuvdata's acceptable range for |uvw| is [0, 1e8] m.
		if u := h.UVW[i]; math.Sqrt(u[0]*u[0]+u[1]*u[1]+u[2]*u[2]) > 1e8 {
			return bad("UVW", "baseline-time %d: |uvw| %v m exceeds 1e8", i, u)
		}
		if h.IntegrationTime[i] <= 0 {
			return bad("IntegrationTime", "element %d = %v, want > 0", i, h.IntegrationTime[i])
		}
	}
	for name, v := range map[string][]float64{"Times": h.Times, "LSTs": h.LSTs, "IntegrationTime": h.IntegrationTime,
		"PhaseCenterAppRA": h.PhaseCenterAppRA, "PhaseCenterAppDec": h.PhaseCenterAppDec, "PhaseCenterFramePA": h.PhaseCenterFramePA} {
		if err := finite(name, v...); err != nil {
			return err
		}
	}
	return nil
}

func (h *Header) checkFreqs() error {
	n := h.Nfreqs()
	if n == 0 {
		return bad("Freqs", "no channels")
	}
	if len(h.ChannelWidth) != n {
		return bad("ChannelWidth", "length %d, want Nfreqs = %d", len(h.ChannelWidth), n)
	}
	if err := finite("Freqs", h.Freqs...); err != nil {
		return err
	}
	if err := finite("ChannelWidth", h.ChannelWidth...); err != nil {
		return err
	}
	if len(h.FlexSpwIDArray) != 0 && len(h.FlexSpwIDArray) != n {
		return bad("FlexSpwIDArray", "length %d, want Nfreqs = %d", len(h.FlexSpwIDArray), n)
	}
	spws := map[int64]bool{}
	for _, s := range h.spws() {
		if spws[s] {
			return bad("SpwArray", "spectral window %d repeated", s)
		}
		spws[s] = true
	}
	for i, s := range h.flexSpw() {
		if !spws[s] {
			return bad("FlexSpwIDArray", "element %d = %d not in SpwArray", i, s)
		}
	}
	return nil
}

func (h *Header) checkPols() error {
	if h.Npols() == 0 {
		return bad("Pols", "no polarizations")
	}
	seen := map[int64]bool{}
	for i, p := range h.Pols {
		if p == 0 || p < -8 || p > 4 || seen[p] {
			return bad("Pols", "element %d = %d is not a distinct polarization code (-8..-1, 1..4)", i, p)
		}
		seen[p] = true
	}
	return nil
}

func (h *Header) checkMisc() error {
	switch h.VisUnits {
	case "Jy", "K str", "uncalib", "UNCALIB":
	default:
		return bad("VisUnits", "%q is not Jy, K str or uncalib", h.VisUnits)
	}
	switch h.XOrientation {
	case "", "east", "north":
	default:
		return bad("XOrientation", "%q is not east or north", h.XOrientation)
	}
	if err := finite("Latitude", h.Latitude); err != nil {
		return err
	}
	const maxRows = 1 << 40
	if int64(h.Nblts())*int64(h.Nfreqs())*int64(h.Npols()) > maxRows {
		return bad("Nblts*Nfreqs*Npols", "too large")
	}
	return nil
}
