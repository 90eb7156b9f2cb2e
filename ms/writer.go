// Package ms writes CASA Measurement Sets (MS v2) in pure Go, with what
// pyuvdata 2.4.2's write_ms(force_phase=True, fix_autos=True) writes:
// the main table (UVW, DATA, FLAG, WEIGHT, SIGMA, TIME, ANTENNA1/2, …)
// and the subtables ANTENNA, DATA_DESCRIPTION, FEED, FIELD, FLAG_CMD,
// HISTORY, OBSERVATION, POINTING, POLARIZATION, PROCESSOR, SOURCE,
// SPECTRAL_WINDOW and STATE, on internal/casatable.
//
// # Conventions (pyuvdata's)
//
//   - Rows are phased: UVW is the phased baseline ant2 − ant1 (metres)
//     and DATA is not conjugated (see matvis/phase for the sign).
//   - ANTENNA1/ANTENNA2 are antenna numbers, which index the ANTENNA and
//     FEED tables: those have max(number)+1 rows, unused ones blank.
//   - Correlations are in CASA order (XX, XY, YX, YY; RR, RL, LR, LL):
//     CORR_TYPE holds casacore's Stokes codes.
//   - TIME and TIME_CENTROID are MJD seconds (UTC); EXPOSURE and INTERVAL
//     the integration time.
//   - FIELD's PHASE_DIR, DELAY_DIR and REFERENCE_DIR are the ICRS phase
//     centre (radians).
//   - WEIGHT is the median over channels of the samples count, SIGMA its
//     inverse square root.
//
// Create writes the subtables; WriteRows then takes the rows block by
// block in order; Close completes the main table and renames the
// directory, written beside the target under a temporary name, into
// place. Abort (or a failed Close) removes it.
package ms

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	ct "github.com/gomatvis/gomatvis/internal/casatable"
)

// Header is what a Measurement Set holds besides its rows.
type Header struct {
	TelescopeName string
	// Lat, Lon (degrees) and Alt (metres) place the array centre on the
	// WGS84 ellipsoid, as UVH5's telescope location.
	LatDeg, LonDeg, AltM float64
	AntennaNumbers       []int
	AntennaNames         []string
	// AntennaECEF are ECEF offsets (metres) from the array centre, as
	// UVH5's antenna_positions.
	AntennaECEF [][3]float64

	Freqs, ChannelWidths []float64 // Hz
	// Pols are the AIPS polarization codes of the data given to WriteRows,
	// in that order (xx = −5, yy = −6, xy = −7, yx = −8; rr = −1, ll = −2,
	// rl = −3, lr = −4).
	Pols []int

	// CentreName, CentreRA and CentreDec (ICRS, radians) are the phase
	// centre the rows are phased to.
	CentreName          string
	CentreRA, CentreDec float64

	// Times are the distinct integration times (JD, UTC) in row order;
	// every time has Baselines rows.
	Times           []float64
	Baselines       int
	IntegrationTime float64 // seconds
	// IntegrationTimes, when set, are each time's integration time (s),
	// for EXPOSURE, INTERVAL and POINTING's INTERVAL: pyuvdata writes each
	// row's own, and times spaced in Julian dates differ by rounding
	// (600.0000045 s, 599.9999642 s).
	IntegrationTimes []float64

	VisUnits string // "Jy" when empty
	History  string
	// HistoryTime stamps the HISTORY row (now when zero).
	HistoryTime time.Time
}

// interval is the integration time at the time jd (one of Times).
func (h *Header) interval(jd float64) float64 {
	if h.IntegrationTimes == nil {
		return h.IntegrationTime
	}
	if t := sort.SearchFloat64s(h.Times, jd); t < len(h.Times) {
		return h.IntegrationTimes[t]
	}
	return h.IntegrationTime
}

// Rows is the main table's row count.
func (h *Header) Rows() int { return len(h.Times) * h.Baselines }

