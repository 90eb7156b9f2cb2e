package output

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// Rows writes a run's output as UVH5, UVFITS or MS baseline-time rows
// (matvis/uvdata, in pyuvsim's layout): a block's finished integrations
// are laid out a bounded piece of rows at a time.
type Rows struct {
	w      *uvdata.Writer
	path   string
	nf, nt int
}

// NewUVH5 starts the UVH5 output of sim, made with obs's conventions.
func NewUVH5(path string, sim *matvis.Simulation, obs *matvis.Observation) (*Rows, error) {
	w, err := uvdata.Create(path, sim, obs)
	if err != nil {
		return nil, err
	}
	return &Rows{w: w, path: path, nf: sim.NFreq(), nt: sim.NTime()}, nil
}

// NewUVFITS starts the UVFITS output of sim, made with obs's conventions,
// as pyuvsim writes it: phased to the first time's zenith.
func NewUVFITS(path string, sim *matvis.Simulation, obs *matvis.Observation) (*Rows, error) {
	return NewUVFITSWith(path, sim, obs, uvdata.UVFITSPhasing{})
}

// NewUVFITSWith is NewUVFITS phased as p says (uvdata.CreateUVFITSWith).
func NewUVFITSWith(path string, sim *matvis.Simulation, obs *matvis.Observation, p uvdata.UVFITSPhasing) (*Rows, error) {
	w, err := uvdata.CreateUVFITSWith(path, sim, obs, p)
	if err != nil {
		return nil, err
	}
	return &Rows{w: w, path: path, nf: sim.NFreq(), nt: sim.NTime()}, nil
}

// NewMS starts the Measurement Set output of sim, made with obs's
// conventions, phased to the first time's zenith (centre nil) or to
// centre (uvdata.CreateMS).
func NewMS(path string, sim *matvis.Simulation, obs *matvis.Observation, centre *phase.Centre) (*Rows, error) {
	w, err := uvdata.CreateMS(path, sim, obs, centre)
	if err != nil {
		return nil, err
	}
	return &Rows{w: w, path: path, nf: sim.NFreq(), nt: sim.NTime()}, nil
}

// WriteBlock writes res's finished integrations.
func (w *Rows) WriteBlock(b matvis.Block, res *matvis.Result) error {
	_, err := w.w.WriteBlock(b, res)
	return err
}

// Close finishes the file at its path.
func (w *Rows) Close() error { return w.w.Close() }

// ClosePartial keeps the finished integrations at PartialPath, the others
// flagged (nsamples 0), as pyuvdata marks missing data.
func (w *Rows) ClosePartial() (Kept, error) {
	n := w.w.IntegrationsWritten()
	if n == 0 {
		return Kept{}, w.w.Abort()
	}
	p := PartialPath(w.path)
	if err := w.w.ClosePartial(p); err != nil {
		return Kept{}, err
	}
	return Kept{Path: p, Integrations: n, TotalIntegrations: w.nf * w.nt, Times: w.w.TimesWritten(), TotalTimes: w.nt,
		ByTime: true, Missing: "the others flagged"}, nil
}

// Abort discards the file.
func (w *Rows) Abort() error { return w.w.Abort() }

// checkBlock refuses a result that is not block b's of an nf × nt run of
// the given precision.
func checkBlock(b matvis.Block, res *matvis.Result, nf, nt, precision int) error {
	switch {
	case b.F0 < 0 || b.F0 >= b.F1 || b.F1 > nf || b.T0 < 0 || b.T0 >= b.T1 || b.T1 > nt:
		return fmt.Errorf("output: %v is not a block of %d freqs × %d times", b, nf, nt)
	case res == nil || len(res.Shape) < 3 || res.Shape[0] != b.NFreq() || res.Shape[1] != b.NTime() || res.Precision != precision ||
		len(res.Done) != b.Size() || dataLen(res) != elements(res.Shape):
		return fmt.Errorf("output: a result that is not %v's (shape %v)", b, shapeOf(res))
	}
	return nil
}

// dataLen is the length of res's visibilities of its precision.
func dataLen(res *matvis.Result) int {
	if res.Precision == 1 {
		return len(res.Vis64)
	}
	return len(res.Vis128)
}

// elements is the number of values of an array of the shape.
func elements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func shapeOf(res *matvis.Result) []int {
	if res == nil {
		return nil
	}
	return res.Shape
}
