package fitsread

import (
	"os"
	"strings"
	"testing"
)

const ref = "../../testdata/reference/pyuvsim-stokesI-gaussian/stokesI-gaussian.uvfits"

// TestReadPyuvsim reads pyuvsim's UVFITS and finds what PHASING.md says it
// holds: 84 groups of 11 parameters, 3 channels × 4 polarizations, the
// OBJECT and SU source names, the AN table's 7 antennas.
func TestReadPyuvsim(t *testing.T) {
	hdus, err := Read(ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(hdus) != 3 {
		t.Fatalf("%d HDUs", len(hdus))
	}
	g, err := hdus[0].Groups()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Data) != 84 || len(g.Data[0]) != 3*4*3 || strings.Join(g.Names, " ") != "UU VV WW DATE BASELINE SOURCE ANTENNA1 ANTENNA2 SUBARRAY INTTIM LST" {
		t.Errorf("%d groups of %d values, parameters %v", len(g.Data), len(g.Data[0]), g.Names)
	}
	if d := g.Params["DATE"][0]; d != 2459845.0 {
		t.Errorf("first DATE %v, want JD 2459845.0", d)
	}
	if c, _ := hdus[0].Get("OBJECT"); c.Value != "zenith_at_jd2459845.000000" || !c.Quoted {
		t.Errorf("OBJECT %+v", c)
	}
	an, err := hdus[1].Table()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(an["ANNAME"].Strings); n != 7 || len(an["STABXYZ"].Numbers) != 21 {
		t.Errorf("AN: %d names, %d STABXYZ values", n, len(an["STABXYZ"].Numbers))
	}
	su, err := hdus[2].Table()
	if err != nil {
		t.Fatal(err)
	}
	if s := su["SOURCE"].Strings; len(s) != 1 || s[0] != "zenith_at_jd2459845." {
		t.Errorf("SU SOURCE %q", s)
	}
}

// FuzzParse: damaged files give errors, never a panic or a huge
// allocation.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(ref)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:2880])
	f.Fuzz(func(t *testing.T, b []byte) {
		hdus, err := Parse(b)
		if err != nil {
			return
		}
		for i := range hdus {
			hdus[i].Groups()
			hdus[i].Table()
		}
	})
}
