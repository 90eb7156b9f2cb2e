package uvdata

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/uvfits"
	"github.com/gomatvis/gomatvis/uvh5"
)

// UVFITSPhasing says how CreateUVFITSWith writes the rows: phased to
// Centre, or to the first time's zenith when Centre is nil (pyuvsim's
// UVFITS: pyuvdata's write_uvfits(force_phase=True)); or, with Drift,
// unphased.
type UVFITSPhasing struct {
	Drift  bool
	Centre *phase.Centre
}

// CreateUVFITS is Create writing UVFITS (package uvfits) instead of UVH5,
// as pyuvsim writes it: the same rows (baseline-times, the UVH5's
// order), phased to the zenith of the first time as pyuvdata's
// write_uvfits(force_phase=True, fix_autos=True) phases them, in
// pyuvdata's UVFITS conventions (visibilities conjugated, uvw negated and
// in seconds). See CreateUVFITSWith.
func CreateUVFITS(path string, sim *matvis.Simulation, obs *matvis.Observation) (*Writer, error) {
	return CreateUVFITSWith(path, sim, obs, UVFITSPhasing{})
}

// CreateUVFITSWith is CreateUVFITS phased as p says.
//
// Phased (pyuvdata 2.4's phase_to_time, then phase, through matvis/phase):
// each row's uvw is the phased baseline, its visibilities multiplied by
// exp(−2πi·w·f/c) as they are written, the autos' parallel hands made
// real (fix_autos); the header names the centre (OBJECT the whole name,
// the SU table's SOURCE its first 20 characters, RA/DEC and RAEPO/DECEPO
// its ICRS position, RAAPP/DECAPP the median over the rows of its
// apparent position) and has no PHASED keyword, as pyuvdata's file.
//
// Drift: the data as the UVH5 holds them, unphased; the header names the
// first time's zenith (OBJECT "zenith", RA/DEC its ICRS position) because
// UVFITS has no unprojected phase centre, and says PHASED = F. pyuvdata
// reads such a file as phased there and warns that its uvws do not match
// (docs/uvfits.md).
func CreateUVFITSWith(path string, sim *matvis.Simulation, obs *matvis.Observation, p UVFITSPhasing) (*Writer, error) {
	l, err := NewLayout(sim, obs)
	if err != nil {
		return nil, err
	}
	h, err := l.Header()
	if err != nil {
		return nil, err
	}
	var eop astro.EOP
	if l.EOP != nil {
		eop = l.EOP[0]
	}
	if p.Drift {
		return createDriftUVFITS(path, sim, obs, l, h, eop)
	}
	centre := p.Centre
	if centre == nil {
		c, err := phase.ZenithCentre(l.Site, l.Times[0], eop)
		if err != nil {
			return nil, fmt.Errorf("uvdata: %s: %w", path, err)
		}
		centre = &c
	}
	pr, appRA, appDec, err := phaseRows(l, h, *centre)
	if err != nil {
		return nil, fmt.Errorf("uvdata: %s: %w", path, err)
	}
	deg := 180 / math.Pi
	w, err := uvfits.Create(path, h, uvfits.Options{
		PhaseCenter: uvfits.PhaseCenter{Name: centre.Name, RADeg: centre.RA * deg, DecDeg: centre.Dec * deg,
			Frame: "icrs", Epoch: 2000, AppRADeg: appRA * deg, AppDecDeg: appDec * deg},
		EOP: eop,
	})
	if err != nil {
		return nil, err
	}
	pr.rowWriter = w
	return newWriter(pr, sim, obs), nil
}

// createDriftUVFITS writes the rows unphased (PHASED = F).
func createDriftUVFITS(path string, sim *matvis.Simulation, obs *matvis.Observation, l *Layout, h *uvh5.Header, eop astro.EOP) (*Writer, error) {
	ra, dec, err := zenithICRS(l.Site, l.Times[0], eop)
	if err != nil {
		return nil, fmt.Errorf("uvdata: the zenith of the first time: %w", err)
	}
	lst := h.LSTs[0] * 180 / math.Pi
	w, err := uvfits.Create(path, h, uvfits.Options{
		PhaseCenter: uvfits.PhaseCenter{Name: "zenith", RADeg: ra * 180 / math.Pi, DecDeg: dec * 180 / math.Pi,
			Frame: "icrs", Epoch: 2000, AppRADeg: lst, AppDecDeg: l.Site.LatDeg},
		EOP:      eop,
		Keywords: []uvfits.Keyword{{Name: "PHASED", Value: false}},
	})
	if err != nil {
		return nil, err
	}
	return newWriter(w, sim, obs), nil
}

