package ms

import (
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/uvh5"
)

// Phasing says how drift-scan rows are phased for the MS: a nil Centre
// phases to the zenith of the first time, as pyuvdata's
// write_ms(force_phase=True) does.
type Phasing = phase.Target

// Drift streams unprojected (drift-scan) rows, as gomatvis simulates and
// pyuvsim writes them, into an MS: each time's rows are phased as the
// Phasing says and written, with the autos' parallel-hand imaginary parts
// set to zero as pyuvdata's fix_autos does. Rows go through bounded
// buffers (a piece of about 4 MB of complex128 at a time), so that a
// time's rows need not be held whole beside the caller's.
type Drift struct {
	w     *Writer
	ph    *phase.Phaser
	eop   func(jd float64) (astro.EOP, error)
	index map[int]int // antenna number → index into the positions
	next  int         // the next time
	row   int         // the rows of the next time written
	at    *phase.Time // the next time's phasing, once its first rows came
	piece int         // the most visibilities phased and written at once
	buf   driftBuf
}

// driftBuf is one piece's buffers, reused from piece to piece.
type driftBuf struct {
	i1, i2 []int
	uvw    [][3]float64
	jd     []float64
	data   []complex64
}

// pieceValues bounds the visibilities phased and written at once.
const pieceValues = 1 << 18

