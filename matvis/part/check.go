package part

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// A part file is input, not trust: its data hash says only that the data
// are the ones its metadata describe, and anyone can write both. These
// checks refuse what no run writes (non-finite visibilities, axes outside
// the physical ranges matvis.New accepts, a layout that does not describe
// the grid) and parts of one run that disagree; Matches compares a part
// with what its configuration implies, where the configuration is known
// (simulate --shard deciding whether an existing part is complete).

// ErrNonFinite says a part holds a visibility that is NaN or infinite
// (a run refuses such results, so the part was damaged or forged).
var ErrNonFinite = errors.New("non-finite visibility")

// ErrMismatch says a part's metadata differ from what its configuration
// implies.
var ErrMismatch = errors.New("metadata do not match the configuration")

// nonFinite is the error for visibility e (an index into the part's data,
// in its file order)
// of value v.
func (p *File) nonFinite(e int64, v complex128) error {
	m := &p.Meta
	per := int64(1)
	for _, d := range m.Shape[2:] {
		per *= int64(d)
	}
	in, within := e/per, e%per
	nfp := per / int64(m.Shape[2])
	f, t := in/int64(m.Shape[1]), in%int64(m.Shape[1])
	if p.timeMajor {
		t, f = in/int64(m.Shape[0]), in%int64(m.Shape[0])
	}
	feed := ""
	if nfp > 1 {
		feed = fmt.Sprintf(", feeds (%d, %d)", within%nfp/2, within%2)
	}
	return fmt.Errorf("part %s: visibility (freq %d, time %d, baseline %d%s) of the run's grid = %v: %w",
		p.Path, int64(m.Block.F0)+f, int64(m.Block.T0)+t, within/nfp, feed, v, ErrNonFinite)
}

// checkFinite checks vals, the visibilities from index base of p's data.
func checkFinite[T complex64 | complex128](p *File, vals []T, base int64) error {
	for i, v := range vals {
		c := complex128(v)
		if math.IsNaN(real(c)) || math.IsNaN(imag(c)) || math.IsInf(real(c), 0) || math.IsInf(imag(c), 0) {
			return p.nonFinite(base+int64(i), c)
		}
	}
	return nil
}

// checkAxes checks the values of the run's axes that a part carries:
// finite and in matvis's physical ranges.
func checkAxes(freqs, times []float64) error {
	for i, f := range freqs {
		if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f > matvis.MaxFreqHz {
			return fmt.Errorf("frequency %d = %g Hz: want 0 < f ≤ %g Hz", i, f, matvis.MaxFreqHz)
		}
	}
	for i, t := range times {
		if math.IsNaN(t) || math.IsInf(t, 0) || t < matvis.MinTimeJD || t > matvis.MaxTimeJD {
			return fmt.Errorf("time %d = %v JD: want %g ≤ JD ≤ %g", i, t, matvis.MinTimeJD, matvis.MaxTimeJD)
		}
	}
	return nil
}

