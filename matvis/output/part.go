package output

import (
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/part"
)

// Part writes a shard's part file (matvis/part, format 2) block by block:
// sim is the shard's simulation (Simulation.Subset of its block), whose
// output the part holds in matvis.Result order. The part's metadata say
// how it was computed, which only the run's summary tells: Close hands
// meta and the summary to finish, which fills them in, before the part
// is closed. A part is kept only whole — a merge needs every integration
// of its block, and rerunning the shard recomputes it — so a cancelled
// run's ClosePartial keeps nothing.
type Part struct {
	inPlace
	w       *part.Writer
	meta    part.Meta
	finish  func(Summary, *part.Meta) error
	summary Summary
}

// NewPart starts the part of sim's output at path, with meta (all but
// what finish and the data fill in).
func NewPart(path string, sim *matvis.Simulation, meta part.Meta, finish func(Summary, *part.Meta) error) (*Part, error) {
	w, err := part.Create(path, sim.OutputShape(), sim.Options.Precision)
	if err != nil {
		return nil, err
	}
	return &Part{inPlace: newInPlace(sim, w), w: w, meta: meta, finish: finish}, nil
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
