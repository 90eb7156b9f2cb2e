package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/input"
)

// outputMeta describes a visibility .npy file: what each axis means and
// how the run was made, so the bare array can be interpreted later.
//
// Its groups are embedded without a JSON name, so encoding/json writes
// their fields inline, in this order: meta.json is one flat object whose
// keys run as the groups list them (TestMetaKeys).
type outputMeta struct {
	Gomatvis string `json:"gomatvis_version"`
	Spec     string `json:"spec_name"`
	metaArray
	metaRun
	metaConventions
	metaModels
}

// metaArray is the array itself: its shape, type and what each axis and
// each index along it is.
type metaArray struct {
	Shape []int    `json:"shape"`
	DType string   `json:"dtype"`
	Axes  []string `json:"axes"`
	// FeedOrder explains the feed axes of polarized output (matvis's order).
	FeedOrder string    `json:"feed_order,omitempty"`
	Feeds     []string  `json:"feeds"`
	FreqsHz   []float64 `json:"freqs_hz"`
	TimesJD   []float64 `json:"times_jd"`
	AntPairs  [][2]int  `json:"antpairs"`
}

// metaRun is how the run was made: its options, backend and cost.
type metaRun struct {
	Polarized   bool    `json:"polarized"`
	Precision   int     `json:"precision"`
	Coordinates string  `json:"coordinates"`
	Backend     string  `json:"backend"`
	MatProd     string  `json:"matprod"`
	Chunks      int     `json:"nchunks"`
	WallS       float64 `json:"wall_s"`
	// Shards is the shard count of a merged sharded run (wall_s is then
	// 0: each shard's time is in its own log).
	Shards  int    `json:"shards,omitempty"`
	Created string `json:"created_utc"`
	// Phases are the run's phases from the process's start to the
	// run's (internal/runclock): start, input and set-up; the compute,
	// write and close are the summary line's. Absent for a merged sharded
	// run.
	Phases *runclock.Phases `json:"phases,omitempty"`
}

// metaConventions is what the numbers mean: units, the visibility
// convention and, for an obsparam, the layout they are indexed by.
type metaConventions struct {
	Units      string `json:"units"`
	Convention string `json:"convention"`
	// Conventions names the convention: "matvis" (a spec's npy: V_ij over
	// matvis's antpairs) or "pyuvsim" (an obsparam's npy: the numbers of
	// its UVH5, V(ant1, ant2) over its baselines).
	Conventions string `json:"conventions"`
	// An obsparam's npy: the layout's antenna numbers and names (antpairs
	// index them), its polarization_array and, when polarized, where each
	// polarization sits on the feed axes ([p, q]).
	AntNums  []int    `json:"antenna_numbers,omitempty"`
	AntNames []string `json:"antenna_names,omitempty"`
	Pols     []int    `json:"polarization_array,omitempty"`
	PolIndex [][2]int `json:"pol_index,omitempty"`
}

// metaModels names the models the run chose where the input leaves a
// choice: Earth orientation, the sky's coherency rotation and the gridded
// beams' interpolation.
type metaModels struct {
	// EarthOrientation names the Earth-orientation table or file an
	// obsparam run used (the embedded IERS table unless --eop).
	EarthOrientation string `json:"earth_orientation,omitempty"`
	// StokesRotation names a polarized sky's coherency rotation (iau,
	// the default, or pyradiosky); absent for a Stokes-I sky.
	StokesRotation string `json:"stokes_rotation,omitempty"`
	// BeamInterp names the gridded beams' spatial interpolation
	// (map_coordinates or az_za_simple); absent without gridded beams.
	BeamInterp string `json:"beam_interp,omitempty"`
	// BeamFreqInterp names the gridded beams' frequency interpolation
	// (freq_interp_kind) where one has several beam channels.
	BeamFreqInterp string `json:"beam_freq_interp,omitempty"`
	// BeamPole names the gridded beams' zenith treatment (edge or
	// continued, input.GriddedPole); absent without gridded beams.
	BeamPole string `json:"beam_pole,omitempty"`
}