// phaseRows sets h's uvw to the rows' phased uvw and returns the row
// writer that phases their visibilities, with the median over the rows
// of the centre's apparent RA and Dec (pyuvdata's SU RAAPP, DECAPP).
func phaseRows(l *Layout, h *uvh5.Header, centre phase.Centre) (pr *phasedRows, appRA, appDec float64, err error) {
	ph, err := phase.New(l.Site, h.AntennaPositions, centre)
	if err != nil {
		return nil, 0, 0, err
	}
	nbl := len(l.Baselines)
	pr = &phasedRows{w: make([]float64, len(h.UVW)), freqs: l.Freqs, np: len(l.Pols), auto: make([]bool, nbl)}
	for p, code := range l.Pols {
		if code == -5 || code == -6 || code == -1 || code == -2 { // xx, yy, rr, ll
			pr.parallel = append(pr.parallel, p)
		}
	}
	for k, b := range l.Baselines {
		pr.auto[k] = b[0] == b[1]
	}
	pr.nbl = nbl
	ras, decs := make([]float64, len(l.Times)), make([]float64, len(l.Times))
	for t, jd := range l.Times {
		var eop astro.EOP
		if l.EOP != nil {
			eop = l.EOP[t]
		}
		tm, err := ph.At(jd, h.LSTs[t*nbl], eop)
		if err != nil {
			return nil, 0, 0, err
		}
		ras[t], decs[t] = tm.AppRA, tm.AppDec
		for k, b := range l.Baselines {
			r := t*nbl + k
			h.UVW[r] = tm.UVW(b[0], b[1])
			pr.w[r] = h.UVW[r][2]
		}
	}
	return pr, repeatedMedian(ras, nbl), repeatedMedian(decs, nbl), nil
}

// repeatedMedian is numpy's median of the values each repeated n times
// (a per-time value over the rows): the middle one, or the mean of the
// two middle ones of an even count.
func repeatedMedian(v []float64, n int) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	at := func(i int) float64 { return s[i/n] }
	m := len(s) * n
	if m%2 == 1 {
		return at(m / 2)
	}
	return (at(m/2-1) + at(m/2)) / 2
}

// phasedRows phases the rows a Writer hands to a UVFITS file: row r's
// values are multiplied by exp(−2πi·w_r·f/c) (matvis/phase.WTerm), in the
// Writer's own piece buffer, and the autos' parallel hands made real, as
// pyuvdata's fix_autos does.
type phasedRows struct {
	rowWriter
	w        []float64 // each row's phased w (m)
	freqs    []float64
	np, nbl  int
	auto     []bool // per baseline
	parallel []int  // the polarizations whose autos are real
}

func (p *phasedRows) WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error {
	p.apply(bltStart, 0, len(p.freqs), vis)
	return p.rowWriter.WriteBlock(bltStart, vis, flags, nsamples)
}

func (p *phasedRows) WriteChannels(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	p.apply(bltStart, f0, f1, vis)
	return p.rowWriter.WriteChannels(bltStart, n, f0, f1, vis, flags, nsamples)
}

// apply phases the rows from bltStart of channels [f0, f1) in vis, its
// rows split between the cores.
func (p *phasedRows) apply(bltStart, f0, f1 int, vis []complex128) {
	p.applyOn(bltStart, f0, f1, vis, blocks.Workers(len(vis), splitGrain))
}

// applyOn is apply on workers goroutines; each row is its own, so the
// split does not change a bit (TestPhaseSplit).
func (p *phasedRows) applyOn(bltStart, f0, f1 int, vis []complex128, workers int) {
	if f0 < 0 || f1 > len(p.freqs) || f0 >= f1 {
		return // the file refuses the channels
	}
	per := (f1 - f0) * p.np
	n := min(len(vis)/per, max(0, len(p.w)-bltStart))
	blocks.Run(n, workers, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			p.applyRow(bltStart+r, f0, f1, vis[r*per:(r+1)*per])
		}
	})
}

// applyRow phases row blt's channels [f0, f1), in row.
func (p *phasedRows) applyRow(blt, f0, f1 int, row []complex128) {
	w := p.w[blt]
	for c := f0; c < f1; c++ {
		ph := phase.WTerm(w, p.freqs[c])
		for q := range p.np {
			row[(c-f0)*p.np+q] *= ph
		}
	}
	if p.auto[blt%p.nbl] {
		for c := range f1 - f0 {
			for _, q := range p.parallel {
				row[c*p.np+q] = complex(real(row[c*p.np+q]), 0)
			}
		}
	}
}

// zenithICRS is the ICRS right ascension and declination (radians) of the
// site's zenith at jd: the direction the simulator's astrometry (astropy's
// AltAz chain, astro.MethodAstropy) puts at ENU (0, 0, 1), found by
// correcting a first guess (apparent LST, latitude) by its east and north
// offsets until they vanish.
func zenithICRS(site astro.Site, jd float64, eop astro.EOP) (ra, dec float64, err error) {
	lst, err := astro.ApparentLST(jd, site.LonDeg*math.Pi/180, eop)
	if err != nil {
		return 0, 0, err
	}
	ra, dec = lst, site.LatDeg*math.Pi/180
	e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	for range 8 {
		rot, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{jd}, EOP: []astro.EOP{eop}},
			[]float64{ra}, []float64{dec})
		if err != nil {
			return 0, 0, err
		}
		if err := rot.ENU(0, e, n, u); err != nil {
			return 0, 0, err
		}
		// Near the zenith a source δ north sits δ to the north and one α
		// further in RA sits α·cos(dec) to the east.
		ra -= e[0] / math.Cos(dec)
		dec -= n[0]
		if math.Hypot(e[0], n[0]) < 1e-13 {
			break
		}
	}
	return math.Mod(ra+2*math.Pi, 2*math.Pi), dec, nil
}
