package imaging

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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

// mean is combine's value for one sample's correlations corr, without
// its closures or a complex division (a third of FromMS's time): the
// runtime divides by complex(k, 0) with Smith's algorithm, whose ratio
// is then +0, so these are its operations and its bits (the -0s and
// NaNs of x*0 included); where both parts are NaN the runtime corrects
// infinities, so that case is left to it.
func (pp polPick) mean(corr []complex64) complex128 {
	var v complex128
	for _, i := range pp.idx {
		v += complex128(corr[i])
	}
	k := float64(len(pp.idx))
	re, im := real(v), imag(v)
	e, f := (re+im*0)/k, (im-re*0)/k
	if math.IsNaN(e) && math.IsNaN(f) {
		return v / complex(k, 0)
	}
	return complex(e, f)
}

// FromMS reads a Measurement Set gomatvis wrote (ms package; read with
// internal/casatable, so other writers' storage managers are refused):
// its UVW, DATA, FLAG and WEIGHT, channel frequencies and phase centre.
// Autocorrelations are left out, as WSClean leaves them out (with them
// a natural-weighted image of the pyuvsim reference is offset by half
// its peak from WSClean's).
func FromMS(path, pol string) (*Vis, WCS, error) {
	main, err := casatable.Open(path)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w (only Measurement Sets written by gomatvis can be read)", err)
	}
	defer main.Close()
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
	var weight []float32
	cols := []struct {
		t    *casatable.Table
		name string
		dst  any
	}{
		{spw, "CHAN_FREQ", &freqs}, {spw, "CHAN_WIDTH", &widths}, {polt, "CORR_TYPE", &corr}, {field, "PHASE_DIR", &dir},
	}
	for _, c := range cols {
		if err := column(c.t, c.name, c.dst); err != nil {
			return nil, WCS{}, fmt.Errorf("imaging: %s: %w", path, err)
		}
	}
	for _, c := range []struct {
		name string
		dst  any
	}{{"UVW", &uvw}, {"ANTENNA1", &a1}, {"ANTENNA2", &a2}, {"WEIGHT", &weight}, {"DATA", new([]complex64)}, {"FLAG", new([]bool)}} {
		// DATA and FLAG are only checked here (no rows): they are read
		// in blocks below.
		hi := main.Rows
		if c.name == "DATA" || c.name == "FLAG" {
			hi = 0
		}
		if err := mainColumn(main, c.name, 0, hi, c.dst); err != nil {
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
	ndata, nflag := cellSize(main, "DATA"), cellSize(main, "FLAG")
	if len(uvw) != 3*nrow || len(a1) != nrow || len(a2) != nrow || len(widths) != nf || ndata != nf*nc || nflag != ndata || len(weight) != nrow*nc || len(dir) < 2 {
		return nil, WCS{}, fmt.Errorf("imaging: %s: column sizes disagree (%d rows, %d channels, %d correlations: UVW %d, DATA %d, FLAG %d, WEIGHT %d values)", path, nrow, nf, nc, len(uvw), nrow*ndata, nrow*nflag, len(weight))
	}
	// out[k] is row k's place among the rows imaged, -1 for an
	// autocorrelation (not imaged, nor by WSClean).
	out := make([]int, nrow)
	n := 0
	for k := range nrow {
		out[k] = -1
		if a1[k] != a2[k] {
			out[k] = n
			n++
		}
	}
	v := &Vis{Freqs: freqs, UVW: make([][3]float64, n), Data: make([]complex128, n*nf), Weight: make([]float64, n*nf)}
	for k, o := range out {
		if o >= 0 {
			v.UVW[o] = [3]float64{uvw[3*k], uvw[3*k+1], uvw[3*k+2]}
		}
	}
	if err := readSamples(main, pp, out, weight, v); err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %s: %w", path, err)
	}
	return v, bandWCS(dir[0], dir[1], freqs, widths, pp.stokes), nil
}

// cellSize is the number of values in a cell of the main table's array
// column name (0 when it has none).
func cellSize(t *casatable.Columns, name string) int {
	for _, c := range t.Desc.Columns {
		if c.Name == name && c.Shape != nil {
			n := 1
			for _, s := range c.Shape {
				n *= s
			}
			return n
		}
	}
	return 0
}

// mainColumn stores rows lo to hi of the main table's column name in dst
// (a pointer to the slice type casatable gives for the column).
func mainColumn(t *casatable.Columns, name string, lo, hi int, dst any) error {
	vals, err := t.Cells(name, lo, hi)
	if err != nil {
		return err
	}
	return store(name, vals, dst)
}

// blockRows is how many rows of DATA and FLAG one worker decodes at a
// time: 4096 rows of 64 channels × 4 correlations are 8 MiB of DATA, so
// the whole column (1.25 GB for 350 antennas × 10 times) is never held.
const blockRows = 4096

// readSamples decodes DATA and FLAG in blocks of rows, on every core,
// forming pp's polarization and its weight for the rows out places.
func readSamples(t *casatable.Columns, pp polPick, out []int, weight []float32, v *Vis) error {
	nblock := (len(out) + blockRows - 1) / blockRows
	var next atomic.Int64
	errs := make([]error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(next.Add(1) - 1); b < nblock && errs[w] == nil; b = int(next.Add(1) - 1) {
				lo := b * blockRows
				errs[w] = sampleBlock(t, pp, out, weight, v, lo, min(len(out), lo+blockRows))
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sampleBlock fills v's samples of rows lo to hi.
func sampleBlock(t *casatable.Columns, pp polPick, out []int, weight []float32, v *Vis, lo, hi int) error {
	var data []complex64
	var flags []bool
	if err := mainColumn(t, "DATA", lo, hi, &data); err != nil {
		return err
	}
	if err := mainColumn(t, "FLAG", lo, hi, &flags); err != nil {
		return err
	}
	nf := len(v.Freqs)
	nc := len(weight) / len(out)
	for k := lo; k < hi; k++ {
		o := out[k]
		if o < 0 {
			continue
		}
		var w float64
		for _, i := range pp.idx {
			w += float64(weight[k*nc+i])
		}
		w /= float64(len(pp.idx))
		for c := range nf {
			off := ((k-lo)*nf + c) * nc
			v.Data[o*nf+c] = pp.mean(data[off : off+nc])
			om := w
			for _, i := range pp.idx {
				if flags[off+i] {
					om = 0
				}
			}
			v.Weight[o*nf+c] = om
		}
	}
	return nil
}

// column stores table t's column name in dst (a pointer to the slice
// type casatable gives for the column).
func column(t *casatable.Table, name string, dst any) error {
	for i, c := range t.Desc.Columns {
		if c.Name == name {
			return store(name, t.Values[i], dst)
		}
	}
	return fmt.Errorf("no column %s", name)
}

// store stores column name's values vals in dst (a pointer to their
// slice type).
func store(name string, vals, dst any) error {
	ok := false
	switch d := dst.(type) {
	case *[]float64:
		*d, ok = vals.([]float64)
	case *[]float32:
		*d, ok = vals.([]float32)
	case *[]int32:
		*d, ok = vals.([]int32)
	case *[]bool:
		*d, ok = vals.([]bool)
	case *[]complex64:
		*d, ok = vals.([]complex64)
	}
	if !ok {
		return fmt.Errorf("column %s has type %T, not %T", name, vals, dst)
	}
	return nil
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
