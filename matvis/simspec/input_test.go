package simspec

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestDecodeDocumentErrors covers the messages the tester found obscure or
// missing: a non-object document, a byte-order mark, duplicate keys and
// keys that differ from the field names only in case (encoding/json
// matches those silently).
func TestDecodeDocumentErrors(t *testing.T) {
	cases := []refusal{
		{"array", `[1,2,3]`, []string{"must be a JSON object, got an array"}},
		{"string", `"spec"`, []string{"must be a JSON object, got a string"}},
		{"number", ` 42`, []string{"must be a JSON object, got a number"}},
		{"null", `null`, []string{"must be a JSON object, got null"}},
		{"empty", ``, []string{"empty"}},
		{"UTF-16", "\xff\xfe{\x00}\x00", []string{"UTF-16 byte-order mark", "UTF-8"}},
		{"duplicate top-level key", strings.Replace(valid, `"polarized": false`, `"polarized": false, "precision": 1`, 1),
			[]string{`duplicate key "precision" at line 6`, "first at line 6"}},
		{"duplicate nested key", strings.Replace(valid, `"lat_deg": -30.7`, `"lat_deg": -30.7, "lat_deg": 10`, 1),
			[]string{`duplicate key "lat_deg"`, "telescope", "line 2"}},
		{"duplicate key in a beam", strings.Replace(valid, `"sigma_rad": 0.5`, `"sigma_rad": 0.5, "sigma_rad": 0.1`, 1),
			[]string{`duplicate key "sigma_rad"`, "beams[0]", "line 5"}},
		{"upper-case key", strings.Replace(valid, `"precision": 2`, `"PRECISION": 2`, 1),
			[]string{`key "PRECISION" at line 6`, `"precision"`, "case"}},
		{"mixed-case nested key", strings.Replace(valid, `"ra_rad"`, `"Ra_Rad"`, 1),
			[]string{`key "Ra_Rad" at line 4`, "sources", `"ra_rad"`}},
		{"unknown key with its line", strings.Replace(valid, `"height_m"`, `"hieght_m"`, 1),
			[]string{`unknown key "hieght_m" at line 2`, "telescope"}},
	}
	checkRefusals(t, cases)
}

// TestDecodeAcceptsBOM: a UTF-8 byte-order mark (Windows editors write
// one) used to be refused as "invalid character 'ï'".
func TestDecodeAcceptsBOM(t *testing.T) {
	if _, err := Decode(strings.NewReader("\uFEFF"+valid), "."); err != nil {
		t.Fatal(err)
	}
}

// TestPhysicalRanges: unit slips and absurd values used to pass (MHz, RA
// in degrees, an antenna at 1e308 m, a frequency of 1.7e308 Hz, both of
// which give NaN visibilities) or fail with a message in the wrong units
// (an MJD "must lie between 1960 and 2500").
func TestPhysicalRanges(t *testing.T) {
	src := func(m map[string]any) map[string]any { return m["sources"].(map[string]any) }
	cases := []struct {
		name string
		edit func(m map[string]any)
		want []string
	}{
		{"MHz", func(m map[string]any) { m["freqs_hz"] = []float64{100, 110} }, []string{"freqs_hz", "look like MHz", "100 Hz", "wants Hz"}},
		{"huge frequency", func(m map[string]any) { m["freqs_hz"] = []float64{1e8, 1.7e308} }, []string{"freqs_hz[1] = 1.7e+308", "1e+12"}},
		{"RA in degrees", func(m map[string]any) { src(m)["ra_rad"] = []float64{0.1, 45} }, []string{"sources.ra_rad[1] = 45", "looks like degrees"}},
		{"dec in degrees", func(m map[string]any) { src(m)["dec_rad"] = []float64{-30, 0} }, []string{"sources.dec_rad[0] = -30", "looks like degrees"}},
		{"MJD", func(m map[string]any) { m["times_jd"] = []float64{59845.3} }, []string{"times_jd[0] = 59845.3", "looks like an MJD", "2459845.8"}},
		{"year", func(m map[string]any) { m["times_jd"] = []float64{2022.7} }, []string{"times_jd[0] = 2022.7", "looks like a year"}},
		{"far future", func(m map[string]any) { m["times_jd"] = []float64{3e6} }, []string{"times_jd[0]", "1960 and 2500"}},
		{"antenna far away", func(m map[string]any) { m["antennas_enu_m"] = [][]float64{{0, 0, 0}, {1e308, 0, 0}} }, []string{"antennas_enu_m[1][0] = 1e+308", "1e+07"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(mutate(t, c.edit)), ".")
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestValidateNonFinite covers values JSON cannot carry but a library
// caller of Validate can.
func TestValidateNonFinite(t *testing.T) {
	cases := []struct {
		name string
		edit func(s *Spec)
		want string
	}{
		{"antenna NaN", func(s *Spec) { s.AntennasENU[0][1] = math.NaN() }, "antennas_enu_m[0][1] = NaN: must be finite"},
		{"freq +Inf", func(s *Spec) { s.FreqsHz[0] = math.Inf(1) }, "freqs_hz[0] = +Inf: must be finite"},
		{"flux -Inf", func(s *Spec) { s.Sources.FluxJy.Values()[1*len(s.FreqsHz)+0] = math.Inf(-1) }, "sources.flux_jy[1][0] = -Inf: must be finite"},
		{"sigma NaN", func(s *Spec) { s.Beams[0].SigmaRad = math.NaN() }, "beams[0].sigma_rad = NaN: must be finite"},
		{"sigma Inf", func(s *Spec) { s.Beams[0].SigmaRad = math.Inf(1) }, "beams[0].sigma_rad = +Inf: must be finite"},
		{"airy diameter Inf", func(s *Spec) { s.Beams[0] = Beam{Type: "airy", DiameterM: math.Inf(1)} }, "beams[0].diameter_m = +Inf: must be finite"},
		{"time NaN", func(s *Spec) { s.TimesJD[0] = math.NaN() }, "times_jd[0] = NaN: must be finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Decode(strings.NewReader(valid), ".")
			if err != nil {
				t.Fatal(err)
			}
			c.edit(s)
			err = s.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestReadFileRefusesNonRegular: `gomatvis simulate /dev/zero` used to
// read 2 GiB of zeros into memory first, and a FIFO blocked forever.
func TestReadFileRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "spec.json", func(p string) error { _, err := ReadFile(p); return err })
}

// TestReadFileRefusesLargeFileBySize: a file over the limit is refused by
// its size, before reading (a sparse file: no disk is used).
func TestReadFileRefusesLargeFileBySize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSpecBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	n := inputtest.Allocated(func() { _, err = ReadFile(p) })
	if !errors.Is(err, inputfile.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v, want inputfile.ErrTooLarge naming the path", err)
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", n)
	}
}
