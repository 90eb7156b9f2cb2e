package uvfits

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/uvh5"
)

// randomHeader is a header of nant antennas (every pair and auto) over
// ntime times and nf channels, with random uvw.
func randomHeader(nant, ntime, nf int, rng interface{ Float64() float64 }) *uvh5.Header {
	h := tinyHeader()
	h.AntennaNames, h.AntennaNumbers, h.AntennaPositions = nil, nil, nil
	for a := range nant {
		h.AntennaNames = append(h.AntennaNames, "ANT"+string(rune('A'+a)))
		h.AntennaNumbers = append(h.AntennaNumbers, int64(a))
		h.AntennaPositions = append(h.AntennaPositions, [3]float64{float64(a), 2 * float64(a), 0})
	}
	h.Ant1, h.Ant2, h.UVW, h.Times, h.LSTs, h.IntegrationTime = nil, nil, nil, nil, nil, nil
	for t := range ntime {
		for a := range nant {
			for b := a; b < nant; b++ {
				h.Ant1, h.Ant2 = append(h.Ant1, int64(a)), append(h.Ant2, int64(b))
				h.UVW = append(h.UVW, [3]float64{100 * (rng.Float64() - 0.5), 100 * (rng.Float64() - 0.5), rng.Float64() - 0.5})
				h.Times = append(h.Times, 2460000.3+float64(t)/8640)
				h.LSTs = append(h.LSTs, 1+float64(t)*1e-3)
				h.IntegrationTime = append(h.IntegrationTime, 10)
			}
		}
	}
	h.Freqs, h.ChannelWidth = nil, nil
	for f := range nf {
		h.Freqs = append(h.Freqs, 100e6+float64(f)*1e6)
		h.ChannelWidth = append(h.ChannelWidth, 1e6)
	}
	return h
}

// TestEncodeSplit: groups encoded on several goroutines are, byte for
// byte, the groups one goroutine encodes in order (the writer's twin),
// in both precisions, with flags and sample counts, however the rows
// are split — fresh random rows, the output poisoned before each run.
func TestEncodeSplit(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for _, single := range []bool{true, false} {
		h := randomHeader(5, 3, 7, rng)
		h.SinglePrecision = single
		w, err := Create(filepath.Join(t.TempDir(), "split.uvfits"), h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := len(h.Ant1)
		row := w.nf * w.npol
		vis := make([]complex128, n*row)
		flags := make([]bool, n*row)
		nsamples := make([]float32, n*row)
		for i := range vis {
			vis[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			flags[i] = rng.IntN(5) == 0
			nsamples[i] = float32(rng.IntN(4))
		}
		put := func(dst []byte, r int) {
			dst = w.putParams(dst, r)
			w.putData(dst, vis, flags, nsamples, r*row, w.nf)
		}
		encode := func(workers int) []byte {
			buf := bytes.Repeat([]byte{0xA5}, n*w.groupLen) // poison
			w.encodeRows(buf, n, workers, put)
			return buf
		}
		want := encode(1)
		// Spot check of the twin: the first group's first weight (after
		// its parameters and the first value's re and −im).
		at := (w.pcount + 2) * w.elem()
		wt := 1.0
		if flags[w.polIdx[0]] {
			wt = -1
		}
		wt *= float64(nsamples[w.polIdx[0]])
		if got := w.decode(want[at:]); got != wt {
			t.Fatalf("single=%v: group 0's first weight %v, want %v", single, got, wt)
		}
		for _, workers := range []int{2, 3, 7, n, n + 5} {
			if got := encode(workers); !bytes.Equal(got, want) {
				i := firstDiff(got, want)
				t.Fatalf("single=%v, %d workers: byte %d (group %d) differs from one goroutine's encoding", single, workers, i, i/w.groupLen)
			}
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
	}
}

// decode reads one big-endian value of the file's precision.
func (w *Writer) decode(b []byte) float64 {
	if w.single {
		return float64(math.Float32frombits(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
	}
	var u uint64
	for _, c := range b[:8] {
		u = u<<8 | uint64(c)
	}
	return math.Float64frombits(u)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSmallWritesSameFile: a file written in writes of a few groups (and
// of a few channels), several per WriteBlock and WriteChannels call, is
// byte for byte the file of one write per call — the groups' parameters
// and values land in their own rows whatever the chunking. Fresh random
// rows.
func TestSmallWritesSameFile(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	h := randomHeader(6, 2, 5, rng)
	h.SinglePrecision = true
	n := len(h.Ant1)
	row := h.Nfreqs() * h.Npols()
	vis := make([]complex128, n*row)
	for i := range vis {
		vis[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	dir := t.TempDir()
	write := func(name string, small bool, channels bool) []byte {
		p := filepath.Join(dir, name)
		w, err := Create(p, h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if small { // a write of one group, or of two channels' values
			w.maxBuf = 2*3*w.npol*w.elem() + 1
		}
		half := n / 2 // two calls, the second from a row inside a chunk
		for _, r := range [][2]int{{0, half}, {half, n}} {
			v := vis[r[0]*row : r[1]*row]
			if !channels {
				err = w.WriteBlock(r[0], v, nil, nil)
			} else { // channels [0, 2) then [2, nf) of the same rows
				nf, np := h.Nfreqs(), h.Npols()
				lo, hi := make([]complex128, 0), make([]complex128, 0)
				for k := range r[1] - r[0] {
					lo = append(lo, v[k*row:k*row+2*np]...)
					hi = append(hi, v[k*row+2*np:(k+1)*row]...)
				}
				if err = w.WriteChannels(r[0], r[1]-r[0], 0, 2, lo, nil, nil); err == nil {
					err = w.WriteChannels(r[0], r[1]-r[0], 2, nf, hi, nil, nil)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := write("whole.uvfits", false, false)
	for _, c := range []struct {
		name            string
		small, channels bool
	}{{"small.uvfits", true, false}, {"channels.uvfits", false, true}, {"small-channels.uvfits", true, true}} {
		if got := write(c.name, c.small, c.channels); !bytes.Equal(got, want) {
			t.Fatalf("%s: byte %d differs from the file of one write per call", c.name, firstDiff(got, want))
		}
	}
}
