package imaging

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/internal/casatable"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/uvh5"
)

// polPick says which correlations make the imaged polarization and how:
// the value is the mean of the listed correlations (Stokes I = (XX + YY)/2
// for linear feeds, (RR + LL)/2 for circular), as WSClean forms it.
type polPick struct {
	idx    []int // indices into the data's correlations
	stokes int   // the FITS STOKES code
}

// AIPS polarization codes (UVH5) and CASA correlation types (MS).
var (
	aipsCode = map[string]int{"xx": -5, "yy": -6, "xy": -7, "yx": -8, "rr": -1, "ll": -2, "rl": -3, "lr": -4, "i": 1}
	casaCode = map[int]int{-1: 5, -2: 8, -3: 6, -4: 7, -5: 9, -6: 12, -7: 10, -8: 11, 1: 1}
)

// pickPol finds pol ("I", "xx", "yy", …, any case) among the data's
// correlations (codes in the file's own convention, via code).
func pickPol(pol string, have []int, code func(aips int) int, file string) (polPick, error) {
	p := strings.ToLower(pol)
	find := func(aips int) int {
		for i, h := range have {
			if h == code(aips) {
				return i
			}
		}
		return -1
	}
	a, ok := aipsCode[p]
	if !ok {
		return polPick{}, fmt.Errorf("imaging: polarization %q: want I, xx, yy, xy, yx, rr, ll, rl or lr", pol)
	}
	if i := find(a); i >= 0 {
		return polPick{idx: []int{i}, stokes: a}, nil
	}
	if p == "i" {
		for _, pair := range [][2]int{{-5, -6}, {-1, -2}} {
			if i, j := find(pair[0]), find(pair[1]); i >= 0 && j >= 0 {
				return polPick{idx: []int{i, j}, stokes: 1}, nil
			}
		}
	}
	return polPick{}, fmt.Errorf("imaging: %s: polarization %q is not in the data (correlations %v): pick one it has (--pol)", file, pol, have)
}

// combine returns the picked polarization of one sample (its
// correlations at offset off, stride 1) and whether any is flagged.
func (pp polPick) combine(data func(i int) complex128, flag func(i int) bool) (complex128, bool) {
	var v complex128
	bad := false
	for _, i := range pp.idx {
		v += data(i)
		bad = bad || flag(i)
	}
	return v / complex(float64(len(pp.idx)), 0), bad
}

