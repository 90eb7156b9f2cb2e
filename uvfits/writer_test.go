package uvfits

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// tinyHeader is a two-antenna, two-row, two-channel header, set field by
// field (not a composite literal) so that it does not depend on how
// uvh5.Header groups its fields.
func tinyHeader() *uvh5.Header {
	h := new(uvh5.Header)
	h.TelescopeName, h.Instrument = "HERA", "HERA"
	h.Latitude, h.Longitude, h.Altitude = -30.7, 21.4, 1051
	h.AntennaNames, h.AntennaNumbers = []string{"ANT0", "ANT1"}, []int64{0, 1}
	h.AntennaPositions = [][3]float64{{0, 0, 0}, {1, 2, 3}}
	h.Ant1, h.Ant2 = []int64{0, 1}, []int64{1, 1}
	h.UVW = [][3]float64{{14, 0, 0}, {0, 0, 0}}
	h.Times, h.LSTs, h.IntegrationTime = []float64{2460000.3, 2460000.3}, []float64{1, 1}, []float64{10, 10}
	h.Freqs, h.ChannelWidth = []float64{100e6, 101e6}, []float64{1e6, 1e6}
	h.Pols, h.VisUnits, h.History, h.BltOrder = []int64{-6, -5}, "Jy", "test\nsecond line", "time, baseline"
	return h
}

// cardValue finds KEY's value in a header block.
func cardValue(hdr []byte, key string) (string, bool) {
	for i := 0; i+80 <= len(hdr); i += 80 {
		c := string(hdr[i : i+80])
		if strings.HasPrefix(c, "END ") {
			break
		}
		if strings.TrimSpace(c[:8]) == key && c[8:10] == "= " {
			return strings.TrimSpace(c[10:]), true
		}
	}
	return "", false
}

