package skymodel

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReadGLEAM reads testdata/gleam_small.vot (gen_votable.py) in the
// three GLEAM spectral types and compares with astropy/scipy values.
func TestReadGLEAM(t *testing.T) {
	raw, err := os.ReadFile("testdata/votable_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	var ra, dec []float64
	_ = json.Unmarshal(want["ra"], &ra)
	_ = json.Unmarshal(want["dec"], &dec)
	for _, st := range []SpectralType{Flat, SpectralIndex, Subband} {
		t.Run(st.String(), func(t *testing.T) {
			s, err := ReadGLEAMFile("testdata/gleam_small.vot", st)
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != len(ra) || s.Spectral() != st {
				t.Fatalf("%d components of type %v", s.Len(), s.Spectral())
			}
			for i := range ra {
				if d := angDist(s.RA()[i], s.Dec()[i], ra[i], dec[i]); d > 1e-12 {
					t.Errorf("comp %d: %.3g rad from astropy's ICRS position", i, d)
				}
			}
			var vals map[string][]float64
			if err := json.Unmarshal(want[st.String()], &vals); err != nil {
				t.Fatal(err)
			}
			buf := make([]float64, s.Len())
			for fs, w := range vals {
				f, _ := strconv.ParseFloat(fs, 64)
				if err := s.StokesIAt(f, buf); err != nil {
					t.Fatal(err)
				}
				for i := range w {
					if !relClose(buf[i], w[i], 1e-12) {
						t.Errorf("%g Hz comp %d: %.17g, want %.17g", f, i, buf[i], w[i])
					}
				}
			}
		})
	}
}

const miniVOT = `<?xml version="1.0"?>
<VOTABLE><RESOURCE><TABLE ID="T1" name="cat">
<FIELD ID="id" datatype="char" arraysize="*"/>
<FIELD ID="ra" datatype="double" unit="deg"/>
<FIELD ID="dec" datatype="double" unit="deg"/>
<FIELD ID="S" datatype="double" unit="UNIT"/>
<DATA><TABLEDATA>
<TR><TD>A</TD><TD>10</TD><TD>-30</TD><TD>FLUX</TD></TR>
<TR><TD>B</TD><TD>20</TD><TD>DEC2</TD><TD>2</TD></TR>
</TABLEDATA></DATA></TABLE></RESOURCE></VOTABLE>`

func miniOpts() VOTableOptions {
	return VOTableOptions{Table: "cat", IDColumn: "id", LonColumn: "ra", LatColumn: "dec", FluxColumns: []string{"S"}, Frame: "icrs"}
}

func TestReadVOTableGeneric(t *testing.T) {
	doc := strings.NewReplacer("UNIT", "mJy", "FLUX", "1500", "DEC2", "-40").Replace(miniVOT)
	s, err := ReadVOTable(strings.NewReader(doc), "mini.vot", miniOpts())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 2)
	if err := s.StokesIAt(1e8, buf); err != nil || buf[0] != 1.5 || buf[1] != 0.002 {
		t.Errorf("fluxes %v (%v), want [1.5 0.002]", buf, err)
	}
	if s.Names()[1] != "B" || !relClose(s.Dec()[1], -40*math.Pi/180, 1e-15) {
		t.Errorf("row 2: %s %g", s.Names()[1], s.Dec()[1])
	}
}

func TestReadVOTableErrors(t *testing.T) {
	rep := func(pairs ...string) string {
		base := []string{"UNIT", "Jy", "FLUX", "1", "DEC2", "-40"}
		return strings.NewReplacer(append(pairs, base...)...).Replace(miniVOT)
	}
	opt := miniOpts()
	cases := []struct {
		name, doc string
		opt       func(o *VOTableOptions)
		msg       string
	}{
		{"flux unit", rep("UNIT", "Jy/beam"), nil, "Jy or mJy"},
		{"bad number", rep("FLUX", "abc"), nil, "invalid syntax"},
		{"NaN flux (flat)", rep("FLUX", "NaN"), nil, "not a finite number"},
		{"empty flux (flat)", rep("FLUX", ""), nil, "not a finite number"},
		{"latitude", rep("DEC2", "-95"), nil, "latitude"},
		{"missing column", rep(), func(o *VOTableOptions) { o.FluxColumns = []string{"Fint"} }, "no match"},
		{"ambiguous column", rep(), func(o *VOTableOptions) { o.LonColumn = "d" }, "more than one match"},
		{"duplicate flux column", rep(), func(o *VOTableOptions) {
			o.FluxColumns, o.FreqArray = []string{"S", "S"}, []float64{1e8, 2e8}
		}, "twice"},
		{"no table", rep(), func(o *VOTableOptions) { o.Table = "GLEAM" }, "no table"},
		{"bad frame", rep(), func(o *VOTableOptions) { o.Frame = "fk4" }, "unsupported frame"},
		{"freq count", rep(), func(o *VOTableOptions) { o.FluxColumns = []string{"S", "ra"} }, "FreqArray"},
		{"malformed XML", strings.Replace(rep(), "</TR>", "</TD>", 1), nil, "malformed XML"},
		{"short row", strings.Replace(rep(), "<TD>B</TD>", "", 1), nil, "3 cells"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := opt
			if c.opt != nil {
				c.opt(&o)
			}
			_, err := ReadVOTable(strings.NewReader(c.doc), "mini.vot", o)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "mini.vot" || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q: want a ParseError for mini.vot mentioning %q", err, c.msg)
			}
		})
	}
}

func TestReadVOTableBinaryRefused(t *testing.T) {
	_, err := ReadGLEAMFile("testdata/gleam_small_binary.vot", Flat)
	if err == nil || !strings.Contains(err.Error(), "binary-serialized") || !strings.Contains(err.Error(), "gleam_small_binary.vot") {
		t.Errorf("binary table: %v", err)
	}
}
