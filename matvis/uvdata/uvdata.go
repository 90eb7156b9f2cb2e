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
	"slices"

	"github.com/gomatvis/gomatvis/internal/blocks"
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

// Write writes sim's result res to path as UVH5, a bounded piece at a
// time from res (the visibilities are never copied whole). It refuses an
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

// Writer streams a simulation's output into a UVH5 (or UVFITS) file by
// blocks of its (frequency, time) grid: each block's result (a
// Simulation.Subset of the block) is written as it comes and can then be
// dropped or reused, so an output larger than memory never is held
// whole. It holds only a bounded piece of rows beside the file.
type Writer struct {
	w         rowWriter
	nbl, nf   int
	pols      [][2]int // each file polarization's feed indices in the result
	done      []bool   // integrations written, index t·nf + f
	piece     []complex128
	flags     []bool
	nsamples  []float32
	pieceVals int
}

// rowWriter is the file a Writer fills: a uvh5.Writer or a uvfits.Writer.
type rowWriter interface {
	WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error
	WriteChannels(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error
	Close() error
	CloseAs(dest string) error
	Abort() error
}

// pieceValues bounds the rows a Writer lays out at once (4 MB of
// complex128): large enough that a write is a few big system calls.
const pieceValues = 1 << 18

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
	return newWriter(w, sim, obs), nil
}

func newWriter(rw rowWriter, sim *matvis.Simulation, obs *matvis.Observation) *Writer {
	w := &Writer{w: rw, nbl: len(obs.Baselines), nf: sim.NFreq(),
		done: make([]bool, sim.NFreq()*sim.NTime()), pieceVals: pieceValues}
	for _, p := range obs.Pols {
		a, b := matvis.PolIndex(p, sim.Options.Polarized)
		w.pols = append(w.pols, [2]int{a, b})
	}
	return w
}

// WriteTimes writes res, the result of the times [t0, t0 + res's times)
// of the simulation (all its channels, as Subset makes it). It refuses an
// incomplete result.
func (w *Writer) WriteTimes(t0 int, res *matvis.Result) error {
	if !res.Complete() {
		return errors.New("uvdata: the result is incomplete; refusing to write UVH5 with missing integrations")
	}
	if len(res.Shape) < 2 {
		return fmt.Errorf("uvdata: a result of shape %v is not a simulation's", res.Shape)
	}
	_, err := w.WriteBlock(matvis.Block{F0: 0, F1: w.nf, T0: t0, T1: t0 + res.Shape[1]}, res)
	return err
}

// WriteBlock writes the finished integrations of res, the result of block
// b of the simulation (Simulation.Subset(b)): all of them for a complete
// result, those done before the cancellation for a cancelled one. It
// returns how many it wrote.
func (w *Writer) WriteBlock(b matvis.Block, res *matvis.Result) (int, error) {
	nt := len(w.done) / max(w.nf, 1)
	if len(res.Shape) < 3 || res.Shape[0] != b.NFreq() || res.Shape[1] != b.NTime() || res.Shape[2] != w.nbl ||
		b.F0 < 0 || b.F0 >= b.F1 || b.F1 > w.nf || b.T0 < 0 || b.T0 >= b.T1 || b.T1 > nt {
		return 0, fmt.Errorf("uvdata: a result of shape %v for %v does not fit the file's %d channels × %d times × %d baselines", res.Shape, b, w.nf, nt, w.nbl)
	}
	if n := len(res.Done); n != b.Size() || visLen(res) != n*res.Shape[2]*innerOf(res) {
		return 0, fmt.Errorf("uvdata: a result of shape %v holds %d visibilities and %d done flags", res.Shape, visLen(res), n)
	}
	n := 0
	for ti := range b.NTime() {
		for f0 := 0; f0 < b.NFreq(); {
			if !res.Done[f0*b.NTime()+ti] {
				f0++
				continue
			}
			f1 := f0 + 1
			for f1 < b.NFreq() && res.Done[f1*b.NTime()+ti] {
				f1++
			}
			if err := w.writeRun(b, res, ti, f0, f1); err != nil {
				return n, err
			}
			n += f1 - f0
			f0 = f1
		}
	}
	return n, nil
}

// visLen is the length of res's visibilities of its precision.
func visLen(res *matvis.Result) int {
	if res.Precision == 1 {
		return len(res.Vis64)
	}
	return len(res.Vis128)
}

// innerOf is the number of values per baseline: 4 with feed axes, else 1.
func innerOf(res *matvis.Result) int {
	if len(res.Shape) == 5 {
		return 4
	}
	return 1
}

// writeRun writes channels [f0, f1) (of the block) of time ti of res,
// every baseline, a piece of baselines at a time.
func (w *Writer) writeRun(b matvis.Block, res *matvis.Result, ti, f0, f1 int) error {
	np, nch := len(w.pols), f1-f0
	per := w.baselinesPerPiece()
	t := b.T0 + ti
	for k0 := 0; k0 < w.nbl; k0 += per {
		k1 := min(w.nbl, k0+per)
		buf := w.pieceOf((k1 - k0) * nch * np)
		fillRows(buf, res, ti, k0, k1, f0, f1, w.pols, blocks.Workers(len(buf), splitGrain))
		if err := w.rows(t*w.nbl+k0, k1-k0, b.F0+f0, b.F0+f1, buf, nil, nil); err != nil {
			return err
		}
	}
	for f := b.F0 + f0; f < b.F0+f1; f++ {
		w.done[t*w.nf+f] = true
	}
	return nil
}