// pyuvsimConvention is the convention of an obsparam's npy output.
const pyuvsimConvention = "V(ant1, ant2)[p][q] = Σ_s J_ant1[p]·C_s·J_ant2[q]ᴴ·exp(+2πiν (x_ant2 − x_ant1)·ŝ/c), as pyuvsim and this run's UVH5 (uvw = ENU(ant2) − ENU(ant1)); antpairs are (ant1, ant2) indices into antenna_numbers, in the UVH5's baseline order; the UVH5's data_array[t·Nbls + k, f, i] is [f, t, k] (polarized: [f, t, k, pol_index[i][0], pol_index[i][1]])"

// metaPath is the sidecar of an output: OUT.npy → OUT.meta.json.
func metaPath(out string) string {
	return strings.TrimSuffix(out, ".npy") + ".meta.json"
}

// metaJSON is the sidecar of a finished run, to be written with its array.
// obs, for an obsparam, lays the run out in pyuvsim's conventions (nil:
// matvis's).
func metaJSON(out, name string, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result, backend, coords string, wall time.Duration, phases *runclock.Phases) ([]byte, error) {
	m := metaBase(name, sim, obs, res.Shape, res.Precision, backend, coords)
	m.finishRun(res.Stats.MatProdImpl.String(), res.Plan.NChunks, wall, time.Now(), phases)
	return encodeMetaWhole(out, &m)
}

// metaBase is the sidecar of a run of sim with everything known before
// it runs: all but the Gram implementation, chunk count, wall time,
// creation time and phases (finishRun).
func metaBase(name string, sim *matvis.Simulation, obs *matvis.Observation, shape []int, precision int, backend, coords string) outputMeta {
	m := outputMeta{
		Gomatvis: versionString(),
		Spec:     name,
		metaArray: metaArray{
			Shape:    shape,
			DType:    "complex128",
			Axes:     []string{"freq", "time", "antpair"},
			Feeds:    []string{sim.Options.Feed.String()},
			FreqsHz:  sim.Freqs,
			TimesJD:  sim.Times,
			AntPairs: sim.Pairs,
		},
		metaRun: metaRun{
			Polarized:   sim.Options.Polarized,
			Precision:   sim.Options.Precision,
			Coordinates: coords,
			Backend:     backend,
		},
		metaConventions: metaConventions{
			Units:       "Jy",
			Convention:  "V_ij = Σ_s conj(Z_i)·Z_j with Z = A·sqrt(I/2)·exp(+2πiν x·ŝ/c), as matvis's simulate_vis",
			Conventions: "matvis",
		},
	}
	if precision == 1 {
		m.DType = "complex64"
	}
	if sim.Options.Polarized {
		m.Axes = append(m.Axes, "feed_p", "feed_q")
		m.Feeds = []string{"x", "y"}
		m.FeedOrder = "for antpair (i, j), [..., p, q] = Σ conj(feed q of antenna i)·(feed p of antenna j): the first feed index belongs to the unconjugated antenna j"
	}
	if obs != nil {
		m.EarthOrientation = obs.EOPSource
	}
	m.BeamInterp = input.GriddedInterp(sim.Beams)
	m.BeamFreqInterp = input.GriddedFreqInterp(sim.Beams)
	m.BeamPole = input.GriddedPole(sim.Beams, sim.Mode)
	if sim.SkyPolarized() {
		m.StokesRotation = string(matvis.EffectiveRotation(sim.Options.Rotation))
	}
	if obs != nil && obs.PyuvsimConventions() {
		m.Conventions, m.Convention = "pyuvsim", pyuvsimConvention
		m.AntPairs, m.AntNums, m.AntNames, m.Pols = obs.Baselines, obs.AntNums, obs.AntNames, obs.Pols
		if sim.Options.Polarized {
			m.FeedOrder = "for antpair (ant1, ant2), [..., p, q]: feed p of ant1 with feed q of ant2 (xy: ant1's x, ant2's y), as pyuvsim"
			for _, p := range obs.Pols {
				a, b := matvis.PolIndex(p, true)
				m.PolIndex = append(m.PolIndex, [2]int{a, b})
			}
		}
	}
	return m
}

// finishRun fills in what only the finished run knows.
func (m *outputMeta) finishRun(matprod string, chunks int, wall time.Duration, created time.Time, phases *runclock.Phases) {
	m.MatProd, m.Chunks, m.WallS = matprod, chunks, wall.Seconds()
	m.Created = created.UTC().Format(time.RFC3339)
	m.Phases = phases
}

