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
	l, err := NewLayout(sim, obs)
	if err != nil {
		return nil, err
	}
	return l.Header()
}

// Layout is everything a UVH5 file's header is made of, in plain values
// that encode to JSON: what a part of a sharded run carries so that the
// merge can write the file's header without the configuration.
type Layout struct {
	TelescopeName string       `json:"telescope_name"`
	Site          astro.Site   `json:"site"`
	AntNames      []string     `json:"ant_names"`
	AntNums       []int        `json:"ant_nums"`
	ENU           [][3]float64 `json:"enu_m"`
	// Baselines are (ant1, ant2) antenna indices in file order; the
	// simulation's pair k is baseline k.
	Baselines       [][2]int    `json:"baselines"`
	Pols            []int       `json:"pols"`
	EOP             []astro.EOP `json:"eop,omitempty"`
	IntegrationTime []float64   `json:"integration_time_s,omitempty"`
	ChannelWidth    []float64   `json:"channel_width_hz,omitempty"`
	History         string      `json:"history"`
	Freqs           []float64   `json:"freqs_hz"`
	Times           []float64   `json:"times_jd"`
	Precision       int         `json:"precision"`
	// Polarized says the simulation's output has (2, 2) feed axes, where
	// matvis.PolIndex finds each polarization.
	Polarized bool `json:"polarized"`
}

// NewLayout is the Layout of sim's output as obs describes it. obs must
// have made sim through UseConventions.
func NewLayout(sim *matvis.Simulation, obs *matvis.Observation) (*Layout, error) {
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
	return &Layout{
		TelescopeName: obs.TelescopeName, Site: obs.Site,
		AntNames: obs.AntNames, AntNums: obs.AntNums, ENU: obs.ENU,
		Baselines: obs.Baselines, Pols: obs.Pols, EOP: obs.EOP,
		IntegrationTime: obs.IntegrationTime, ChannelWidth: obs.ChannelWidth,
		History: obs.History, Freqs: sim.Freqs, Times: sim.Times,
		Precision: sim.Options.Precision, Polarized: sim.Options.Polarized,
	}, nil
}

