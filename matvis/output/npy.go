package output

import (
	"io"
	"math"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/npy"
)

// NPY writes a run's output as matvis's .npy array, (nfreq, ntimes,
// npairs[, 2, 2]), filled in place block by block: a block's channel
// holds its times contiguously in the file, so each channel's run of
// finished times is one write. The array appears at its path only at
// Close, with its sidecar when one is set, as one group.
type NPY struct {
	f          *npy.FileWriter
	path       string
	nf, nt     int
	per        int    // values per integration
	done       []bool // integrations written, index f·nt + t
	precision  int
	sidecar    string
	sidecarFor func(Summary) ([]byte, error)
	summary    Summary
}

// NewNPY starts the .npy output of sim at path. With sidecar set, Close
// writes sidecarFor(the run's Summary) to the path sidecar together with
// the array (an npy's meta.json).
func NewNPY(path string, sim *matvis.Simulation, sidecar string, sidecarFor func(Summary) ([]byte, error)) (*NPY, error) {
	dt := npy.Complex128
	if sim.Options.Precision == 1 {
		dt = npy.Complex64
	}
	shape := sim.OutputShape()
	f, err := npy.Create(path, shape, dt)
	if err != nil {
		return nil, err
	}
	per := 1
	for _, d := range shape[2:] {
		per *= d
	}
	return &NPY{f: f, path: path, nf: sim.NFreq(), nt: sim.NTime(), per: per, done: make([]bool, sim.NFreq()*sim.NTime()),
		precision: sim.Options.Precision, sidecar: sidecar, sidecarFor: sidecarFor}, nil
}

// WriteBlock writes res's finished integrations: each run of them that
// is contiguous in the file in one write — a channel's run of times, or,
// for a block of every time, a run across channels.
func (w *NPY) WriteBlock(b matvis.Block, res *matvis.Result) error {
	if err := checkBlock(b, res, w.nf, w.nt, w.precision); err != nil {
		return err
	}
	ntb, n := b.NTime(), b.Size()
	for i := 0; i < n; {
		if !res.Done[i] {
			i++
			continue
		}
		j := i + 1
		for j < n && res.Done[j] && (ntb == w.nt || j%ntb != 0) {
			j++
		}
		if err := w.writeRun(b, res, i, j); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// writeRun writes the block's integrations [i, j) (block order, f·nt+t),
// which lie contiguously in the file.
func (w *NPY) writeRun(b matvis.Block, res *matvis.Result, i, j int) error {
	var data any
	if w.precision == 1 {
		data = res.Vis64[i*w.per : j*w.per]
	} else {
		data = res.Vis128[i*w.per : j*w.per]
	}
	ntb := b.NTime()
	first := (b.F0+i/ntb)*w.nt + b.T0 + i%ntb
	if err := w.f.WriteAt(int64(first)*int64(w.per), data); err != nil {
		return err
	}
	for k := i; k < j; k++ {
		w.done[(b.F0+k/ntb)*w.nt+b.T0+k%ntb] = true
	}
	return nil
}

// Summarize keeps the run's summary for the sidecar.
func (w *NPY) Summarize(s Summary) { w.summary = s }

// Close renames the array (and its sidecar) into place.
func (w *NPY) Close() error {
	if w.sidecar == "" {
		return w.f.Close()
	}
	meta, err := w.sidecarFor(w.summary)
	if err != nil {
		w.f.Abort()
		return err
	}
	return w.f.CloseAs(w.path, atomicfile.File{Path: w.sidecar, Fill: func(o io.Writer) error { _, err := o.Write(meta); return err }})
}

// ClosePartial keeps the finished integrations at PartialPath, the others
// NaN so that they cannot be mistaken for data (no sidecar).
func (w *NPY) ClosePartial() (Kept, error) {
	n := count(w.done)
	if n == 0 {
		return Kept{}, w.f.Abort()
	}
	nan128 := complex(math.NaN(), math.NaN())
	for i := 0; i < len(w.done); {
		if w.done[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(w.done) && !w.done[j] {
			j++
		}
		if err := writeNaN(w.f, int64(i*w.per), int64((j-i)*w.per), w.precision, nan128); err != nil {
			w.f.Abort()
			return Kept{}, err
		}
		i = j
	}
	p := PartialPath(w.path)
	if err := w.f.CloseAs(p); err != nil {
		return Kept{}, err
	}
	return Kept{Path: p, Integrations: n, TotalIntegrations: len(w.done), Times: wholeTimes(w.done, w.nf, w.nt), TotalTimes: w.nt,
		Missing: "unfinished ones are NaN"}, nil
}

// Abort removes the temporary.
func (w *NPY) Abort() error { return w.f.Abort() }

// writeNaN writes n NaN values from element off, a bounded piece at a time.
func writeNaN(f *npy.FileWriter, off, n int64, precision int, nan complex128) error {
	const piece = 1 << 16
	k := int(min(n, piece))
	var buf any
	if precision == 1 {
		b := make([]complex64, k)
		for i := range b {
			b[i] = complex64(nan)
		}
		buf = b
	} else {
		b := make([]complex128, k)
		for i := range b {
			b[i] = nan
		}
		buf = b
	}
	for i := int64(0); i < n; i += piece {
		m := int(min(piece, n-i))
		var part any
		if precision == 1 {
			part = buf.([]complex64)[:m]
		} else {
			part = buf.([]complex128)[:m]
		}
		if err := f.WriteAt(off+i, part); err != nil {
			return err
		}
	}
	return nil
}

// count is the number of true values.
func count(done []bool) int {
	n := 0
	for _, d := range done {
		if d {
			n++
		}
	}
	return n
}

// wholeTimes counts the times whose every channel is done (index f·nt + t).
func wholeTimes(done []bool, nf, nt int) int {
	n := 0
	for t := range nt {
		all := true
		for f := 0; f < nf && all; f++ {
			all = done[f*nt+t]
		}
		if all {
			n++
		}
	}
	return n
}