// encodeMetaWhole encodes m in one json.Marshal: the plain twin of
// preparedMeta's encoding in pieces.
func encodeMetaWhole(out string, m *outputMeta) ([]byte, error) {
	// Compact: the antpair list of a large array runs to 10⁵ entries.
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", metaPath(out), err)
	}
	return append(b, '\n'), nil
}

// preparedMeta is a run's sidecar whose array description — its antpair
// list runs to 10⁵ entries, 10–30 ms of encoding at 350 antennas, which
// used to sit in the run's close — is encoded on a goroutine while the
// engine computes; finish encodes the rest, the run's details, and joins
// the pieces into the bytes encodeMetaWhole gives. The goroutine only
// reads the simulation.
type preparedMeta struct {
	out   string
	m     outputMeta
	done  chan struct{}
	array []byte // metaArray's object, once done is closed
	err   error
}

// prepareMeta starts encoding the array description of m (metaBase).
func prepareMeta(out string, m outputMeta) *preparedMeta {
	p := &preparedMeta{out: out, m: m, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.array, p.err = encodeArray(p.m.metaArray)
	}()
	return p
}

// encodeArray is json.Marshal of the array description, its antpair
// list (the last member) written by appendPairs: encoding/json's
// reflection took 10 ms of CPU for the 122 500 pairs of 350 antennas,
// taken from the compute it runs beside.
func encodeArray(a metaArray) ([]byte, error) {
	pairs := a.AntPairs
	a.AntPairs = nil
	b, err := json.Marshal(struct{ metaArray }{a})
	const nullTail = "null}"
	if err != nil || !bytes.HasSuffix(b, []byte(`"antpairs":`+nullTail)) {
		// Not the layout encodeArray knows (a member added after
		// antpairs): encoding/json does it all.
		a.AntPairs = pairs
		return json.Marshal(struct{ metaArray }{a})
	}
	out := make([]byte, 0, len(b)+len(pairs)*len("[349,349],")+2)
	out = appendPairs(append(out, b[:len(b)-len(nullTail)]...), pairs)
	return append(out, '}'), nil
}

// appendPairs appends pairs as encoding/json writes a [][2]int: null
// when nil, else [[i,j],…].
func appendPairs(b []byte, pairs [][2]int) []byte {
	if pairs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for k, p := range pairs {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendIndex(b, p[0])
		b = append(b, ',')
		b = appendIndex(b, p[1])
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendIndex appends v in decimal: an antenna index below 1000 digit by
// digit (strconv.AppendInt's general path was most of appendPairs' time).
func appendIndex(b []byte, v int) []byte {
	if v < 0 || v >= 1000 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	if v >= 100 {
		b = append(b, byte('0'+v/100))
	}
	if v >= 10 {
		b = append(b, byte('0'+v/10%10))
	}
	return append(b, byte('0'+v%10))
}

// finish encodes the sidecar of the finished run.
func (p *preparedMeta) finish(matprod string, chunks int, wall time.Duration, created time.Time, phases *runclock.Phases) ([]byte, error) {
	<-p.done
	m := p.m
	m.finishRun(matprod, chunks, wall, created, phases)
	head, err := json.Marshal(struct {
		Gomatvis string `json:"gomatvis_version"`
		Spec     string `json:"spec_name"`
	}{m.Gomatvis, m.Spec})
	var rest []byte
	if err == nil {
		err = p.err
	}
	if err == nil {
		rest, err = json.Marshal(struct {
			metaRun
			metaConventions
			metaModels
		}{m.metaRun, m.metaConventions, m.metaModels})
	}
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", metaPath(p.out), err)
	}
	// Each piece is a non-empty object ({"k":…}): their members joined
	// in outputMeta's order are its encoding.
	b := make([]byte, 0, len(head)+len(p.array)+len(rest)+1)
	b = append(b, head[:len(head)-1]...)
	b = append(append(b, ','), p.array[1:len(p.array)-1]...)
	b = append(append(b, ','), rest[1:]...)
	return append(b, '\n'), nil
}

// phasesHistory is the phases before a run as a UVH5's or UVFITS's
// history sentence (simulate --profile), the file being created then.
func phasesHistory(p runclock.Phases) string {
	return "gomatvis run phases before this file was opened (s): " + p.String() + "."
}
