package uvdata

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/internal/casatable"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/ms"
)

// CreateMS is Create writing a Measurement Set (package ms) instead of
// UVH5: the same rows, phased as pyuvdata's write_ms(force_phase=True)
// phases them — to the zenith of the first time, or to centre when it is
// not nil — and written a whole time at a time as each is finished. A
// partial MS (ClosePartial) keeps every time, the integrations never
// computed flagged (FLAG set, FLAG_ROW where a whole row is, their
// samples 0), as the UVH5 marks them.
func CreateMS(path string, sim *matvis.Simulation, obs *matvis.Observation, centre *phase.Centre) (*Writer, error) {
	l, err := NewLayout(sim, obs)
	if err != nil {
		return nil, err
	}
	// The size is checked before the header's per-row arrays are built
	// (GBs for an MS over the limit).
	if err := ms.CheckSize(len(l.Pols), len(l.Freqs), len(l.Times)*len(l.Baselines)); err != nil {
		return nil, l.msTooLarge(err)
	}
	h, err := l.Header()
	if err != nil {
		return nil, err
	}
	d, err := ms.NewDrift(path, h, ms.Phasing{Centre: centre, EOP: l.eopAt})
	if err != nil {
		return nil, l.msTooLarge(err)
	}
	m := &msRows{d: d, nbl: len(l.Baselines), nf: len(l.Freqs), np: len(l.Pols), times: l.Times, pending: map[int]*msTime{}}
	for _, b := range l.Baselines {
		m.ant1 = append(m.ant1, l.AntNums[b[0]])
		m.ant2 = append(m.ant2, l.AntNums[b[1]])
	}
	for t := range l.Times {
		m.lsts = append(m.lsts, h.LSTs[t*m.nbl])
	}
	return newWriter(m, sim, obs), nil
}