// NewDrift creates the MS at path for the rows a UVH5 header describes
// (HeaderFromUVH5 gives the MS header; its centre is set here) and
// returns a Drift to stream them into, time block by time block.
func NewDrift(path string, uh *uvh5.Header, p Phasing) (*Drift, error) {
	h, err := HeaderFromUVH5(uh)
	if err != nil {
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	if p.EOP == nil {
		return nil, fmt.Errorf("ms: %s: phasing needs Earth-orientation values (Phasing.EOP)", path)
	}
	site := astro.Site{LatDeg: uh.Latitude, LonDeg: uh.Longitude, HeightM: uh.Altitude}
	centre, err := p.CentreFor(site, h.Times)
	if err != nil {
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	h.CentreName, h.CentreRA, h.CentreDec = centre.Name, centre.RA, centre.Dec
	ph, err := phase.New(site, uh.AntennaPositions, centre)
	if err != nil {
		return nil, fmt.Errorf("ms: %s: %w", path, err)
	}
	w, err := Create(path, h)
	if err != nil {
		return nil, err
	}
	d := &Drift{w: w, ph: ph, eop: p.EOP, index: map[int]int{}, piece: pieceValues}
	for i, n := range h.AntennaNumbers {
		d.index[n] = i
	}
	return d, nil
}

// DriftBlock is unprojected rows of one time: every baseline of the
// header (WriteTime) or a run of them (WriteRows), visibilities C-ordered
// (row, channel, polarization) with the header's polarizations; Flags
// and Nsamples may be nil.
type DriftBlock struct {
	JD, LST    float64 // UTC Julian date; the apparent LST (radians) the data carry
	Ant1, Ant2 []int   // antenna numbers
	Vis        []complex128
	Flags      []bool
	Nsamples   []float32
}

// WriteTime phases and writes the next time's rows. b.Vis is not changed.
func (d *Drift) WriteTime(b DriftBlock) error {
	if nb := d.w.h.Baselines; len(b.Ant1) != nb || len(b.Ant2) != nb {
		return fmt.Errorf("ms: %s: a time block of %d and %d antennas; every time has %d rows", d.w.path, len(b.Ant1), len(b.Ant2), nb)
	}
	return d.WriteRows(0, b)
}

// NextRow is the time and the row within it that WriteRows takes next.
func (d *Drift) NextRow() (t, k int) { return d.next, d.row }

// WriteRows phases and writes rows [k0, k0+n) of the next time's
// Baselines rows, n being b's: k0 is the number of that time's rows
// written before (NextRow), and a time is done when all its rows are.
// b.Vis is not changed.
func (d *Drift) WriteRows(k0 int, b DriftBlock) error {
	w := d.w
	nb, n := w.h.Baselines, len(b.Ant1)
	nv := len(w.h.Freqs) * len(w.h.Pols)
	switch {
	case d.next >= len(w.h.Times) || b.JD != w.h.Times[d.next]:
		return fmt.Errorf("ms: %s: a block at JD %s where the header's time %d is next", w.path, jdStr(b.JD), d.next)
	case k0 != d.row || k0+n > nb || len(b.Ant2) != n:
		return fmt.Errorf("ms: %s: rows [%d, %d) of a time (%d second antennas) where row %d of %d is next", w.path, k0, k0+n, len(b.Ant2), d.row, nb)
	case len(b.Vis) != n*nv:
		return fmt.Errorf("ms: %s: %d rows × %d channels × %d polarizations have %d visibilities", w.path, n, len(w.h.Freqs), len(w.h.Pols), len(b.Vis))
	case b.Flags != nil && len(b.Flags) != n*nv, b.Nsamples != nil && len(b.Nsamples) != n*nv:
		return fmt.Errorf("ms: %s: %d flags and %d sample counts for %d visibilities", w.path, len(b.Flags), len(b.Nsamples), n*nv)
	}
	bf := &d.buf
	bf.i1, bf.i2 = grow(bf.i1, n), grow(bf.i2, n)
	for k := range n {
		var ok1, ok2 bool
		bf.i1[k], ok1 = d.index[b.Ant1[k]]
		bf.i2[k], ok2 = d.index[b.Ant2[k]]
		if !ok1 || !ok2 {
			return fmt.Errorf("ms: %s: row %d: antennas %d, %d: not among the header's antenna numbers", w.path, d.next*nb+k0+k, b.Ant1[k], b.Ant2[k])
		}
	}
	if d.at == nil {
		eop, err := d.eop(b.JD)
		if err != nil {
			return fmt.Errorf("ms: %s: %w", w.path, err)
		}
		if d.at, err = d.ph.At(b.JD, b.LST, eop); err != nil {
			return fmt.Errorf("ms: %s: %w", w.path, err)
		}
	}
	per := max(1, d.piece/nv)
	for lo := 0; lo < n; lo += per {
		hi := min(n, lo+per)
		if err := d.writePiece(k0+lo, b, lo, hi, nv); err != nil {
			return err
		}
	}
	d.row += n
	if d.row == nb {
		d.next, d.row, d.at = d.next+1, 0, nil
	}
	return nil
}

// writePiece phases rows [lo, hi) of b, rows k0… of the next time, and
// writes them; d.buf's i1 and i2 hold b's antenna indices.
func (d *Drift) writePiece(k0 int, b DriftBlock, lo, hi, nv int) error {
	w, bf, n := d.w, &d.buf, hi-lo
	bf.uvw, bf.jd = grow(bf.uvw, n), grow(bf.jd, n)
	for k := range bf.jd {
		bf.jd[k] = b.JD
	}
	bf.data = grow(bf.data, n*nv)
	if err := d.at.ApplyTo(bf.data, bf.i1[lo:hi], bf.i2[lo:hi], w.h.Freqs, len(w.h.Pols), b.Vis[lo*nv:hi*nv], bf.uvw); err != nil {
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	out := Block{Ant1: b.Ant1[lo:hi], Ant2: b.Ant2[lo:hi], JD: bf.jd, UVW: bf.uvw, Data: bf.data}
	if b.Flags != nil {
		out.Flags = b.Flags[lo*nv : hi*nv]
	}
	if b.Nsamples != nil {
		out.Nsamples = b.Nsamples[lo*nv : hi*nv]
	}
	w.fixAutos(out)
	return w.WriteRows(d.next*w.h.Baselines+k0, out)
}

// Close completes the MS (every time must have been written).
func (d *Drift) Close() error { return d.w.Close() }

// CloseAs is Close renaming the MS to dest (Writer.CloseAs).
func (d *Drift) CloseAs(dest string) error { return d.w.CloseAs(dest) }

// Abort removes what was written.
func (d *Drift) Abort() { d.w.Abort() }

// WriteUVH5 writes the unprojected rows of a UVH5 file to a Measurement
// Set at path through a Drift, one time block at a time. Rows must be
// grouped by time with the same number of rows at every time.
func WriteUVH5(path string, f *uvh5.File, p Phasing) error {
	d, err := NewDrift(path, &f.Header, p)
	if err != nil {
		return fmt.Errorf("%w (from %s)", err, f.Path)
	}
	fh := &f.Header
	nb, nv := d.w.h.Baselines, len(fh.Freqs)*len(fh.Pols)
	for t, jd := range d.w.h.Times {
		lo, hi := t*nb, (t+1)*nb
		b := DriftBlock{JD: jd, LST: fh.LSTs[lo], Vis: f.Vis[lo*nv : hi*nv]}
		for k := lo; k < hi; k++ {
			b.Ant1 = append(b.Ant1, int(fh.Ant1[k]))
			b.Ant2 = append(b.Ant2, int(fh.Ant2[k]))
		}
		if f.Flags != nil {
			b.Flags = f.Flags[lo*nv : hi*nv]
		}
		if f.Nsamples != nil {
			b.Nsamples = f.Nsamples[lo*nv : hi*nv]
		}
		if err := d.WriteTime(b); err != nil {
			d.Abort()
			return err
		}
	}
	return d.Close()
}

// HeaderFromUVH5 takes the MS header from a UVH5 header (all but the
// phase centre): gomatvis's UVH5 writer and pyuvsim fill the same
// fields. Rows must be grouped by time, each time with the same number
// of rows and one integration time.
func HeaderFromUVH5(fh *uvh5.Header) (Header, error) {
	h := Header{
		TelescopeName: fh.TelescopeName,
		LatDeg:        fh.Latitude, LonDeg: fh.Longitude, AltM: fh.Altitude,
		AntennaNames: fh.AntennaNames, AntennaECEF: fh.AntennaPositions,
		Freqs: fh.Freqs, ChannelWidths: fh.ChannelWidth,
		VisUnits: fh.VisUnits, History: fh.History,
	}
	for _, n := range fh.AntennaNumbers {
		h.AntennaNumbers = append(h.AntennaNumbers, int(n))
	}
	for _, p := range fh.Pols {
		h.Pols = append(h.Pols, int(p))
	}
	nblt := len(fh.Times)
	if nblt == 0 || len(fh.IntegrationTime) != nblt || len(fh.LSTs) != nblt {
		return h, fmt.Errorf("%d rows with %d integration times and %d LSTs: need at least one row, and one of each per row", nblt, len(fh.IntegrationTime), len(fh.LSTs))
	}
	h.IntegrationTime = fh.IntegrationTime[0]
	varies := false
	for k := range nblt {
		if k == 0 || fh.Times[k] != fh.Times[k-1] {
			if slices.Contains(h.Times, fh.Times[k]) {
				return h, fmt.Errorf("time_array: JD %s recurs at row %d after other times; rows must be grouped by time", jdStr(fh.Times[k]), k)
			}
			h.Times = append(h.Times, fh.Times[k])
			h.IntegrationTimes = append(h.IntegrationTimes, fh.IntegrationTime[k])
			varies = varies || fh.IntegrationTime[k] != h.IntegrationTime
		} else if fh.IntegrationTime[k] != fh.IntegrationTime[k-1] {
			return h, fmt.Errorf("integration_time varies within the time at JD %s (%v s, then %v s at row %d); the MS writer takes one per time", jdStr(fh.Times[k]), fh.IntegrationTime[k-1], fh.IntegrationTime[k], k)
		}
	}
	if !varies {
		h.IntegrationTimes = nil
	}
	if nblt%len(h.Times) != 0 {
		return h, fmt.Errorf("%d rows over %d times: every time needs the same number of rows", nblt, len(h.Times))
	}
	h.Baselines = nblt / len(h.Times)
	for t := range h.Times {
		for k := t * h.Baselines; k < (t+1)*h.Baselines; k++ {
			if fh.Times[k] != h.Times[t] {
				return h, fmt.Errorf("row %d has JD %s where time %d (JD %s) has %d rows", k, jdStr(fh.Times[k]), t, jdStr(h.Times[t]), h.Baselines)
			}
		}
	}
	return h, nil
}

// fixAutos zeroes the imaginary part of the autos' parallel hands, which
// is rounding only (pyuvdata's check(fix_autos=True)).
func (w *Writer) fixAutos(b Block) {
	nf, np := len(w.h.Freqs), len(w.h.Pols)
	for k := range b.Ant1 {
		if b.Ant1[k] != b.Ant2[k] {
			continue
		}
		for p, code := range w.h.Pols {
			if f := feeds[code]; f[0] != f[1] {
				continue
			}
			for c := range nf {
				i := (k*nf+c)*np + p
				b.Data[i] = complex(real(b.Data[i]), 0)
			}
		}
	}
}