// Writer streams one Measurement Set.
type Writer struct {
	path, tmp string
	h         Header
	order     []int // data polarization of each CASA correlation
	main      *ct.Writer
	next      int // the next row
	scratch   scratch
}

// scratch holds one block's encoded columns between blocks, so that a
// run of equal blocks allocates once.
type scratch struct {
	data          []complex64
	flags, zeros  []bool
	weight, sigma []float32
	uvw, tm       []float64
	flagRow       []bool
	med           []float32
	ant1, ant2    []int32
	izeros, ones  []int32
	intervals     []float64
}

// grow returns v resized to n, reallocated only when too small.
func grow[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, n)
	}
	return v[:n]
}

// casaCode maps AIPS polarization codes to casacore's Stokes enum, and
// feeds names each one's pair of receptors.
var casaCode = map[int]int32{-1: 5, -2: 8, -3: 6, -4: 7, -5: 9, -6: 12, -7: 10, -8: 11}
var feeds = map[int][2]byte{-1: {'R', 'R'}, -2: {'L', 'L'}, -3: {'R', 'L'}, -4: {'L', 'R'}, -5: {'X', 'X'}, -6: {'Y', 'Y'}, -7: {'X', 'Y'}, -8: {'Y', 'X'}}

// check rejects a header that would give a wrong or unreadable MS.
func (h *Header) check() error {
	na := len(h.AntennaNumbers)
	switch {
	case na == 0:
		return errors.New("no antennas")
	case len(h.AntennaNames) != na || len(h.AntennaECEF) != na:
		return fmt.Errorf("%d antenna numbers but %d names and %d positions", na, len(h.AntennaNames), len(h.AntennaECEF))
	case len(h.Freqs) == 0 || len(h.ChannelWidths) != len(h.Freqs):
		return fmt.Errorf("%d frequencies and %d channel widths: need at least one of each, as many widths as frequencies", len(h.Freqs), len(h.ChannelWidths))
	case len(h.Pols) == 0:
		return errors.New("no polarizations")
	case len(h.Times) == 0 || h.Baselines <= 0:
		return fmt.Errorf("%d times of %d baselines: need at least one row", len(h.Times), h.Baselines)
	case !(h.IntegrationTime > 0):
		return fmt.Errorf("integration time %v s: must be > 0", h.IntegrationTime)
	case h.IntegrationTimes != nil && len(h.IntegrationTimes) != len(h.Times):
		return fmt.Errorf("%d integration times for %d times", len(h.IntegrationTimes), len(h.Times))
	case math.IsNaN(h.CentreRA) || math.IsNaN(h.CentreDec) || math.Abs(h.CentreDec) > math.Pi/2:
		return fmt.Errorf("phase centre RA %v, Dec %v rad: must be finite with |Dec| <= π/2", h.CentreRA, h.CentreDec)
	}
	for i, n := range h.AntennaNumbers {
		if n < 0 || n > 1<<20 {
			return fmt.Errorf("antenna %q has number %d; the ANTENNA table has a row per number up to the largest, so numbers must be 0..%d", h.AntennaNames[i], n, 1<<20)
		}
	}
	seen := map[int]bool{}
	kind := byte(0)
	for _, p := range h.Pols {
		f, ok := feeds[p]
		if !ok {
			return fmt.Errorf("polarization code %d: the MS writer takes instrumental polarizations, AIPS codes -1..-8", p)
		}
		if seen[p] {
			return fmt.Errorf("polarization code %d appears twice", p)
		}
		seen[p] = true
		linear := f[0] == 'X' || f[0] == 'Y'
		k := byte('c')
		if linear {
			k = 'l'
		}
		if kind != 0 && kind != k {
			return fmt.Errorf("polarizations %v mix linear and circular feeds", h.Pols)
		}
		kind = k
	}
	for i, t := range h.Times {
		if i > 0 && !(t > h.Times[i-1]) {
			return fmt.Errorf("times must increase: JD %s follows %s", jdStr(t), jdStr(h.Times[i-1]))
		}
	}
	return nil
}

