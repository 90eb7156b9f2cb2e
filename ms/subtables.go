package ms

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"time"

	ct "github.com/gomatvis/gomatvis/internal/casatable"
)

// table writes one subtable of nrow rows; fill puts every column's
// values.
func (w *Writer) table(name string, cols []ct.Column, nrow int, fill func(t *ct.Writer) error) error {
	t, err := ct.Create(filepath.Join(w.tmp, name), ct.Desc{Columns: cols}, nrow)
	if err != nil {
		return err
	}
	if err := fill(t); err != nil {
		t.Abort()
		return fmt.Errorf("%s: %w", name, err)
	}
	return t.Close()
}

func (w *Writer) writeSubtables() error {
	h := &w.h
	nant := 0
	for _, n := range h.AntennaNumbers {
		nant = max(nant, n+1)
	}
	nf, nc := len(h.Freqs), len(h.Pols)
	nrec := len(w.receptors())
	return errors.Join(
		w.table("ANTENNA", antennaColumns(), nant, w.fillAntenna),
		w.table("DATA_DESCRIPTION", dataDescColumns(), 1, func(t *ct.Writer) error {
			return errors.Join(t.PutBools(0, []bool{false}), t.PutInts(1, []int32{0}), t.PutInts(2, []int32{0}))
		}),
		w.table("FEED", feedColumns(nrec), nant, w.fillFeed),
		w.table("FIELD", fieldColumns(), 1, w.fillField),
		w.table("FLAG_CMD", flagCmdColumns(), 0, func(*ct.Writer) error { return nil }),
		w.table("HISTORY", historyColumns(), 1, w.fillHistory),
		w.table("OBSERVATION", observationColumns(), 1, w.fillObservation),
		w.table("POINTING", pointingColumns(), nant*len(h.Times), w.fillPointing),
		w.table("POLARIZATION", polarizationColumns(nc), 1, w.fillPolarization),
		w.table("PROCESSOR", processorColumns(), 0, func(*ct.Writer) error { return nil }),
		w.table("SPECTRAL_WINDOW", spectralWindowColumns(nf), 1, w.fillSpectralWindow),
		w.table("STATE", stateColumns(), 0, func(*ct.Writer) error { return nil }),
		w.table("SOURCE", sourceColumns(), 1, w.fillSource),
	)
}

