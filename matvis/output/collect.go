package output

import (
	"github.com/gomatvis/gomatvis/matvis"
)

// Collector is the BlockWriter that holds the whole output in memory, as
// a Result of the simulation, for a caller that wants the numbers (a
// notebook) rather than a file.
type Collector struct {
	res *matvis.Result
	nt  int
}

// NewCollector allocates sim's whole Result to collect its blocks into.
func NewCollector(sim *matvis.Simulation) *Collector {
	return &Collector{res: matvis.NewResult(sim), nt: sim.NTime()}
}

// WriteBlock copies res's finished integrations into the whole result.
func (c *Collector) WriteBlock(b matvis.Block, res *matvis.Result) error {
	return c.res.PutBlock(b, res)
}

// Result is the collected output; Done marks what was written.
func (c *Collector) Result() *matvis.Result { return c.res }

// Close does nothing: the result is in memory.
func (c *Collector) Close() error { return nil }

// ClosePartial says how much of the result was collected; Path is "".
func (c *Collector) ClosePartial() (Kept, error) {
	nf := len(c.res.Done) / max(c.nt, 1)
	return Kept{Integrations: count(c.res.Done), TotalIntegrations: len(c.res.Done),
		Times: wholeTimes(c.res.Done, nf, c.nt), TotalTimes: c.nt}, nil
}

// Abort does nothing.
func (c *Collector) Abort() error { return nil }