// FromMS reads a Measurement Set gomatvis wrote (ms package; read with
// internal/casatable, so other writers' storage managers are refused):
// its UVW, DATA, FLAG and WEIGHT, channel frequencies and phase centre.
// Autocorrelations are left out, as WSClean leaves them out (with them
// a natural-weighted image of the pyuvsim reference is offset by half
// its peak from WSClean's).
func FromMS(path, pol string) (*Vis, WCS, error) {
	main, err := casatable.Read(path)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w (only Measurement Sets written by gomatvis can be read)", err)
	}
	spw, err := casatable.Read(filepath.Join(path, "SPECTRAL_WINDOW"))
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w", err)
	}
	polt, err := casatable.Read(filepath.Join(path, "POLARIZATION"))
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w", err)
	}
	field, err := casatable.Read(filepath.Join(path, "FIELD"))
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w", err)
	}
	var freqs, widths []float64
	var corr []int32
	var dir []float64
	var uvw []float64
	var a1, a2 []int32
	var data []complex64
	var flags []bool
	var weight []float32
	cols := []struct {
		t    *casatable.Table
		name string
		dst  any
	}{
		{spw, "CHAN_FREQ", &freqs}, {spw, "CHAN_WIDTH", &widths}, {polt, "CORR_TYPE", &corr}, {field, "PHASE_DIR", &dir},
		{main, "UVW", &uvw}, {main, "ANTENNA1", &a1}, {main, "ANTENNA2", &a2}, {main, "DATA", &data}, {main, "FLAG", &flags}, {main, "WEIGHT", &weight},
	}
	for _, c := range cols {
		if err := column(c.t, c.name, c.dst); err != nil {
			return nil, WCS{}, fmt.Errorf("imaging: %s: %w", path, err)
		}
	}
	if spw.Rows != 1 || polt.Rows != 1 || field.Rows != 1 {
		return nil, WCS{}, fmt.Errorf("imaging: %s: %d spectral windows, %d polarization setups, %d fields: one of each is supported", path, spw.Rows, polt.Rows, field.Rows)
	}
	have := make([]int, len(corr))
	for i, c := range corr {
		have[i] = int(c)
	}
	pp, err := pickPol(pol, have, func(a int) int { return casaCode[a] }, path)
	if err != nil {
		return nil, WCS{}, err
	}
	nrow, nf, nc := main.Rows, len(freqs), len(corr)
	if len(uvw) != 3*nrow || len(a1) != nrow || len(a2) != nrow || len(widths) != nf || len(data) != nrow*nf*nc || len(flags) != len(data) || len(weight) != nrow*nc || len(dir) < 2 {
		return nil, WCS{}, fmt.Errorf("imaging: %s: column sizes disagree (%d rows, %d channels, %d correlations: UVW %d, DATA %d, FLAG %d, WEIGHT %d values)", path, nrow, nf, nc, len(uvw), len(data), len(flags), len(weight))
	}
	// Sized for every row at once: appending 39 M samples would copy
	// them over and over (a 350-antenna × 64-channel × 10-time set).
	v := &Vis{Freqs: freqs, UVW: make([][3]float64, 0, nrow), Data: make([]complex128, 0, nrow*nf), Weight: make([]float64, 0, nrow*nf)}
	for k := range nrow {
		if a1[k] == a2[k] {
			continue // autocorrelations are not imaged (nor by WSClean)
		}
		v.UVW = append(v.UVW, [3]float64{uvw[3*k], uvw[3*k+1], uvw[3*k+2]})
		var w float64
		for _, i := range pp.idx {
			w += float64(weight[k*nc+i])
		}
		w /= float64(len(pp.idx))
		for c := range nf {
			off := (k*nf + c) * nc
			val, bad := pp.combine(func(i int) complex128 { return complex128(data[off+i]) }, func(i int) bool { return flags[off+i] })
			om := w
			if bad {
				om = 0
			}
			v.Data = append(v.Data, val)
			v.Weight = append(v.Weight, om)
		}
	}
	return v, bandWCS(dir[0], dir[1], freqs, widths, pp.stokes), nil
}

// column stores table t's column name in dst (a pointer to the slice
// type casatable gives for the column).
func column(t *casatable.Table, name string, dst any) error {
	for i, c := range t.Desc.Columns {
		if c.Name != name {
			continue
		}
		ok := false
		switch d := dst.(type) {
		case *[]float64:
			*d, ok = t.Values[i].([]float64)
		case *[]float32:
			*d, ok = t.Values[i].([]float32)
		case *[]int32:
			*d, ok = t.Values[i].([]int32)
		case *[]bool:
			*d, ok = t.Values[i].([]bool)
		case *[]complex64:
			*d, ok = t.Values[i].([]complex64)
		}
		if !ok {
			return fmt.Errorf("column %s has type %T, not %T", name, t.Values[i], dst)
		}
		return nil
	}
	return fmt.Errorf("no column %s", name)
}

// bandWCS is the WCS of a band's image: the centre, the band's middle and
// span from the lowest channel's lower edge to the highest's upper edge
// (WSClean's FREQ axis).
func bandWCS(ra, dec float64, freqs, widths []float64, stokes int) WCS {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, f := range freqs {
		var w float64
		if i < len(widths) {
			w = math.Abs(widths[i])
		}
		lo, hi = min(lo, f-w/2), max(hi, f+w/2)
	}
	return WCS{RA: ra, Dec: dec, Freq: (lo + hi) / 2, Bandwidth: hi - lo, Stokes: stokes}
}

// Phasing says where a drift-scan UVH5 is phased to: a nil Centre means
// the zenith of the first time (pyuvdata's phase_to_time, what the MS
// writer does).
type Phasing = phase.Target