// receptors are the feeds' receptor names, sorted as pyuvdata sorts them
// ("X", "Y"; "L", "R").
func (w *Writer) receptors() []string {
	set := map[string]bool{}
	for _, p := range w.h.Pols {
		f := feeds[p]
		set[string(f[0])], set[string(f[1])] = true, true
	}
	var out []string
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// arrayCentre is the array centre's ECEF position (WGS84, metres), as
// pyuvdata's XYZ_from_LatLonAlt computes it.
func (h *Header) arrayCentre() [3]float64 {
	const a, f = 6378137.0, 1 / 298.257223563
	e2 := f * (2 - f)
	lat, lon := h.LatDeg*math.Pi/180, h.LonDeg*math.Pi/180
	sl, cl := math.Sincos(lat)
	n := a / math.Sqrt(1-e2*sl*sl)
	return [3]float64{(n + h.AltM) * cl * math.Cos(lon), (n + h.AltM) * cl * math.Sin(lon), (n*(1-e2) + h.AltM) * sl}
}

func (w *Writer) fillAntenna(t *ct.Writer) error {
	h := &w.h
	nrow := 0
	for _, n := range h.AntennaNumbers {
		nrow = max(nrow, n+1)
	}
	names := make([]string, nrow)
	pos := make([]float64, 3*nrow)
	c := h.arrayCentre()
	for i, n := range h.AntennaNumbers {
		names[n] = h.AntennaNames[i]
		for j := range 3 {
			pos[3*n+j] = c[j] + h.AntennaECEF[i][j]
		}
	}
	return errors.Join(
		t.PutDoubles(0, make([]float64, 3*nrow)),
		t.PutDoubles(1, pos),
		t.PutStrings(2, make([]string, nrow)),
		t.PutDoubles(3, make([]float64, nrow)),
		t.PutBools(4, make([]bool, nrow)),
		t.PutStrings(5, make([]string, nrow)),
		t.PutStrings(6, names),
		t.PutStrings(7, names),
	)
}

func (w *Writer) fillFeed(t *ct.Writer) error {
	nrow := t.Rows()
	rec := w.receptors()
	nr := len(rec)
	var types []string
	var resp []complex64
	for range nrow {
		types = append(types, rec...)
		for i := range nr {
			for j := range nr {
				v := complex64(0)
				if i == j {
					v = 1
				}
				resp = append(resp, v)
			}
		}
	}
	ids := make([]int32, nrow)
	for i := range ids {
		ids[i] = int32(i)
	}
	return errors.Join(
		t.PutDoubles(0, make([]float64, 3*nrow)),
		t.PutDoubles(1, make([]float64, 2*nr*nrow)),
		t.PutStrings(2, types),
		t.PutComplex(3, resp),
		t.PutDoubles(4, make([]float64, nr*nrow)),
		t.PutInts(5, ids),
		t.PutInts(6, fill(nrow, int32(-1))),
		t.PutInts(7, make([]int32, nrow)),
		t.PutDoubles(8, make([]float64, nrow)),
		t.PutInts(9, fill(nrow, int32(nr))),
		t.PutInts(10, fill(nrow, int32(-1))),
		t.PutDoubles(11, make([]float64, nrow)),
	)
}

// fieldTime is pyuvdata's FIELD and SOURCE TIME: the median of the rows'
// times, in MJD seconds.
func (h *Header) fieldTime() float64 {
	n := len(h.Times)
	if n%2 == 1 {
		return mjdSec(h.Times[n/2])
	}
	// Every time has the same number of rows, so the two middle rows of
	// an even count of times are the last of time n/2−1 and the first of
	// time n/2.
	return mjdSec((h.Times[n/2-1] + h.Times[n/2]) / 2)
}

// sourceID is the id pyuvdata's catalogue gives the centre phase_to_time
// adds (the unprojected entry, id 0, is removed), which its FIELD and
// SOURCE tables carry.
const sourceID = 1

func (w *Writer) fillField(t *ct.Writer) error {
	h := &w.h
	dir := []float64{h.CentreRA, h.CentreDec}
	return errors.Join(
		t.PutDoubles(0, dir), t.PutDoubles(1, dir), t.PutDoubles(2, dir),
		t.PutStrings(3, []string{""}),
		t.PutBools(4, []bool{false}),
		t.PutStrings(5, []string{h.CentreName}),
		t.PutInts(6, []int32{0}),
		t.PutInts(7, []int32{sourceID}),
		t.PutDoubles(8, []float64{h.fieldTime()}),
	)
}

func (w *Writer) fillHistory(t *ct.Writer) error {
	at := w.h.HistoryTime
	if at.IsZero() {
		at = time.Now()
	}
	mjd := float64(at.UnixNano())/86400e9 + 40587 // the Unix epoch is MJD 40587
	return errors.Join(
		t.PutStrings(0, []string{""}),
		t.PutStrings(1, []string{""}),
		t.PutStrings(2, []string{"gomatvis"}),
		t.PutStrings(3, []string{w.h.History}),
		t.PutInts(4, []int32{0}),
		t.PutInts(5, []int32{-1}),
		t.PutStrings(6, []string{"gomatvis"}),
		t.PutStrings(7, []string{"INFO"}),
		t.PutDoubles(8, []float64{mjd * 86400}),
	)
}

func (w *Writer) fillObservation(t *ct.Writer) error {
	c := w.h.arrayCentre()
	return errors.Join(
		t.PutDoubles(0, []float64{0, 0}), // pyuvdata leaves TIME_RANGE zero
		t.PutStrings(1, []string{""}),
		t.PutStrings(2, []string{""}),
		t.PutBools(3, []bool{false}),
		t.PutStrings(4, []string{w.h.TelescopeName}),
		t.PutStrings(5, []string{""}),
		t.PutDoubles(6, []float64{0}),
		t.PutStrings(7, []string{""}),
		t.PutStrings(8, []string{w.h.TelescopeName}),
		t.PutDoubles(9, c[:]),
	)
}

// fillPointing writes pyuvdata's POINTING rows: every antenna (row) at
// every time, "pointing" at RA 0, Dec 90° (its stand-in for zenith).
func (w *Writer) fillPointing(t *ct.Writer) error {
	h := &w.h
	nant := t.Rows() / len(h.Times)
	n := t.Rows()
	var dir, tm, dt []float64
	var ant []int32
	for _, jd := range h.Times {
		for a := range nant {
			dir = append(dir, 0, math.Pi/2)
			tm = append(tm, mjdSec(jd))
			dt = append(dt, h.interval(jd))
			ant = append(ant, int32(a))
		}
	}
	return errors.Join(
		t.PutDoubles(0, dir),
		t.PutInts(1, ant),
		t.PutDoubles(2, dt),
		t.PutStrings(3, fill(n, "ZENITH")),
		t.PutInts(4, make([]int32, n)),
		t.PutDoubles(5, dir),
		t.PutDoubles(6, tm),
		t.PutDoubles(7, tm),
		t.PutBools(8, make([]bool, n)),
	)
}

// fillPolarization writes CORR_TYPE in CASA order and CORR_PRODUCT, the
// receptor indices of each correlation in that same order. (pyuvdata
// 2.4.2 writes CORR_PRODUCT in its data's order, xx yy xy yx, beside a
// CASA-ordered CORR_TYPE; this writer keeps the two consistent.)
func (w *Writer) fillPolarization(t *ct.Writer) error {
	rec := w.receptors()
	index := map[byte]int32{}
	for i, r := range rec {
		index[r[0]] = int32(i)
	}
	var types, prod []int32
	for _, p := range w.order {
		code := w.h.Pols[p]
		types = append(types, casaCode[code])
		f := feeds[code]
		prod = append(prod, index[f[0]], index[f[1]])
	}
	return errors.Join(
		t.PutInts(0, types),
		t.PutInts(1, prod),
		t.PutBools(2, []bool{false}),
		t.PutInts(3, []int32{int32(len(types))}),
	)
}

func (w *Writer) fillSpectralWindow(t *ct.Writer) error {
	h := &w.h
	total := 0.0
	for _, c := range h.ChannelWidths {
		total += c
	}
	const topo = 5 // casacore's MFrequency::TOPO
	return errors.Join(
		t.PutInts(0, []int32{topo}),
		t.PutDoubles(1, h.Freqs),
		t.PutDoubles(2, []float64{h.Freqs[0]}),
		t.PutDoubles(3, h.ChannelWidths),
		t.PutDoubles(4, h.ChannelWidths),
		t.PutDoubles(5, h.ChannelWidths),
		t.PutBools(6, []bool{false}),
		t.PutInts(7, []int32{0}),
		t.PutStrings(8, []string{""}),
		t.PutInts(9, []int32{0}),
		t.PutStrings(10, []string{"SPW0"}),
		t.PutInts(11, []int32{0}),
		t.PutInts(12, []int32{int32(len(h.Freqs))}),
		t.PutDoubles(13, []float64{total}),
		t.PutInts(14, []int32{0}),
		t.PutStrings(15, []string{""}),
	)
}

func (w *Writer) fillSource(t *ct.Writer) error {
	h := &w.h
	return errors.Join(
		t.PutDoubles(0, []float64{h.CentreRA, h.CentreDec}),
		t.PutDoubles(1, []float64{0, 0}),
		t.PutInts(2, []int32{0}),
		t.PutStrings(3, []string{""}),
		t.PutDoubles(4, []float64{math.MaxFloat64}),
		t.PutStrings(5, []string{h.CentreName}),
		t.PutInts(6, []int32{0}),
		t.PutInts(7, []int32{sourceID}),
		t.PutInts(8, []int32{-1}),
		t.PutDoubles(9, []float64{h.fieldTime()}),
		t.PutInts(10, []int32{0}),
	)
}