// msTooLarge says what to do when err is an MS's refusal of its size,
// and returns other errors as they are.
func (l *Layout) msTooLarge(err error) error {
	if !errors.Is(err, casatable.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w\n  the MS would hold %d times × %d baselines × %d channels × %d polarizations in one table; write -o OUT.uvh5 instead, or run the times in several runs of fewer times each (an MS's main table keeps DATA and FLAG in tiled files of any size, but its other columns, about 100 bytes a row, in one file of at most 4 GiB: about 40 million rows)",
		err, len(l.Times), len(l.Baselines), len(l.Freqs), len(l.Pols))
}

// eopAt is the layout's Earth orientation at one of its times (zero, as
// the UVH5's header takes it, when the layout has none).
func (l *Layout) eopAt(jd float64) (astro.EOP, error) {
	if l.EOP == nil {
		return astro.EOP{}, nil
	}
	t := slices.Index(l.Times, jd)
	if t < 0 {
		return astro.EOP{}, fmt.Errorf("uvdata: no Earth orientation for JD %v, not one of the run's times", jd)
	}
	return l.EOP[t], nil
}

// msRows is the rowWriter of an MS, which is written row after row:
// pieces of whole rows that come in that order go straight to the
// ms.Drift; others (channel ranges, rows out of order) are gathered into
// their time's rows, which go once the time is whole and every earlier
// row has gone.
type msRows struct {
	d           *ms.Drift
	nbl, nf, np int
	times, lsts []float64
	ant1, ant2  []int
	next        int             // the next time to hand over
	pending     map[int]*msTime // times begun, not handed over
	spare       *msTime         // a written time's buffers, for the next
	closed      bool
}

// msTime is one time's rows while they are gathered.
type msTime struct {
	vis      []complex128
	flags    []bool    // nil while no piece was flagged
	nsamples []float32 // nil while every sample is 1
	filled   []bool    // per (baseline, channel)
	left     int       // cells not yet filled
}

func (m *msRows) WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error {
	row := m.nf * m.np
	if len(vis)%row != 0 {
		return fmt.Errorf("ms: %d values is not a whole number of rows of %d", len(vis), row)
	}
	return m.WriteChannels(bltStart, len(vis)/row, 0, m.nf, vis, flags, nsamples)
}

// WriteChannels writes channels [f0, f1) of rows [bltStart, bltStart+n),
// which lie in one time: straight to the MS when they are whole rows and
// the next ones, else copied into that time's rows; then it writes the
// gathered times that are whole and next.
func (m *msRows) WriteChannels(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	t, k0 := bltStart/m.nbl, bltStart%m.nbl
	nch := f1 - f0
	switch {
	case m.closed:
		return errors.New("ms: writer already closed or aborted")
	case bltStart < 0 || n < 0 || t >= len(m.times) || k0+n > m.nbl:
		return fmt.Errorf("ms: rows [%d, %d) are not within one of the %d times of %d baselines", bltStart, bltStart+n, len(m.times), m.nbl)
	case f0 < 0 || f1 > m.nf || f0 >= f1 || len(vis) != n*nch*m.np:
		return fmt.Errorf("ms: %d values for %d rows of channels [%d, %d) of %d", len(vis), n, f0, f1, m.nf)
	case t < m.next:
		return fmt.Errorf("ms: rows of time %d, already written", t)
	}
	tm := m.pending[t]
	if nt, nk := m.d.NextRow(); tm == nil && t == nt && k0 == nk && f0 == 0 && f1 == m.nf {
		if err := m.d.WriteRows(k0, m.driftBlock(t, k0, k0+n, vis, flags, nsamples)); err != nil {
			return err
		}
		m.next, _ = m.d.NextRow()
		return m.flush()
	}
	if tm == nil {
		tm = m.newTime()
		m.pending[t] = tm
		if nt, nk := m.d.NextRow(); t == nt {
			tm.markWritten(nk, m.nf)
		}
	}
	for r := range n {
		k := k0 + r
		for c := range nch {
			cell := k*m.nf + f0 + c
			if tm.filled[cell] {
				return fmt.Errorf("ms: time %d, baseline %d, channel %d written twice", t, k, f0+c)
			}
			tm.filled[cell] = true
			tm.left--
			src, dst := (r*nch+c)*m.np, cell*m.np
			copy(tm.vis[dst:dst+m.np], vis[src:src+m.np])
			tm.mark(flags, nsamples, src, dst, m.np)
		}
	}
	return m.flush()
}

// driftBlock is rows [k0, k1) of time t for the ms.Drift.
func (m *msRows) driftBlock(t, k0, k1 int, vis []complex128, flags []bool, nsamples []float32) ms.DriftBlock {
	return ms.DriftBlock{JD: m.times[t], LST: m.lsts[t], Ant1: m.ant1[k0:k1], Ant2: m.ant2[k0:k1],
		Vis: vis, Flags: flags, Nsamples: nsamples}
}

// markWritten marks the time's first k rows (of nf channels) filled:
// they went to the MS as they came.
func (tm *msTime) markWritten(k, nf int) {
	for i := range k * nf {
		tm.filled[i] = true
	}
	tm.left -= k * nf
}

// newTime is an empty time: the spare one cleared, else a new one (a
// run's times reuse one buffer, not one each for the collector).
func (m *msRows) newTime() *msTime {
	tm := m.spare
	m.spare = nil
	if tm == nil {
		return &msTime{vis: make([]complex128, m.nbl*m.nf*m.np), filled: make([]bool, m.nbl*m.nf), left: m.nbl * m.nf}
	}
	clear(tm.vis)
	clear(tm.filled)
	tm.flags, tm.nsamples, tm.left = nil, nil, m.nbl*m.nf
	return tm
}

// mark copies np flags and sample counts from src into the time's at dst,
// allocating them (unflagged, one sample) on their first use.
func (tm *msTime) mark(flags []bool, nsamples []float32, src, dst, np int) {
	if flags != nil {
		if tm.flags == nil {
			tm.flags = make([]bool, len(tm.vis))
		}
		copy(tm.flags[dst:dst+np], flags[src:src+np])
	}
	if nsamples != nil {
		if tm.nsamples == nil {
			tm.nsamples = make([]float32, len(tm.vis))
			for i := range tm.nsamples {
				tm.nsamples[i] = 1
			}
		}
		copy(tm.nsamples[dst:dst+np], nsamples[src:src+np])
	}
}

// flush writes the whole times from the next one on, in order.
func (m *msRows) flush() error {
	for {
		tm := m.pending[m.next]
		if tm == nil || tm.left > 0 {
			return nil
		}
		_, k0 := m.d.NextRow()
		v := m.nf * m.np // the time's rows from k0 on: the rest went as they came
		b := m.driftBlock(m.next, k0, m.nbl, tm.vis[k0*v:], nil, nil)
		if tm.flags != nil {
			b.Flags = tm.flags[k0*v:]
		}
		if tm.nsamples != nil {
			b.Nsamples = tm.nsamples[k0*v:]
		}
		if err := m.d.WriteRows(k0, b); err != nil {
			return err
		}
		delete(m.pending, m.next)
		m.spare = tm
		m.next++
	}
}

func (m *msRows) Close() error { return m.CloseAs("") }

// CloseAs finishes the MS at dest ("" for its path).
func (m *msRows) CloseAs(dest string) error {
	if m.closed {
		return errors.New("ms: writer already closed or aborted")
	}
	if m.next != len(m.times) {
		m.Abort()
		return fmt.Errorf("ms: %d of %d times written; the MS is not complete and was removed", m.next, len(m.times))
	}
	m.closed = true
	if dest == "" {
		return m.d.Close()
	}
	return m.d.CloseAs(dest)
}

func (m *msRows) Abort() error {
	if !m.closed {
		m.closed = true
		m.d.Abort()
	}
	return nil
}