// Create checks the header, writes the subtables in a temporary directory
// beside path and returns a Writer for the rows. path must not exist.
func Create(path string, h Header) (*Writer, error) {
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("ms: %s exists; remove it or choose another name", path)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.tmp-%d-%s", filepath.Base(path), os.Getpid(), hex.EncodeToString(rnd[:])))
	w := &Writer{path: path, tmp: tmp, h: h, order: casaOrder(h.Pols)}
	main, err := ct.Create(tmp, w.mainDesc(), h.Rows())
	if err != nil {
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	w.main = main
	if err := w.writeSubtables(); err != nil {
		w.Abort()
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	return w, nil
}

// CheckSize reports (wrapping casatable.ErrTooLarge) whether an MS of
// nrow rows of npol correlations × nchan channels is too large for its
// main table, before anything is built or written.
func CheckSize(npol, nchan, nrow int) error {
	if err := ct.CheckSize(ct.Desc{Columns: mainColumns(npol, nchan)}, nrow); err != nil {
		return fmt.Errorf("ms: %w", err)
	}
	return nil
}

// casaOrder returns the index into pols of each correlation in CASA
// order (ascending casacore Stokes code, as pyuvdata's
// determine_pol_order(order="CASA")).
func casaOrder(pols []int) []int {
	idx := make([]int, len(pols))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return casaCode[pols[idx[a]]] < casaCode[pols[idx[b]]] })
	return idx
}

// subtables are the MS's subtables, in the order of the main table's
// keywords.
var subtables = []string{"ANTENNA", "DATA_DESCRIPTION", "FEED", "FLAG_CMD", "FIELD", "HISTORY", "OBSERVATION", "POINTING", "POLARIZATION", "PROCESSOR", "SPECTRAL_WINDOW", "STATE", "SOURCE"}

func (w *Writer) mainDesc() ct.Desc {
	cols := mainColumns(len(w.h.Pols), len(w.h.Freqs))
	units := w.h.VisUnits
	if units == "" {
		units = "Jy"
	}
	cols[cData].Keywords = ct.Record{}.Set("QuantumUnits", units)
	keys := ct.Record{}.Set("MS_VERSION", 2.0)
	for _, s := range subtables {
		keys = keys.Set(s, ct.SubTable(s))
	}
	return ct.Desc{
		Columns:  cols,
		Keywords: keys,
		Info:     ct.Info{Type: "Measurement Set", Readme: "This is a MeasurementSet Table holding measurements from a Telescope\n"},
	}
}

// mjdSec converts a UTC Julian date to MJD seconds as pyuvdata does
// (astropy Time(jd).mjd·86400: jd − 2400000.5 is exact for dates of this
// era, so the one rounding is the product's).
func mjdSec(jd float64) float64 { return (jd - 2400000.5) * 86400 }

// Block is one block of rows for WriteRows. Data and Flags are C-ordered
// (row, channel, polarization) with the header's polarization order;
// Flags and Nsamples may be nil (none flagged, one sample each).
type Block struct {
	Ant1, Ant2 []int        // antenna numbers
	JD         []float64    // each row's time, one of the header's
	UVW        [][3]float64 // phased, metres
	Data       []complex64
	Flags      []bool
	Nsamples   []float32
}

