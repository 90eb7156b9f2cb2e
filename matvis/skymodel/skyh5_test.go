package skymodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestSkyH5Generated reads the HEALPix and old-layout files written by
// testdata/gen_skyh5.py and compares positions and Stokes with what
// healpy, astropy and scipy computed there.
func TestSkyH5Generated(t *testing.T) {
	raw, err := os.ReadFile("testdata/skyh5_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		RA, Dec []float64
		Stokes  map[string][][]float64
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 4 {
		t.Fatalf("expected.json has %d files", len(want))
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			s, err := ReadSkyH5File(filepath.Join("testdata/skyh5", name))
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != len(w.RA) {
				t.Fatalf("%d components, want %d", s.Len(), len(w.RA))
			}
			for i := range w.RA {
				if d := angDist(s.RA()[i], s.Dec()[i], w.RA[i], w.Dec[i]); d > 1e-11 {
					t.Errorf("component %d: position off by %.3g rad", i, d)
				}
			}
			buf := make([]float64, s.Len())
			for fs, st := range w.Stokes {
				f, _ := strconv.ParseFloat(fs, 64)
				for p := range 4 {
					if err := s.StokesAt(f, p, buf); err != nil {
						t.Fatal(err)
					}
					for i, v := range st[p] {
						if math.Abs(buf[i]-v) > 1e-12*math.Max(1, math.Abs(v)) {
							t.Errorf("%g Hz Stokes %d comp %d: %.17g, want %.17g", f, p, i, buf[i], v)
						}
					}
				}
			}
		})
	}
}

func angDist(ra1, dec1, ra2, dec2 float64) float64 {
	x := math.Sin(dec1)*math.Sin(dec2) + math.Cos(dec1)*math.Cos(dec2)*math.Cos(ra1-ra2)
	c := math.Cos(dec1) * math.Sin(ra1-ra2)
	y := math.Cos(dec2)*math.Sin(dec1) - math.Sin(dec2)*math.Cos(dec1)*math.Cos(ra1-ra2)
	return math.Atan2(math.Hypot(c, y), x)
}

func TestSkyH5Errors(t *testing.T) {
	cases := []struct{ file, field, msg string }{
		{"bad_ncomponents.skyh5", "/Data/stokes", "shape does not match"},
		{"bad_ncomponents_string.skyh5", "/Header/Ncomponents", "not a numeric dataset"},
		{"bad_reffreq_negative.skyh5", "/Header/reference_frequency", "positive"},
		{"bad_stokes_nan.skyh5", "/Data/stokes", "not finite"},
		{"bad_unit.skyh5", "/Data/stokes attribute unit", "unsupported flux unit"},
		{"bad_spectral_type.skyh5", "/Header/spectral_type", "unknown spectral_type"},
		{"bad_frame.skyh5", "/Header/skycoord/frame", "unsupported frame"},
		{"bad_no_header.skyh5", "", "no /Header group"},
		{"bad_truncated.skyh5", "", ""},
		{"does_not_exist.skyh5", "", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata/skyh5", c.file)
			_, err := ReadSkyH5File(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q lacks file name or %q", err, c.msg)
			}
			var pe *ParseError
			if c.field != "" && (!errors.As(err, &pe) || pe.Field != c.field) {
				t.Errorf("error %q: want field %q", err, c.field)
			}
		})
	}
	if _, err := ReadSkyH5File("testdata/skyh5/good_point.skyh5"); err != nil {
		t.Errorf("good_point: %v", err)
	}
}

// TestSkyH5HeapGuard: corrupt heap sizes (the local heap's, the global
// heap collection's) are refused by their declared size, before anything
// of that size is allocated.
func TestSkyH5HeapGuard(t *testing.T) {
	good, err := os.ReadFile("testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []string{"HEAP\x00\x00\x00\x00", "GCOL\x01\x00\x00\x00"} {
		i := bytes.Index(good, []byte(sig))
		if i < 0 {
			t.Fatalf("no %q in the test file", sig[:4])
		}
		bad := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(bad[i+8:], 1<<45)
		path := filepath.Join(t.TempDir(), "bad.skyh5")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSkyH5File(path)
		if err == nil || !strings.Contains(err.Error(), "declares 35184372088832 bytes") {
			t.Errorf("%s size 2^45: %v", sig[:4], err)
		}
	}
}

// FuzzReadSkyH5 mutates SkyH5 files; the reader must return an error or a
// valid Sky, never crash.
func FuzzReadSkyH5(f *testing.F) {
	for _, name := range []string{"good_point.skyh5", "hpx_ring_K_full.skyh5", "point_old_lonlat_fk5.skyh5"} {
		addFileSeeds(f, filepath.Join("testdata/skyh5", name))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.skyh5")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := ReadSkyH5File(path); err == nil {
			checkSky(t, s)
		}
	})
}

// TestSkyH5HeapGuardFuzzFinds: fuzzed files whose local heap declares a
// huge data segment made the former third-party HDF5 library allocate it
// (2.7 GB, 256 TB) before failing; the reader must refuse each without
// allocating more than 64 MB (what it names as the cause:
// TestSkyH5DamagedStructuresNamed). Both files are
// testdata/skyh5/good_point.skyh5 with those bytes edited, as
// FuzzReadSkyH5 found them.
func TestSkyH5HeapGuardFuzzFinds(t *testing.T) {
	for _, name := range []string{"heap_reserved_altered.skyh5", "heap_lengthsize_zero.skyh5"} {
		var err error
		got := inputtest.Allocated(func() { _, err = ReadSkyH5File(filepath.Join("testdata", "skyh5", name)) })
		if err == nil {
			t.Errorf("%s: read without an error", name)
		}
		if got > 64<<20 {
			t.Errorf("%s: reading it allocated %d MB", name, got>>20)
		}
	}
}

// TestDropZeroStokes: all-zero Q, U, V become nil and the Stokes kept no
// longer share the (4, Nfreqs, N) read, so it can be freed.
func TestDropZeroStokes(t *testing.T) {
	cases := []struct {
		name     string
		v        []float64 // I, Q, U, V of 2 values each
		wantNil  [4]bool
		wantCopy bool
	}{
		{"Stokes I only", []float64{1, 2, 0, 0, 0, -0, 0, 0}, [4]bool{false, true, true, true}, true},
		{"V non-zero", []float64{1, 2, 0, 0, 0, 0, 0, 3}, [4]bool{false, true, true, false}, true},
		{"all non-zero", []float64{1, 2, 1, 0, 0, 1, math.NaN(), 0}, [4]bool{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st [4][]float64
			for p := range st {
				st[p] = c.v[2*p : 2*p+2 : 2*p+2]
			}
			dropZeroStokes(&st)
			for p := range st {
				if (st[p] == nil) != c.wantNil[p] {
					t.Errorf("Stokes %c nil: %v, want %v", "IQUV"[p], st[p] == nil, c.wantNil[p])
				}
			}
			c.v[0] = 42 // the read buffer changes: a copy does not see it
			if copied := st[0][0] != 42; copied != c.wantCopy || st[0][1] != 2 {
				t.Errorf("Stokes I %v: copied %v, want %v", st[0], copied, c.wantCopy)
			}
		})
	}
}