// baselinesPerPiece is how many baselines' rows are laid out at once:
// as many as pieceVals holds with every channel, whatever range of
// channels a block has, so that every channel range of a time is written
// over the same groups of rows (the file's cover joins the channels of
// one group).
func (w *Writer) baselinesPerPiece() int {
	return max(1, w.pieceVals/(w.nf*len(w.pols)))
}

// rows writes channels [f0, f1) of rows [blt, blt+n).
func (w *Writer) rows(blt, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	if f0 == 0 && f1 == w.nf {
		return w.w.WriteBlock(blt, vis, flags, nsamples)
	}
	return w.w.WriteChannels(blt, n, f0, f1, vis, flags, nsamples)
}

// pieceOf is the reused piece buffer at length n.
func (w *Writer) pieceOf(n int) []complex128 {
	if cap(w.piece) < n {
		w.piece = make([]complex128, n)
	}
	return w.piece[:n]
}

// fillRows lays baselines [k0, k1) × channels [f0, f1) of time ti of
// res out as UVH5 rows (baseline, freq, pol), the baselines split between
// workers goroutines (each writes rows of its own: TestFillSplit). The
// result holds a channel's baselines contiguously, the rows a baseline's
// channels: the baselines go in tiles, so that each channel's read is a
// contiguous run of a tile rather than one value per cache line.
func fillRows(buf []complex128, res *matvis.Result, ti, k0, k1, f0, f1 int, pols [][2]int, workers int) {
	const tile = 64
	tiles := (k1 - k0 + tile - 1) / tile
	blocks.Run(tiles, workers, func(lo, hi int) {
		fillTiles(buf, res, ti, k0, k0+lo*tile, min(k1, k0+hi*tile), f0, f1, pols, tile)
	})
}

// fillTiles is fillRows for baselines [ka, kb) of the rows from k0, in
// tiles of tile baselines.
func fillTiles(buf []complex128, res *matvis.Result, ti, k0, ka, kb, f0, f1 int, pols [][2]int, tile int) {
	nt, nbl := res.Shape[1], res.Shape[2]
	inner, np, nch := 1, len(pols), f1-f0
	if len(res.Shape) == 5 {
		inner = 4
	}
	idx := make([]int, np)
	for pi, p := range pols {
		if inner == 4 {
			idx[pi] = p[0]*2 + p[1]
		}
	}
	for ta := ka; ta < kb; ta += tile {
		tb := min(kb, ta+tile)
		for fi := f0; fi < f1; fi++ {
			base := ((fi*nt+ti)*nbl + ta) * inner
			for k := ta; k < tb; k++ {
				out := buf[((k-k0)*nch+fi-f0)*np:]
				at := base + (k-ta)*inner
				if res.Precision == 1 {
					for pi := range np {
						out[pi] = complex128(res.Vis64[at+idx[pi]])
					}
				} else {
					for pi := range np {
						out[pi] = res.Vis128[at+idx[pi]]
					}
				}
			}
		}
	}
}

// splitGrain is the values of a piece a goroutine of fillRows and of the
// phasing takes at least (its start is then a small part of its work).
const splitGrain = 1 << 15

// Close finishes the file at its path; every integration must have been
// written.
func (w *Writer) Close() error { return w.w.Close() }

// ClosePartial finishes the file at dest with the integrations never
// written flagged (visibilities 0, flags set, nsamples 0), as pyuvdata
// marks missing data: a cancelled run keeps what it finished, readable.
func (w *Writer) ClosePartial(dest string) error {
	np := len(w.pols)
	for t := range len(w.done) / max(w.nf, 1) {
		for f0 := 0; f0 < w.nf; {
			if w.done[t*w.nf+f0] {
				f0++
				continue
			}
			f1 := f0 + 1
			for f1 < w.nf && !w.done[t*w.nf+f1] {
				f1++
			}
			if err := w.flagRun(t, f0, f1, np); err != nil {
				w.w.Abort()
				return err
			}
			f0 = f1
		}
	}
	return w.w.CloseAs(dest)
}

// flagRun writes channels [f0, f1) of time t flagged, every baseline.
func (w *Writer) flagRun(t, f0, f1, np int) error {
	per := w.baselinesPerPiece()
	for k0 := 0; k0 < w.nbl; k0 += per {
		k1 := min(w.nbl, k0+per)
		n := (k1 - k0) * (f1 - f0) * np
		vis := w.pieceOf(n)
		clear(vis)
		if len(w.flags) < n {
			w.flags, w.nsamples = make([]bool, n), make([]float32, n)
			for i := range w.flags {
				w.flags[i] = true
			}
		}
		if err := w.rows(t*w.nbl+k0, k1-k0, f0, f1, vis, w.flags[:n], w.nsamples[:n]); err != nil {
			return err
		}
	}
	return nil
}

// TimesWritten is how many times have been written whole.
func (w *Writer) TimesWritten() int {
	n := 0
	for t := range len(w.done) / max(w.nf, 1) {
		if !slices.Contains(w.done[t*w.nf:(t+1)*w.nf], false) {
			n++
		}
	}
	return n
}

// IntegrationsWritten is how many (frequency, time) integrations have
// been written.
func (w *Writer) IntegrationsWritten() int {
	n := 0
	for _, d := range w.done {
		if d {
			n++
		}
	}
	return n
}

// Abort discards the file.
func (w *Writer) Abort() error { return w.w.Abort() }