// WriteRows writes rows rowStart, rowStart+1, … from b; blocks come in
// order, rowStart being the number of rows written before.
func (w *Writer) WriteRows(rowStart int, b Block) error {
	if w.main == nil {
		return fmt.Errorf("ms: %s: the writer is closed", w.path)
	}
	if err := w.checkBlock(rowStart, b); err != nil {
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	if err := w.putBlock(b); err != nil {
		w.Abort()
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	w.next += len(b.Ant1)
	w.main.StartWriteback() // the close's sync then has little left
	return nil
}

func (w *Writer) checkBlock(rowStart int, b Block) error {
	n := len(b.Ant1)
	nv := n * len(w.h.Freqs) * len(w.h.Pols)
	switch {
	case rowStart != w.next:
		return fmt.Errorf("block starts at row %d, but %d rows are written: blocks must come in order", rowStart, w.next)
	case rowStart+n > w.h.Rows():
		return fmt.Errorf("rows %d..%d exceed the header's %d", rowStart, rowStart+n-1, w.h.Rows())
	case len(b.Ant2) != n || len(b.JD) != n || len(b.UVW) != n:
		return fmt.Errorf("block of %d rows has %d second antennas, %d times, %d uvws", n, len(b.Ant2), len(b.JD), len(b.UVW))
	case len(b.Data) != nv:
		return fmt.Errorf("block of %d rows × %d channels × %d polarizations has %d visibilities", n, len(w.h.Freqs), len(w.h.Pols), len(b.Data))
	case b.Flags != nil && len(b.Flags) != nv:
		return fmt.Errorf("block has %d flags for %d visibilities", len(b.Flags), nv)
	case b.Nsamples != nil && len(b.Nsamples) != nv:
		return fmt.Errorf("block has %d sample counts for %d visibilities", len(b.Nsamples), nv)
	}
	known := map[int]bool{}
	for _, a := range w.h.AntennaNumbers {
		known[a] = true
	}
	for k := range n {
		if !known[b.Ant1[k]] || !known[b.Ant2[k]] {
			return fmt.Errorf("row %d: antennas %d, %d: not among the header's antenna numbers", rowStart+k, b.Ant1[k], b.Ant2[k])
		}
		if _, ok := slices.BinarySearch(w.h.Times, b.JD[k]); !ok {
			return fmt.Errorf("row %d: JD %s is not one of the header's times", rowStart+k, jdStr(b.JD[k]))
		}
	}
	return nil
}

// putBlock reorders the block's correlations and appends every main
// column's values.
func (w *Writer) putBlock(b Block) error {
	n, nf, np := len(b.Ant1), len(w.h.Freqs), len(w.h.Pols)
	sc := &w.scratch
	sc.zeros = grow(sc.zeros, len(b.Data))
	sc.weight, sc.sigma = grow(sc.weight, n*np), grow(sc.sigma, n*np)
	sc.flagRow, sc.med = grow(sc.flagRow, n), grow(sc.med, nf)
	data, flags := w.casaData(b)
	for k := range n {
		sc.flagRow[k] = !slices.Contains(flags[k*nf*np:(k+1)*nf*np], false)
		for j, p := range w.order {
			wt := 1.0
			if b.Nsamples != nil {
				for c := range nf {
					sc.med[c] = b.Nsamples[(k*nf+c)*np+p]
				}
				wt = median(sc.med)
			}
			s := 0.0
			if wt != 0 {
				s = math.Pow(wt, -0.5)
			}
			// pyuvdata computes both in float64; the columns are float.
			sc.weight[k*np+j], sc.sigma[k*np+j] = float32(wt), float32(s)
		}
	}
	sc.uvw, sc.tm = grow(sc.uvw, 3*n), grow(sc.tm, n)
	sc.ant1, sc.ant2 = grow(sc.ant1, n), grow(sc.ant2, n)
	for k := range n {
		copy(sc.uvw[3*k:], b.UVW[k][:])
		sc.tm[k] = mjdSec(b.JD[k])
		sc.ant1[k], sc.ant2[k] = int32(b.Ant1[k]), int32(b.Ant2[k])
	}
	sc.izeros, sc.ones = grow(sc.izeros, n), grow(sc.ones, n)
	sc.intervals = grow(sc.intervals, n)
	for k := range n {
		sc.ones[k], sc.intervals[k] = 1, w.h.interval(b.JD[k])
	}
	m := w.main
	errs := []error{
		m.PutDoubles(cUVW, sc.uvw),
		m.PutBools(cFlag, flags),
		m.PutBools(cFlagCategory, sc.zeros),
		m.PutFloats(cWeight, sc.weight),
		m.PutFloats(cSigma, sc.sigma),
		m.PutInts(cAnt1, sc.ant1),
		m.PutInts(cAnt2, sc.ant2),
		m.PutBools(cFlagRow, sc.flagRow),
		m.PutDoubles(cTime, sc.tm),
		m.PutDoubles(cTimeCentroid, sc.tm),
		m.PutComplex(cData, data),
		m.PutDoubles(cExposure, sc.intervals),
		m.PutDoubles(cInterval, sc.intervals),
		m.PutInts(cScanNumber, sc.ones),
	}
	for _, c := range []int{cArrayID, cDataDescID, cFeed1, cFeed2, cFieldID, cObservationID, cProcessorID, cStateID} {
		errs = append(errs, m.PutInts(c, sc.izeros))
	}
	return errors.Join(errs...)
}

// casaData returns the block's visibilities and flags with the
// correlations in CASA order: b's own when they are in that order
// already (a block of one polarization), else reordered into the scratch.
// Nil flags are none flagged.
func (w *Writer) casaData(b Block) ([]complex64, []bool) {
	sc := &w.scratch
	if !slices.IsSorted(w.order) {
		np := len(w.order)
		sc.data, sc.flags = grow(sc.data, len(b.Data)), grow(sc.flags, len(b.Data))
		for i := 0; i < len(b.Data); i += np {
			for j, p := range w.order {
				sc.data[i+j] = b.Data[i+p]
				sc.flags[i+j] = b.Flags != nil && b.Flags[i+p]
			}
		}
		return sc.data, sc.flags
	}
	if b.Flags == nil {
		return b.Data, sc.zeros
	}
	return b.Data, b.Flags
}

// median is numpy's median of v (which it reorders), in float64 as
// numpy takes the mean of the middle two.
func median(v []float32) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return float64(v[n/2])
	}
	return (float64(v[n/2-1]) + float64(v[n/2])) / 2
}

