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
// pyuvsim writes them, into an MS: each time block is phased as the
// Phasing says and written, with the autos' parallel-hand imaginary parts
// set to zero as pyuvdata's fix_autos does.
type Drift struct {
	w     *Writer
	ph    *phase.Phaser
	eop   func(jd float64) (astro.EOP, error)
	index map[int]int // antenna number → index into the positions
	next  int         // the next time
}

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
	d := &Drift{w: w, ph: ph, eop: p.EOP, index: map[int]int{}}
	for i, n := range h.AntennaNumbers {
		d.index[n] = i
	}
	return d, nil
}

// DriftBlock is one time's unprojected rows: every baseline of the
// header at one time, visibilities C-ordered (row, channel,
// polarization) with the header's polarizations; Flags and Nsamples may
// be nil.
type DriftBlock struct {
	JD, LST    float64 // UTC Julian date; the apparent LST (radians) the data carry
	Ant1, Ant2 []int   // antenna numbers
	Vis        []complex128
	Flags      []bool
	Nsamples   []float32
}

// WriteTime phases and writes the next time's rows. b.Vis is not changed.
func (d *Drift) WriteTime(b DriftBlock) error {
	w := d.w
	if d.next >= len(w.h.Times) || b.JD != w.h.Times[d.next] {
		return fmt.Errorf("ms: %s: a block at JD %s where the header's time %d is next", w.path, jdStr(b.JD), d.next)
	}
	nb, np := w.h.Baselines, len(w.h.Pols)
	if len(b.Ant1) != nb || len(b.Ant2) != nb {
		return fmt.Errorf("ms: %s: a time block of %d and %d antennas; every time has %d rows", w.path, len(b.Ant1), len(b.Ant2), nb)
	}
	eop, err := d.eop(b.JD)
	if err != nil {
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	tm, err := d.ph.At(b.JD, b.LST, eop)
	if err != nil {
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	i1, i2 := make([]int, nb), make([]int, nb)
	for k := range nb {
		var ok1, ok2 bool
		i1[k], ok1 = d.index[b.Ant1[k]]
		i2[k], ok2 = d.index[b.Ant2[k]]
		if !ok1 || !ok2 {
			return fmt.Errorf("ms: %s: row %d: antennas %d, %d: not among the header's antenna numbers", w.path, k, b.Ant1[k], b.Ant2[k])
		}
	}
	vis := slices.Clone(b.Vis)
	out := Block{Ant1: b.Ant1, Ant2: b.Ant2, JD: fill(nb, b.JD), UVW: make([][3]float64, nb), Flags: b.Flags, Nsamples: b.Nsamples}
	if err := tm.Apply(i1, i2, w.h.Freqs, np, vis, out.UVW); err != nil {
		return fmt.Errorf("ms: %s: %w", w.path, err)
	}
	out.Data = make([]complex64, len(vis))
	for i, v := range vis {
		out.Data[i] = complex64(v)
	}
	w.fixAutos(out)
	if err := w.WriteRows(d.next*nb, out); err != nil {
		return err
	}
	d.next++
	return nil
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
