package beamfits

import (
	"bytes"
	"encoding/binary"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// fitsHDUs splits a FITS file into the header and (padded) data bytes of
// each HDU.
func fitsHDUs(t testing.TB, b []byte) (headers, data [][]byte) {
	t.Helper()
	r := bytes.NewReader(b)
	var off int64
	for hdu := 0; off < int64(len(b)); hdu++ {
		h, err := readFITSHeader(r, off, int64(len(b)), hdu)
		if err != nil {
			t.Fatal(err)
		}
		n, err := h.dataBytes(int64(len(b)) - off - h.length)
		if err != nil {
			t.Fatal(err)
		}
		n += (fitsBlock - n%fitsBlock) % fitsBlock
		headers = append(headers, b[off:off+h.length])
		data = append(data, b[off+h.length:off+h.length+n])
		off += h.length + n
	}
	return headers, data
}

// tinyBeamFITS is the repository's HERA dipole beamfits cut down to a
// 2 az × 2 za grid (0°, 180° × 0°, 90°): the same cards, one data block
// per HDU, aligned basis vectors; about 20 kB.
func tinyBeamFITS(t testing.TB) []byte {
	t.Helper()
	hdrs, data := fitsHDUs(t, realBeamFITS(t))
	if len(hdrs) != 3 {
		t.Fatalf("%d HDUs, want 3", len(hdrs))
	}
	grid := func(h []byte, nth int) []byte {
		for _, c := range []struct{ key, v string }{{"NAXIS1", "2"}, {"NAXIS2", "2"}, {"CDELT1", "180.0"}, {"CDELT2", "90.0"}} {
			h = setCard(t, h, c.key, nth, c.v)
		}
		return h
	}
	prim := make([]byte, fitsBlock)
	for i := 0; i < 2*2*2*2*2*2; i++ {
		binary.BigEndian.PutUint64(prim[8*i:], math.Float64bits(1+float64(i%5)/10))
	}
	basis := make([]byte, fitsBlock)
	// FITS axes az, za, component, vector: component k of vector k is 1.
	for v := 0; v < 2; v++ {
		for p := 0; p < 4; p++ {
			binary.BigEndian.PutUint64(basis[8*((v*2+v)*4+p):], math.Float64bits(1))
		}
	}
	var out []byte
	for _, part := range [][]byte{grid(hdrs[0], 0), prim, grid(hdrs[1], 0), basis, hdrs[2], data[2]} {
		out = append(out, part...)
	}
	return out
}

func TestTinyBeamFITSLoads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tiny.fits")
	b := tinyBeamFITS(t)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.GridPixels() != 4 || len(g.Freqs()) != 2 || g.Basis() != nil {
		t.Fatalf("%d pixels, %d freqs, basis %v; want 4, 2, aligned", g.GridPixels(), len(g.Freqs()), g.Basis())
	}
	t.Logf("%d bytes", len(b))
}

// FuzzBeamFITS checks that Load never panics and never allocates
// far beyond the file's size, whatever the bytes.
func FuzzBeamFITS(f *testing.F) {
	tiny := tinyBeamFITS(f)
	f.Add(tiny)
	f.Add(tiny[:2*fitsBlock])
	f.Add(setCard(f, tiny, "NAXIS1", 0, "999999999"))
	f.Add(setCard(f, tiny, "NAXIS", 0, "-3"))
	f.Add(setCard(f, tiny, "BTYPE", 0, "'power'"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte) {
		p := filepath.Join(dir, "in.fits")
		if err := os.WriteFile(p, in, 0o600); err != nil {
			t.Fatal(err)
		}
		var g *beam.Gridded
		var err error
		n := inputtest.Allocated(func() { g, err = Load(p) })
		if bound := 64*uint64(len(in)) + 8<<20; n > bound {
			t.Fatalf("allocated %d bytes for a %d-byte file", n, len(in))
		}
		if err == nil && g.GridPixels() != len(g.Az())*len(g.Za()) {
			t.Fatalf("%d grid pixels for %d az × %d za", g.GridPixels(), len(g.Az()), len(g.Za()))
		}
	})
}