func fill[T any](n int, v T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Close completes the main table and renames the directory into place;
// every row must have been written.
func (w *Writer) Close() error { return w.CloseAs(w.path) }

// CloseAs is Close renaming the directory to dest (in path's directory)
// instead: a cancelled run's partial MS. An existing dest (an earlier
// partial) is replaced: moved aside, the new one renamed in, then removed.
func (w *Writer) CloseAs(dest string) error {
	if w.main == nil {
		return fmt.Errorf("ms: %s: the writer is closed", w.path)
	}
	if w.next != w.h.Rows() {
		err := fmt.Errorf("ms: %s: %d of %d rows written; the MS is not complete and was removed", w.path, w.next, w.h.Rows())
		w.Abort()
		return err
	}
	err := w.main.Close()
	w.main = nil
	if err == nil {
		// As durable as the other formats' outputs before the rename.
		err = atomicfile.SyncTree(w.tmp)
	}
	old := ""
	if _, serr := os.Lstat(dest); err == nil && serr == nil && dest != w.path {
		old = w.tmp + ".old"
		err = os.Rename(dest, old)
	}
	if err == nil {
		err = os.Rename(w.tmp, dest)
	}
	if err != nil {
		if old != "" {
			os.Rename(old, dest)
		}
		os.RemoveAll(w.tmp)
		return fmt.Errorf("ms: %s: %w", dest, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("ms: %s is written, but the replaced copy %s remains: %w", dest, old, err)
		}
	}
	return nil
}

// Abort removes what was written.
func (w *Writer) Abort() {
	if w.main != nil {
		w.main.Abort()
		w.main = nil
	}
	os.RemoveAll(w.tmp)
}

// jdStr prints a Julian date in full, without an exponent.
func jdStr(jd float64) string { return strconv.FormatFloat(jd, 'f', -1, 64) }
