package ms

import (
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/uvh5"
)

// Phasing says how drift-scan rows are phased for the MS.
type Phasing struct {
	// Centre is the ICRS phase centre; nil phases to the zenith of the
	// first time, as pyuvdata's write_ms(force_phase=True) does.
	Centre *phase.Centre
	// EOP gives the Earth-orientation values at a UTC Julian date.
	EOP func(jd float64) (astro.EOP, error)
}

// WriteUVH5 writes the unprojected (drift-scan) rows of a UVH5 file, as
// gomatvis and pyuvsim write them, to a Measurement Set at path: phased
// as p says, one time block at a time, with the autos' parallel-hand
// imaginary parts set to zero as pyuvdata's fix_autos does. Rows must be
// grouped by time with the same number of rows at every time.
func WriteUVH5(path string, f *uvh5.File, p Phasing) error {
	h, err := headerOf(f)
	if err != nil {
		return fmt.Errorf("ms: %s from %s: %w", path, f.Path, err)
	}
	fh := &f.Header
	site := astro.Site{LatDeg: fh.Latitude, LonDeg: fh.Longitude, HeightM: fh.Altitude}
	centre := p.Centre
	if centre == nil {
		eop, err := p.EOP(h.Times[0])
		if err != nil {
			return fmt.Errorf("ms: %s: %w", path, err)
		}
		c, err := phase.ZenithCentre(site, h.Times[0], eop)
		if err != nil {
			return fmt.Errorf("ms: %s: %w", path, err)
		}
		centre = &c
	}
	h.CentreName, h.CentreRA, h.CentreDec = centre.Name, centre.RA, centre.Dec
	ph, err := phase.New(site, fh.AntennaPositions, *centre)
	if err != nil {
		return fmt.Errorf("ms: %s: %w", path, err)
	}
	w, err := Create(path, h)
	if err != nil {
		return err
	}
	for t := range h.Times {
		if err := w.writeTime(f, ph, p, t); err != nil {
			w.Abort()
			return fmt.Errorf("ms: %s: %w", path, err)
		}
	}
	return w.Close()
}

// headerOf takes the MS header from a UVH5 file (all but the centre).
func headerOf(f *uvh5.File) (Header, error) {
	fh := &f.Header
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
	if nblt == 0 {
		return h, fmt.Errorf("no rows")
	}
	h.IntegrationTime = fh.IntegrationTime[0]
	for k := range nblt {
		if fh.IntegrationTime[k] != h.IntegrationTime {
			return h, fmt.Errorf("integration_time varies (%v s at row 0, %v s at row %d); the MS writer takes one", h.IntegrationTime, fh.IntegrationTime[k], k)
		}
		if k == 0 || fh.Times[k] != fh.Times[k-1] {
			if slices.Contains(h.Times, fh.Times[k]) {
				return h, fmt.Errorf("time_array: JD %s recurs at row %d after other times; rows must be grouped by time", jdStr(fh.Times[k]), k)
			}
			h.Times = append(h.Times, fh.Times[k])
		}
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
	if !slices.IsSorted(h.Times) {
		return h, fmt.Errorf("time_array does not increase from one time block to the next")
	}
	return h, nil
}

// writeTime phases and writes the rows of time t.
func (w *Writer) writeTime(f *uvh5.File, ph *phase.Phaser, p Phasing, t int) error {
	fh := &f.Header
	nb, nf, np := w.h.Baselines, len(w.h.Freqs), len(w.h.Pols)
	lo, hi := t*nb, (t+1)*nb
	jd := w.h.Times[t]
	eop, err := p.EOP(jd)
	if err != nil {
		return err
	}
	tm, err := ph.At(jd, fh.LSTs[lo], eop)
	if err != nil {
		return err
	}
	index := map[int64]int{}
	for i, n := range fh.AntennaNumbers {
		index[n] = i
	}
	b := Block{UVW: make([][3]float64, nb), JD: fill(nb, jd)}
	var i1, i2 []int
	for k := lo; k < hi; k++ {
		b.Ant1 = append(b.Ant1, int(fh.Ant1[k]))
		b.Ant2 = append(b.Ant2, int(fh.Ant2[k]))
		i1 = append(i1, index[fh.Ant1[k]])
		i2 = append(i2, index[fh.Ant2[k]])
	}
	vis := slices.Clone(f.Vis[lo*nf*np : hi*nf*np])
	if err := tm.Apply(i1, i2, fh.Freqs, np, vis, b.UVW); err != nil {
		return err
	}
	b.Data = make([]complex64, len(vis))
	for i, v := range vis {
		b.Data[i] = complex64(v)
	}
	w.fixAutos(b)
	if f.Flags != nil {
		b.Flags = f.Flags[lo*nf*np : hi*nf*np]
	}
	if f.Nsamples != nil {
		b.Nsamples = f.Nsamples[lo*nf*np : hi*nf*np]
	}
	return w.WriteRows(lo, b)
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
