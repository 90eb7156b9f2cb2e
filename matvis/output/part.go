package output

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/part"
)

// Part writes a shard's part file (matvis/part, format 2) block by block:
// sim is the shard's simulation (Simulation.Subset of its block), whose
// integrations the part holds time-major, the order Run's blocks come in,
// so that the part's hash is taken as they are written. The part's metadata say
// how it was computed, which only the run's summary tells: Close hands
// meta and the summary to finish, which fills them in, before the part
// is closed. A part is kept only whole — a merge needs every integration
// of its block, and rerunning the shard recomputes it — so a cancelled
// run's ClosePartial keeps nothing.
type Part struct {
	w         *part.Writer
	nf, nt    int
	per       int    // values per integration
	done      []bool // integrations written, index f·nt + t
	precision int
	meta      part.Meta
	finish    func(Summary, *part.Meta) error
	summary   Summary
}

// NewPart starts the part of sim's output at path, with meta (all but
// what finish and the data fill in).
func NewPart(path string, sim *matvis.Simulation, meta part.Meta, finish func(Summary, *part.Meta) error) (*Part, error) {
	w, err := part.Create(path, sim.OutputShape(), sim.Options.Precision)
	if err != nil {
		return nil, err
	}
	per := 1
	for _, d := range sim.OutputShape()[2:] {
		per *= d
	}
	return &Part{w: w, nf: sim.NFreq(), nt: sim.NTime(), per: per, done: make([]bool, sim.NFreq()*sim.NTime()),
		precision: sim.Options.Precision, meta: meta, finish: finish}, nil
}

// WriteBlock writes res's finished integrations, each at its time-major
// place in the part.
func (p *Part) WriteBlock(b matvis.Block, res *matvis.Result) error {
	if err := checkBlock(b, res, p.nf, p.nt, p.precision); err != nil {
		return err
	}
	ntb := b.NTime()
	for t := b.T0; t < b.T1; t++ {
		for f := b.F0; f < b.F1; f++ {
			i := (f-b.F0)*ntb + t - b.T0 // the block's (freq, time) order
			if !res.Done[i] {
				continue
			}
			if p.done[f*p.nt+t] {
				return fmt.Errorf("output: part: integration (freq %d, time %d) written twice", f, t)
			}
			var data any
			if p.precision == 1 {
				data = res.Vis64[i*p.per : (i+1)*p.per]
			} else {
				data = res.Vis128[i*p.per : (i+1)*p.per]
			}
			if err := p.w.WriteAt(int64(t*p.nf+f)*int64(p.per), data); err != nil {
				return err
			}
			p.done[f*p.nt+t] = true
		}
	}
	return nil
}

// Summarize keeps the run's summary for finish.
func (p *Part) Summarize(s Summary) { p.summary = s }

// Close completes the metadata and renames the part into place.
func (p *Part) Close() error {
	m := p.meta
	if p.finish != nil {
		if err := p.finish(p.summary, &m); err != nil {
			p.w.Abort()
			return err
		}
	}
	return p.w.Close(m)
}

// ClosePartial discards the unfinished part and says how much was
// computed: nothing is kept (Kept.Path is "").
func (p *Part) ClosePartial() (Kept, error) {
	k := Kept{Integrations: count(p.done), TotalIntegrations: len(p.done), Times: wholeTimes(p.done, p.nf, p.nt), TotalTimes: p.nt,
		Missing: "a part is kept only whole: rerunning the shard computes it again"}
	return k, p.w.Abort()
}

// Abort removes the temporary.
func (p *Part) Abort() error { return p.w.Abort() }
