// Package uvdata writes a simulation's visibilities as UVH5, laid out as
// pyuvsim writes them (see matvis.Observation): baseline-time rows
// time-major, baselines in the observation's order, polarizations as
// pyuvdata numbers them, uvw = ENU(ant2) − ENU(ant1), and the header
// values pyuvdata derives (LST, ECEF antenna positions).
package uvdata

import (
	"errors"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/uvh5"
)

// Header builds the UVH5 header of sim's output as obs describes it. obs
// must have made sim through UseConventions.
func Header(sim *matvis.Simulation, obs *matvis.Observation) (*uvh5.Header, error) {
	if !obs.PyuvsimConventions() {
		return nil, errors.New("uvdata: the simulation was not made with Observation.UseConventions; its pairs are not the file's baselines")
	}
	nt, nf, nbl := sim.NTime(), sim.NFreq(), len(obs.Baselines)
	if err := obs.Validate(sim.NAnt(), nt, nf); err != nil {
		return nil, err
	}
	if len(sim.Times) != nt {
		return nil, fmt.Errorf("uvdata: the simulation has %d times (UTC Julian dates) for %d integrations", len(sim.Times), nt)
	}
	if len(sim.Pairs) != nbl {
		return nil, fmt.Errorf("uvdata: the simulation has %d pairs for %d baselines", len(sim.Pairs), nbl)
	}
	trueFalse := [2]bool{true, false}
	h := &uvh5.Header{
		TelescopeName: obs.TelescopeName, Instrument: obs.TelescopeName,
		Latitude: obs.Site.LatDeg, Longitude: obs.Site.LonDeg, Altitude: obs.Site.HeightM,
		AntennaNames: obs.AntNames,
		Freqs:        sim.Freqs, ChannelWidth: channelWidths(sim.Freqs, obs.ChannelWidth),
		VisUnits: "Jy", History: obs.History,
		XOrientation: "east", BltOrder: "time, baseline",
		BltsAreRectangular: &trueFalse[0], TimeAxisFasterThanBls: &trueFalse[1],
		SinglePrecision: sim.Options.Precision == 1,
	}
	for a, n := range obs.AntNums {
		h.AntennaNumbers = append(h.AntennaNumbers, int64(n))
		h.AntennaPositions = append(h.AntennaPositions, astro.ENUToECEF(obs.Site, obs.ENU[a]))
	}
	for _, p := range obs.Pols {
		h.Pols = append(h.Pols, int64(p))
	}
	intTime := integrationTimes(sim.Times, obs.IntegrationTime)
	for ti, jd := range sim.Times {
		var eop astro.EOP
		if obs.EOP != nil {
			eop = obs.EOP[ti]
		}
		lst, err := astro.ApparentLST(jd, obs.Site.LonDeg*math.Pi/180, eop)
		if err != nil {
			return nil, fmt.Errorf("uvdata: lst_array at times[%d]: %w", ti, err)
		}
		for _, b := range obs.Baselines {
			a1, a2 := b[0], b[1]
			h.Ant1 = append(h.Ant1, int64(obs.AntNums[a1]))
			h.Ant2 = append(h.Ant2, int64(obs.AntNums[a2]))
			x1, x2 := obs.ENU[a1], obs.ENU[a2]
			h.UVW = append(h.UVW, [3]float64{x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]})
			h.Times = append(h.Times, jd)
			h.LSTs = append(h.LSTs, lst)
			h.IntegrationTime = append(h.IntegrationTime, intTime[ti])
		}
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("uvdata: %w", err)
	}
	return h, nil
}

// channelWidths are the given widths, or the spacing of the channels.
func channelWidths(freqs, given []float64) []float64 {
	if given != nil {
		return given
	}
	return spacing(freqs, 1)
}

// integrationTimes are the given ones (s), or the spacing of the times.
func integrationTimes(timesJD, given []float64) []float64 {
	if given != nil {
		return given
	}
	return spacing(timesJD, 86400)
}

// spacing is each value's distance to the next (the last: to the one
// before), times scale; 1 for a single value, which has no spacing.
func spacing(x []float64, scale float64) []float64 {
	w := make([]float64, len(x))
	for i := range w {
		switch {
		case len(x) == 1:
			w[i] = 1
		case i+1 < len(x):
			w[i] = (x[i+1] - x[i]) * scale
		default:
			w[i] = (x[i] - x[i-1]) * scale
		}
	}
	return w
}

// Write writes sim's result res to path as UVH5, one time at a time from
// res (the visibilities are never copied whole). It refuses an
// incomplete result.
func Write(path string, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result) error {
	if !res.Complete() {
		return errors.New("uvdata: the result is incomplete; refusing to write UVH5 with missing integrations")
	}
	h, err := Header(sim, obs)
	if err != nil {
		return err
	}
	w, err := uvh5.Create(path, h)
	if err != nil {
		return err
	}
	nbl, nf, np := len(obs.Baselines), sim.NFreq(), len(obs.Pols)
	block := make([]complex128, nbl*nf*np)
	for ti := range sim.NTime() {
		fillTime(block, sim, obs, res, ti)
		if err := w.WriteBlock(ti*nbl, block, nil, nil); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// fillTime lays time ti of res out as UVH5 rows (baseline, freq, pol).
func fillTime(block []complex128, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result, ti int) {
	nf, np := sim.NFreq(), len(obs.Pols)
	pol := sim.Options.Polarized
	for k := range obs.Baselines {
		for fi := range nf {
			for pi, p := range obs.Pols {
				a, b := matvis.PolIndex(p, pol)
				block[(k*nf+fi)*np+pi] = res.At(fi, ti, k, a, b)
			}
		}
	}
}