// TestWriterLayout: blocks of 2880 bytes, the random-groups cards, a
// group's parameters and its (re, −im, weight) triples in |pol| order,
// flagged samples with negative weights, and nothing at the path before
// Close.
func TestWriterLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.uvfits")
	h := tinyHeader()
	w, err := Create(path, h, Options{PhaseCenter: PhaseCenter{Name: "zenith", RADeg: 10, DecDeg: -30}})
	if err != nil {
		t.Fatal(err)
	}
	// (blt, freq, pol) with pols (-6, -5): the file sorts them to (-5, -6).
	vis := []complex128{1 + 2i, 3 + 4i, 5 + 6i, 7 + 8i}
	if err := w.WriteBlock(0, vis, []bool{false, true, false, false}, []float32{1, 2, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists before Close: %v", path, err)
	}
	if err := w.WriteBlock(1, vis, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%2880 != 0 {
		t.Fatalf("file of %d bytes: not whole FITS blocks", len(b))
	}
	for k, want := range map[string]string{"SIMPLE": "T", "GROUPS": "T", "NAXIS": "7", "NAXIS2": "3", "NAXIS3": "2", "NAXIS4": "2",
		"GCOUNT": "2", "PCOUNT": "11", "CRVAL3": "-5.0", "CDELT3": "-1.0", "PTYPE5": "'BASELINE'", "PZERO4": "2459999.5", "OBJECT": "'zenith  '"} {
		if got, ok := cardValue(b, k); !ok || got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	hdrLen := int(padded(int64(strings.Index(string(b), "END     ") + 80)))
	g := b[hdrLen:]
	f := func(i int) float64 { return math.Float64frombits(binary.BigEndian.Uint64(g[8*i:])) }
	if f(0) != -14/speedOfLight || f(4) != 1 || math.Abs(f(3)-0.8) > 1e-9 {
		t.Errorf("parameters UU %v BASELINE %v DATE %v", f(0), f(4), f(3))
	}
	// Channel 0: pol -5 is the header's index 1 (3+4i, flagged, nsamples 2),
	// then pol -6, index 0 (1+2i); channel 1 likewise.
	want := []float64{3, -4, 2 * -1, 1, -2, 1, 7, -8, 1, 5, -6, 1}
	for i, x := range want {
		if got := f(11 + i); got != x {
			t.Errorf("group 0 value %d = %v, want %v", i, got, x)
		}
	}
}

// TestWriterRefuses: an incomplete file is not left behind, and axes
// UVFITS cannot hold are refused.
func TestWriterRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.uvfits")
	w, err := Create(path, tinyHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(0, make([]complex128, 4), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("Close with a row missing: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	h := tinyHeader()
	h.Pols = []int64{-5, -6, -8}
	if _, err := Create(path, h, Options{}); err == nil || !strings.Contains(err.Error(), "evenly spaced") {
		t.Errorf("pols -5, -6, -8: %v", err)
	}
}

func TestCalendar(t *testing.T) {
	for jd, want := range map[float64]string{2451545.0: "2000-01-01", 2460000.4: "2023-02-24", 2460000.6: "2023-02-25"} {
		if got := isoDate(jd); got != want {
			t.Errorf("isoDate(%v) = %s, want %s", jd, got, want)
		}
	}
}

// TestISOTime: DATE-OBS as astropy's isot of the first time (pyuvdata
// 2.4): JD n.0 is noon, n.5 midnight; a time within half a millisecond of
// midnight rounds into the next day.
func TestISOTime(t *testing.T) {
	for jd, want := range map[float64]string{
		2459845.0:           "2022-09-22T12:00:00.000",
		2459844.5:           "2022-09-22T00:00:00.000",
		2451545.0:           "2000-01-01T12:00:00.000",
		2459845.0 + 0.25:    "2022-09-22T18:00:00.000",
		2459845.0 + 1.5e-8:  "2022-09-22T12:00:00.001", // 1.296 ms
		2459845.5 - 1e-9:    "2022-09-23T00:00:00.000", // 86 μs before midnight
		2459845.5 - 1.16e-8: "2022-09-22T23:59:59.999", // 1.0 ms before
	} {
		if got := isoTime(jd); got != want {
			t.Errorf("isoTime(%v) = %s, want %s", jd, got, want)
		}
	}
}

// TestNoBaselineAbove255: with an antenna number ≥ 255 pyuvdata writes no
// BASELINE parameter, only ANTENNA1 and ANTENNA2; so does the writer.
func TestNoBaselineAbove255(t *testing.T) {
	h := tinyHeader()
	h.AntennaNumbers = []int64{0, 300}
	h.Ant1, h.Ant2 = []int64{0, 300}, []int64{300, 300}
	w, err := Create(filepath.Join(t.TempDir(), "x.uvfits"), h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, p := range w.params {
		if p.name == "BASELINE" {
			t.Fatal("BASELINE written with antenna 300")
		}
	}
	if w.pcount != 10 {
		t.Errorf("PCOUNT %d, want 10", w.pcount)
	}
}

// TestAbortAndReplace: an aborted write leaves the file it would have
// replaced as it was and no temporary; a finished one replaces it whole,
// with no temporary left, and an Abort after Close keeps the new file.
func TestAbortAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.uvfits")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	onlyPath := func(when, want string) {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) != 1 || ents[0].Name() != "x.uvfits" {
			t.Fatalf("%s: directory holds %v (%v), want only x.uvfits", when, ents, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b[:min(len(b), len(want))]); got != want {
			t.Fatalf("%s: file starts %q, want %q", when, got, want)
		}
	}
	vis := make([]complex128, 4)
	w, err := Create(path, tinyHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(0, vis, nil, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
	}
	onlyPath("after Abort", "old")
	if err := w.WriteBlock(1, vis, nil, nil); err == nil {
		t.Error("WriteBlock after Abort succeeded")
	}

	w, err = Create(path, tinyHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		if err := w.WriteBlock(r, vis, nil, nil); err != nil {
			t.Fatal(err)
		}
		// The temporary is beside the old file until Close renames it.
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Fatalf("while writing: directory holds %v, want x.uvfits and its temporary", ents)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A FITS file starts with the SIMPLE card.
	onlyPath("after Close", "SIMPLE  =                    T")
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	onlyPath("after Abort and Close following Close", "SIMPLE  =                    T")
}