// FromUVH5 takes polarization pol of an unprojected (drift-scan) UVH5
// file, gomatvis's or pyuvsim's, phased as p says with matvis/phase;
// autocorrelations are left out, as in FromMS.
func FromUVH5(f *uvh5.File, pol string, p Phasing) (*Vis, WCS, error) {
	h := &f.Header
	for _, c := range f.Catalog {
		if c.Type != "unprojected" {
			return nil, WCS{}, fmt.Errorf("imaging: %s: phase centre %q is %s; only unprojected (drift-scan) files are imaged (write an MS with gomatvis to image phased data)", f.Path, c.Name, c.Type)
		}
	}
	have := make([]int, len(h.Pols))
	for i, c := range h.Pols {
		have[i] = int(c)
	}
	pp, err := pickPol(pol, have, func(a int) int { return a }, f.Path)
	if err != nil {
		return nil, WCS{}, err
	}
	if p.EOP == nil {
		return nil, WCS{}, fmt.Errorf("imaging: %s: phasing needs Earth-orientation values", f.Path)
	}
	site := astro.Site{LatDeg: h.Latitude, LonDeg: h.Longitude, HeightM: h.Altitude}
	centre, err := p.CentreFor(site, h.Times)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %s: %w", f.Path, err)
	}
	ph, err := phase.New(site, h.AntennaPositions, centre)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %s: %w", f.Path, err)
	}
	v, err := phaseRows(f, pp, ph, p.EOP)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %s: %w", f.Path, err)
	}
	w := bandWCS(centre.RA, centre.Dec, h.Freqs, h.ChannelWidth, pp.stokes)
	return v, w, nil
}

// phaseRows combines each row's polarization and phases it.
func phaseRows(f *uvh5.File, pp polPick, ph *phase.Phaser, eop func(float64) (astro.EOP, error)) (*Vis, error) {
	h := &f.Header
	index := map[int64]int{}
	for i, n := range h.AntennaNumbers {
		index[n] = i
	}
	// Autocorrelations are not imaged (nor by WSClean).
	var rows []int
	for k := range h.Ant1 {
		if h.Ant1[k] != h.Ant2[k] {
			rows = append(rows, k)
		}
	}
	nrow, nf, np := len(rows), len(h.Freqs), len(h.Pols)
	v := &Vis{Freqs: h.Freqs, UVW: make([][3]float64, nrow), Data: make([]complex128, nrow*nf), Weight: make([]float64, nrow*nf)}
	for r, k := range rows {
		for c := range nf {
			off := (k*nf + c) * np
			val, bad := pp.combine(func(i int) complex128 { return f.Vis[off+i] }, func(i int) bool { return f.Flags != nil && f.Flags[off+i] })
			v.Data[r*nf+c] = val
			if !bad {
				v.Weight[r*nf+c] = sampleWeight(f, pp, off)
			}
		}
	}
	times := map[float64]*phase.Time{}
	for r, k := range rows {
		jd := h.Times[k]
		tm := times[jd]
		if tm == nil {
			e, err := eop(jd)
			if err != nil {
				return nil, err
			}
			if tm, err = ph.At(jd, h.LSTs[k], e); err != nil {
				return nil, err
			}
			times[jd] = tm
		}
		i1, ok1 := index[h.Ant1[k]]
		i2, ok2 := index[h.Ant2[k]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("row %d: antennas %d, %d are not among antenna_numbers", k, h.Ant1[k], h.Ant2[k])
		}
		if err := tm.Apply([]int{i1}, []int{i2}, h.Freqs, 1, v.Data[r*nf:(r+1)*nf], v.UVW[r:r+1]); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// sampleWeight is the mean sample count of the picked correlations (1
// when the file has none).
func sampleWeight(f *uvh5.File, pp polPick, off int) float64 {
	if f.Nsamples == nil {
		return 1
	}
	var w float64
	for _, i := range pp.idx {
		w += float64(f.Nsamples[off+i])
	}
	return w / float64(len(pp.idx))
}
