package ms

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// smallHeader is a valid two-antenna, one-time header.
func smallHeader() Header {
	return Header{
		TelescopeName: "T", LatDeg: -30, LonDeg: 21, AltM: 1000,
		AntennaNumbers: []int{0, 3}, AntennaNames: []string{"a", "b"},
		AntennaECEF: [][3]float64{{0, 0, 0}, {10, 0, 0}},
		Freqs:       []float64{1e8, 1.1e8}, ChannelWidths: []float64{1e7, 1e7},
		Pols:       []int{-5, -6},
		CentreName: "c", CentreRA: 1, CentreDec: -0.5,
		Times: []float64{2459845}, Baselines: 3, IntegrationTime: 10,
	}
}

func smallBlock() Block {
	return Block{
		Ant1: []int{0, 3, 3}, Ant2: []int{0, 0, 3}, JD: []float64{2459845, 2459845, 2459845},
		UVW:  [][3]float64{{}, {10, 0, 0}, {}},
		Data: make([]complex64, 3*2*2),
	}
}

// TestCreateErrors: a bad header is refused with a message naming what
// is wrong, and nothing is left on disk.
func TestCreateErrors(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(h *Header)
	}{
		{"no antennas", "no antennas", func(h *Header) { h.AntennaNumbers, h.AntennaNames, h.AntennaECEF = nil, nil, nil }},
		{"names", "2 antenna numbers but 1 names", func(h *Header) { h.AntennaNames = h.AntennaNames[:1] }},
		{"widths", "2 frequencies and 1 channel widths", func(h *Header) { h.ChannelWidths = h.ChannelWidths[:1] }},
		{"pol code", "polarization code 1: the MS writer takes instrumental polarizations", func(h *Header) { h.Pols = []int{1} }},
		{"pol twice", "polarization code -5 appears twice", func(h *Header) { h.Pols = []int{-5, -5} }},
		{"mixed feeds", "mix linear and circular", func(h *Header) { h.Pols = []int{-5, -1} }},
		{"no rows", "0 times of 3 baselines", func(h *Header) { h.Times = nil }},
		{"times", "times must increase", func(h *Header) { h.Times = []float64{2, 1} }},
		{"inttime", "integration time 0 s", func(h *Header) { h.IntegrationTime = 0 }},
		{"dec", "|Dec| <= π/2", func(h *Header) { h.CentreDec = 2 }},
		{"antenna number", "antenna \"a\" has number -1", func(h *Header) { h.AntennaNumbers[0] = -1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			h := smallHeader()
			c.edit(&h)
			path := filepath.Join(dir, "x.ms")
			_, err := Create(path, h)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err %v, want one naming %s and %q", err, path, c.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left %v behind", left)
			}
		})
	}
}

// TestWriteRowsErrors: a bad block is refused with a clear message.
func TestWriteRowsErrors(t *testing.T) {
	cases := []struct {
		name, want string
		start      int
		edit       func(b *Block)
	}{
		{"order", "block starts at row 1, but 0 rows are written", 1, func(*Block) {}},
		{"too many", "exceed the header's 3", 0, func(b *Block) {
			b.Ant1, b.Ant2, b.JD, b.UVW = append(b.Ant1, 0), append(b.Ant2, 0), append(b.JD, 2459845), append(b.UVW, [3]float64{})
			b.Data = make([]complex64, 16)
		}},
		{"data", "has 11 visibilities", 0, func(b *Block) { b.Data = b.Data[:11] }},
		{"flags", "has 2 flags for 12 visibilities", 0, func(b *Block) { b.Flags = make([]bool, 2) }},
		{"antenna", "antennas 1, 0: not among the header's antenna numbers", 0, func(b *Block) { b.Ant1[1] = 1 }},
		{"time", "JD 2459846 is not one of the header's times", 0, func(b *Block) { b.JD[2] = 2459846 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.ms")
			w, err := Create(path, smallHeader())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			b := smallBlock()
			c.edit(&b)
			if err := w.WriteRows(c.start, b); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// TestAtomic: nothing appears at the path until Close succeeds; an
// incomplete MS is removed on Close, an aborted one on Abort; an existing
// path is refused.
func TestAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ms")
	w, err := Create(path, smallHeader())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists before Close: %v", path, err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "0 of 3 rows written") {
		t.Fatalf("Close of an empty MS: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left %v behind", left)
	}

	w, err = Create(path, smallHeader())
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("Abort left %v behind", left)
	}

	w, err = Create(path, smallHeader())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(0, smallBlock()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 || left[0].Name() != "x.ms" {
		t.Fatalf("after Close the directory holds %v, want x.ms alone", left)
	}
	if _, err := Create(path, smallHeader()); err == nil || !strings.Contains(err.Error(), "exists; remove it") {
		t.Fatalf("Create over an existing MS: %v", err)
	}
}

// TestDriftErrors: the drift streamer refuses a missing EOP source, a
// block out of time order, rows out of order, unknown antennas and too
// few flags, by name.
func TestDriftErrors(t *testing.T) {
	const name = "stokesI-gaussian"
	src := filepath.Join(refDir, "pyuvsim-"+name)
	f, err := uvh5.ReadFile(filepath.Join(src, name+".uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := NewDrift(filepath.Join(dir, "a.ms"), &f.Header, Phasing{}); err == nil || !strings.Contains(err.Error(), "Phasing.EOP") {
		t.Fatalf("NewDrift without EOP: %v", err)
	}
	d, err := NewDrift(filepath.Join(dir, "b.ms"), &f.Header, Phasing{EOP: eopOf(t, src)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	h := &f.Header
	nb := 28
	b := DriftBlock{JD: h.Times[nb], LST: h.LSTs[nb], Vis: f.Vis[:nb*12]}
	for k := range nb {
		b.Ant1, b.Ant2 = append(b.Ant1, int(h.Ant1[k])), append(b.Ant2, int(h.Ant2[k]))
	}
	if err := d.WriteTime(b); err == nil || !strings.Contains(err.Error(), "a block at JD 2459845.0069444445 where the header's time 0 is next") {
		t.Fatalf("a block out of order: %v", err)
	}
	b.JD = h.Times[0]
	b.Ant1[3] = 99
	if err := d.WriteTime(b); err == nil || !strings.Contains(err.Error(), "antennas 99, 0: not among the header's antenna numbers") {
		t.Fatalf("an unknown antenna: %v", err)
	}
	b.Ant1[3] = int(h.Ant1[3])
	if err := d.WriteRows(5, b); err == nil || !strings.Contains(err.Error(), "rows [5, 33) of a time (28 second antennas) where row 0 of 28 is next") {
		t.Fatalf("rows out of order: %v", err)
	}
	b.Flags = make([]bool, 5)
	if err := d.WriteTime(b); err == nil || !strings.Contains(err.Error(), "5 flags and 0 sample counts for 336 visibilities") {
		t.Fatalf("too few flags: %v", err)
	}
}