func finiteAll(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// checkUVH5Values checks a UVH5 layout's values beyond its shape.
func checkUVH5Values(l *uvdata.Layout) error {
	if err := checkAxes(l.Freqs, l.Times); err != nil {
		return fmt.Errorf("uvh5 layout: %w", err)
	}
	na := len(l.AntNums)
	switch {
	case na == 0 || len(l.AntNames) != na || len(l.ENU) != na:
		return fmt.Errorf("uvh5 layout: %d antenna numbers, %d names, %d positions", na, len(l.AntNames), len(l.ENU))
	case len(l.Pols) == 0:
		return errors.New("uvh5 layout: no polarizations")
	case len(l.IntegrationTime) != 0 && len(l.IntegrationTime) != len(l.Times):
		return fmt.Errorf("uvh5 layout: %d integration times for %d times", len(l.IntegrationTime), len(l.Times))
	case len(l.ChannelWidth) != 0 && len(l.ChannelWidth) != len(l.Freqs):
		return fmt.Errorf("uvh5 layout: %d channel widths for %d freqs", len(l.ChannelWidth), len(l.Freqs))
	}
	for i, e := range l.ENU {
		for k, v := range e {
			if !finiteAll(v) || math.Abs(v) > matvis.MaxAntennaDistanceM {
				return fmt.Errorf("uvh5 layout: antenna %d position [%d] = %g m: want |x| ≤ %g m", i, k, v, matvis.MaxAntennaDistanceM)
			}
		}
	}
	for i, b := range l.Baselines {
		if b[0] < 0 || b[0] >= na || b[1] < 0 || b[1] >= na {
			return fmt.Errorf("uvh5 layout: baseline %d = %v: antenna indices must be in [0, %d)", i, b, na)
		}
	}
	for i, v := range l.IntegrationTime {
		if !finiteAll(v) || v <= 0 {
			return fmt.Errorf("uvh5 layout: integration time %d = %g s: want positive and finite", i, v)
		}
	}
	for i, v := range l.ChannelWidth {
		if !finiteAll(v) || v <= 0 {
			return fmt.Errorf("uvh5 layout: channel width %d = %g Hz: want positive and finite", i, v)
		}
	}
	if !finiteAll(l.Site.LatDeg, l.Site.LonDeg, l.Site.HeightM) {
		return fmt.Errorf("uvh5 layout: site %+v: want finite", l.Site)
	}
	return nil
}

// npyAxes is the part of an npy part's OUT.meta.json that describes the
// data (the rest says how and when a part was computed).
type npyAxes struct {
	Shape     []int     `json:"shape"`
	FreqsHz   []float64 `json:"freqs_hz"`
	TimesJD   []float64 `json:"times_jd"`
	AntPairs  [][2]int  `json:"antpairs"`
	Polarized bool      `json:"polarized"`
	Precision int       `json:"precision"`
}

// volatileNpyKeys are the OUT.meta.json keys that parts of one run may
// differ in.
var volatileNpyKeys = []string{"gomatvis_version", "created_utc", "backend", "matprod", "nchunks", "wall_s"}

// npyStable is an npy metadata without its volatile keys, canonical.
func npyStable(raw json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for _, k := range volatileNpyKeys {
		delete(m, k)
	}
	return json.Marshal(m) // map keys sorted
}

// checkNpyMeta checks an npy part's OUT.meta.json against its grid.
func (m *Meta) checkNpyMeta() error {
	if len(m.NpyMeta) == 0 {
		return errors.New("npy part without the run's metadata")
	}
	var a npyAxes
	if err := json.Unmarshal(m.NpyMeta, &a); err != nil {
		return fmt.Errorf("npy metadata: %w", err)
	}
	want := append([]int{m.NFreq, m.NTime}, m.Shape[2:]...)
	switch {
	case !reflect.DeepEqual(a.Shape, want):
		return fmt.Errorf("npy metadata: shape %v for a grid of %v", a.Shape, want)
	case len(a.FreqsHz) != m.NFreq || len(a.TimesJD) != m.NTime:
		return fmt.Errorf("npy metadata: %d freqs × %d times for a grid of %d × %d", len(a.FreqsHz), len(a.TimesJD), m.NFreq, m.NTime)
	case len(a.AntPairs) != m.Shape[2]:
		return fmt.Errorf("npy metadata: %d antpairs for %d pairs", len(a.AntPairs), m.Shape[2])
	case a.Precision != m.Precision || a.Polarized != (len(m.Shape) == 5):
		return fmt.Errorf("npy metadata: precision %d, polarized %v for shape %v of precision %d", a.Precision, a.Polarized, m.Shape, m.Precision)
	}
	if err := checkAxes(a.FreqsHz, a.TimesJD); err != nil {
		return fmt.Errorf("npy metadata: %w", err)
	}
	return nil
}

// checkValues checks a part's metadata beyond their own consistency (Check):
// the layout or npy metadata describe the grid and hold plausible values.
func (m *Meta) checkValues() error {
	if m.Output == OutputUVH5 {
		if err := m.checkLayout(); err != nil {
			return err
		}
		return checkUVH5Values(m.UVH5)
	}
	return m.checkNpyMeta()
}

// sameRun says whether two parts' descriptions of the whole run agree.
func sameRun(a, b *Meta) error {
	if a.Output == OutputUVH5 {
		ja, err1 := json.Marshal(a.UVH5)
		jb, err2 := json.Marshal(b.UVH5)
		if err1 != nil || err2 != nil || !bytes.Equal(ja, jb) {
			return errors.New("its uvh5 layout (frequencies, times, antennas, baselines, …) differs")
		}
		return nil
	}
	sa, err1 := npyStable(a.NpyMeta)
	sb, err2 := npyStable(b.NpyMeta)
	if err1 != nil || err2 != nil || !bytes.Equal(sa, sb) {
		return errors.New("its npy metadata (frequencies, times, antpairs, …) differ")
	}
	return nil
}

// Matches checks a part's metadata against want, the metadata that the
// configuration it claims implies (computed afresh from that
// configuration, not read from a part): grid, block, shape, precision,
// output and the whole run's layout (UVH5) or the npy metadata's stable
// keys. Floats are compared exactly: both sides are computed by the same
// code from the same configuration and JSON round-trips float64 exactly.
func (m *Meta) Matches(want *Meta) error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%w: "+f, append([]any{ErrMismatch}, a...)...)
	}
	switch {
	case m.ConfigHash != want.ConfigHash:
		return bad("config hash %s…, want %s…", m.ConfigHash[:min(12, len(m.ConfigHash))], want.ConfigHash[:min(12, len(want.ConfigHash))])
	case m.Shard != want.Shard || m.N != want.N:
		return bad("shard %d/%d, want %d/%d", m.Shard, m.N, want.Shard, want.N)
	case m.Output != want.Output:
		return bad("output %s, want %s", m.Output, want.Output)
	case m.NFreq != want.NFreq || m.NTime != want.NTime:
		return bad("grid of %d freqs × %d times, want %d × %d", m.NFreq, m.NTime, want.NFreq, want.NTime)
	case m.Block != want.Block:
		return bad("block %v, want %v", m.Block, want.Block)
	case !reflect.DeepEqual(m.Shape, want.Shape):
		return bad("shape %v, want %v", m.Shape, want.Shape)
	case m.Precision != want.Precision:
		return bad("precision %d, want %d", m.Precision, want.Precision)
	}
	if err := sameRun(m, want); err != nil {
		return bad("%v", err)
	}
	return nil
}