// Header builds the UVH5 header the layout describes.
func (l *Layout) Header() (*uvh5.Header, error) {
	nt := len(l.Times)
	if len(l.ENU) != len(l.AntNums) || len(l.AntNames) != len(l.AntNums) {
		return nil, fmt.Errorf("uvdata: layout: %d antenna names, %d numbers, %d positions", len(l.AntNames), len(l.AntNums), len(l.ENU))
	}
	if l.EOP != nil && len(l.EOP) != nt {
		return nil, fmt.Errorf("uvdata: layout: %d EOP entries for %d times", len(l.EOP), nt)
	}
	if l.IntegrationTime != nil && len(l.IntegrationTime) != nt {
		return nil, fmt.Errorf("uvdata: layout: %d integration times for %d times", len(l.IntegrationTime), nt)
	}
	if l.ChannelWidth != nil && len(l.ChannelWidth) != len(l.Freqs) {
		return nil, fmt.Errorf("uvdata: layout: %d channel widths for %d channels", len(l.ChannelWidth), len(l.Freqs))
	}
	for k, b := range l.Baselines {
		if b[0] < 0 || b[0] >= len(l.AntNums) || b[1] < 0 || b[1] >= len(l.AntNums) {
			return nil, fmt.Errorf("uvdata: layout: baselines[%d] = %v: antenna index out of range [0, %d)", k, b, len(l.AntNums))
		}
	}
	trueFalse := [2]bool{true, false}
	h := &uvh5.Header{
		Telescope: uvh5.Telescope{
			TelescopeName: l.TelescopeName, Instrument: l.TelescopeName,
			Latitude: l.Site.LatDeg, Longitude: l.Site.LonDeg, Altitude: l.Site.HeightM,
			AntennaNames: l.AntNames, XOrientation: "east",
		},
		BltAxis: uvh5.BltAxis{
			BltOrder:           "time, baseline",
			BltsAreRectangular: &trueFalse[0], TimeAxisFasterThanBls: &trueFalse[1],
		},
		FreqAxis: uvh5.FreqAxis{Freqs: l.Freqs, ChannelWidth: channelWidths(l.Freqs, l.ChannelWidth)},
		VisUnits: "Jy", History: l.History,
		SinglePrecision: l.Precision == 1,
	}
	for a, n := range l.AntNums {
		h.AntennaNumbers = append(h.AntennaNumbers, int64(n))
		h.AntennaPositions = append(h.AntennaPositions, astro.ENUToECEF(l.Site, l.ENU[a]))
	}
	for _, p := range l.Pols {
		h.Pols = append(h.Pols, int64(p))
	}
	intTime := integrationTimes(l.Times, l.IntegrationTime)
	for ti, jd := range l.Times {
		var eop astro.EOP
		if l.EOP != nil {
			eop = l.EOP[ti]
		}
		lst, err := astro.ApparentLST(jd, l.Site.LonDeg*math.Pi/180, eop)
		if err != nil {
			return nil, fmt.Errorf("uvdata: lst_array at times[%d]: %w", ti, err)
		}
		for _, b := range l.Baselines {
			a1, a2 := b[0], b[1]
			h.Ant1 = append(h.Ant1, int64(l.AntNums[a1]))
			h.Ant2 = append(h.Ant2, int64(l.AntNums[a2]))
			x1, x2 := l.ENU[a1], l.ENU[a2]
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
	w, err := Create(path, sim, obs)
	if err != nil {
		return err
	}
	if err := w.WriteTimes(0, res); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Writer streams a simulation's output into a UVH5 file by blocks of
// times: each block's result (a Simulation.Subset over those times) is
// written as it comes and can then be dropped, so an output larger than
// memory never is held whole.
type Writer struct {
	w          rowWriter
	sim        *matvis.Simulation
	obs        *matvis.Observation
	nbl, nf    int
	block      []complex128
	timesDone  []bool
	blockFlags []bool
	blockNsamp []float32
}

// rowWriter is the file a Writer fills: a uvh5.Writer or a uvfits.Writer.
type rowWriter interface {
	WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error
	Close() error
	CloseAs(dest string) error
	Abort() error
}

// Create writes the header of sim's output to a temporary file beside path
// and allocates its data; nothing appears at path before Close.
func Create(path string, sim *matvis.Simulation, obs *matvis.Observation) (*Writer, error) {
	h, err := Header(sim, obs)
	if err != nil {
		return nil, err
	}
	w, err := uvh5.Create(path, h)
	if err != nil {
		return nil, err
	}
	nbl, nf := len(obs.Baselines), sim.NFreq()
	return &Writer{w: w, sim: sim, obs: obs, nbl: nbl, nf: nf,
		block: make([]complex128, nbl*nf*len(obs.Pols)), timesDone: make([]bool, sim.NTime())}, nil
}

// WriteTimes writes res, the result of the times [t0, t0 + res's times)
// of the simulation (all its channels, as Subset makes it). It refuses an
// incomplete result.
func (w *Writer) WriteTimes(t0 int, res *matvis.Result) error {
	if !res.Complete() {
		return errors.New("uvdata: the result is incomplete; refusing to write UVH5 with missing integrations")
	}
	_, err := w.WriteFinishedTimes(t0, res)
	return err
}

// WriteFinishedTimes writes the times of res (as WriteTimes) whose every
// channel finished — all of them for a complete result, those before the
// cancellation for a cancelled one — and returns how many it wrote.
func (w *Writer) WriteFinishedTimes(t0 int, res *matvis.Result) (int, error) {
	if len(res.Shape) < 3 || res.Shape[0] != w.nf || res.Shape[2] != w.nbl || t0 < 0 || t0+res.Shape[1] > len(w.timesDone) {
		return 0, fmt.Errorf("uvdata: a result of shape %v at time %d does not fit the file's %d channels × %d times × %d baselines", res.Shape, t0, w.nf, len(w.timesDone), w.nbl)
	}
	nt, n := res.Shape[1], 0
	for ti := range nt {
		if !timeFinished(res, ti, nt) {
			continue
		}
		fillTime(w.block, w.sim, w.obs, res, ti)
		if err := w.w.WriteBlock((t0+ti)*w.nbl, w.block, nil, nil); err != nil {
			return n, err
		}
		w.timesDone[t0+ti] = true
		n++
	}
	return n, nil
}

// timeFinished says whether every channel of time ti of res finished.
func timeFinished(res *matvis.Result, ti, nt int) bool {
	for fi := range res.Shape[0] {
		if !res.Done[fi*nt+ti] {
			return false
		}
	}
	return true
}

// Close finishes the file at its path; every time must have been written.
func (w *Writer) Close() error { return w.w.Close() }

// ClosePartial finishes the file at dest with the times never written
// flagged (visibilities 0, flags set, nsamples 0), as pyuvdata marks
// missing data: a cancelled run keeps what it finished, readable.
func (w *Writer) ClosePartial(dest string) error {
	if w.blockFlags == nil {
		w.blockFlags = make([]bool, len(w.block))
		for i := range w.blockFlags {
			w.blockFlags[i] = true
		}
		w.blockNsamp = make([]float32, len(w.block))
	}
	clear(w.block)
	for ti, done := range w.timesDone {
		if done {
			continue
		}
		if err := w.w.WriteBlock(ti*w.nbl, w.block, w.blockFlags, w.blockNsamp); err != nil {
			w.w.Abort()
			return err
		}
	}
	return w.w.CloseAs(dest)
}

// TimesWritten is how many times have been written.
func (w *Writer) TimesWritten() int {
	n := 0
	for _, d := range w.timesDone {
		if d {
			n++
		}
	}
	return n
}

// Abort discards the file.
func (w *Writer) Abort() error { return w.w.Abort() }

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
