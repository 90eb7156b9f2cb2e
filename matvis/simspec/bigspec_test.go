package simspec

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// bigSpec writes a valid spec of nsrc sources at one frequency, one
// number per line (so that a line number says which element), flux_jy
// flat or as rows; edit may change the text of element i of a field
// ("ra_rad", "dec_rad", "flux_jy") before it is written.
func bigSpec(rng *rand.Rand, nsrc int, flat bool, edit func(field string, i int, v string) string) string {
	var b strings.Builder
	b.WriteString(`{"name": "big", "telescope": {"lat_deg": -30.7, "lon_deg": 21.4, "height_m": 1051},
 "antennas_enu_m": [[0,0,0],[14,0,0]], "freqs_hz": [1e8], "times_jd": [2459845.0],
 "beams": [{"type": "gaussian", "sigma_rad": 0.5}], "beam_idx": null, "antpairs": null,
 "polarized": false, "precision": 2,
 "sources": {`)
	column := func(field string, draw func() float64, open, close string) {
		fmt.Fprintf(&b, "\n%q: [", field)
		for i := range nsrc {
			if i > 0 {
				b.WriteByte(',')
			}
			v := strconv.FormatFloat(draw(), 'g', -1, 64)
			if edit != nil {
				v = edit(field, i, v)
			}
			b.WriteString("\n" + open + v + close)
		}
		b.WriteString("\n]")
	}
	column("ra_rad", func() float64 { return 6 * rng.Float64() }, "", "")
	b.WriteByte(',')
	column("dec_rad", func() float64 { return 1.5 * (rng.Float64() - 0.5) }, "", "")
	b.WriteByte(',')
	if flat {
		column("flux_jy", func() float64 { return 10 * rng.Float64() }, "", "")
	} else {
		column("flux_jy", func() float64 { return 10 * rng.Float64() }, "[", "]")
	}
	b.WriteString("}}\n")
	return b.String()
}

// TestErrorsDeepInBigArrays: an invalid element far into a 2·10⁵-source
// spec (5·10⁴ with -short) is named by its index (Validate) or by its line and column
// (malformed JSON), counted here from the text written.
func TestErrorsDeepInBigArrays(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	nsrc := 200000
	if testing.Short() {
		nsrc = 50000
	}
	bad := rng.IntN(nsrc)
	at := func(field string, text string) func(string, int, string) string {
		return func(f string, i int, v string) string {
			if f == field && i == bad {
				return text
			}
			return v
		}
	}
	for _, flat := range []bool{false, true} {
		doc := bigSpec(rng, nsrc, flat, at("flux_jy", "-1"))
		want := fmt.Sprintf("sources.flux_jy[%d][0] = -1: Stokes-I flux must not be negative", bad)
		if flat {
			want = fmt.Sprintf("sources.flux_jy[%d] = -1: Stokes-I flux must not be negative", bad)
		}
		checkRefusals(t, []refusal{{fmt.Sprintf("negative flux, flat %v", flat), doc, []string{want}}})
	}
	doc := bigSpec(rng, nsrc, false, at("dec_rad", "45"))
	checkRefusals(t, []refusal{{"dec in degrees", doc, []string{fmt.Sprintf("sources.dec_rad[%d] = 45: |dec| is above π/2", bad)}}})

	// "0.5.5": encoding/json stops at the second '.', the 4th character
	// of the element's line.
	doc = bigSpec(rng, nsrc, false, at("ra_rad", "0.5.5"))
	line := strings.Count(doc[:strings.Index(doc, "\n0.5.5")], "\n") + 2
	checkRefusals(t, []refusal{{"malformed number", doc, []string{fmt.Sprintf("malformed JSON at line %d, column 4", line)}}})

	doc = bigSpec(rng, nsrc, true, at("flux_jy", `"1"`))
	checkRefusals(t, []refusal{{"string in a flat table", doc, []string{`field "sources.flux_jy"`, "string"}}})

	doc = strings.Replace(bigSpec(rng, nsrc, true, nil), `"flux_jy"`, `"flux_Jy"`, 1)
	line = strings.Count(doc[:strings.Index(doc, `"flux_Jy"`)], "\n") + 1
	checkRefusals(t, []refusal{{"key in the wrong case after big arrays", doc,
		[]string{fmt.Sprintf(`key "flux_Jy" at line %d in sources`, line), `want "flux_jy"`}}})
}

// TestFlatTableSize: a flat flux_jy or Stokes table of the wrong length
// is refused naming the field, the length found and the length wanted.
func TestFlatTableSize(t *testing.T) {
	src := func(m map[string]any) map[string]any { return m["sources"].(map[string]any) }
	checkRefusals(t, []refusal{
		{"flat flux short", mutate(t, func(m map[string]any) { src(m)["flux_jy"] = []float64{1, 2, 3} }),
			[]string{`sources.flux_jy = "3 values"`, "2 sources × 2 frequencies = 4 values", "row-major"}},
		{"flat stokes long", mutate(t, func(m map[string]any) { src(m)["stokes_q_jy"] = []float64{1, 2, 3, 4, 5} }),
			[]string{`sources.stokes_q_jy = "5 values"`, "= 4 values"}},
		{"flat flux negative", mutate(t, func(m map[string]any) { src(m)["flux_jy"] = []float64{1, 2, 3, -4} }),
			[]string{"sources.flux_jy[3] = -4"}},
	})
	s, err := Decode(strings.NewReader(mutate(t, func(m map[string]any) { src(m)["flux_jy"] = []float64{1, 2, 3, 4} })), ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sources.FluxJy.Rows(len(s.FreqsHz)); !s.Sources.FluxJy.Flat() || fmt.Sprint(got) != "[[1 2] [3 4]]" {
		t.Errorf("flat flux_jy read as %v (flat %v), want rows [[1 2] [3 4]]", got, s.Sources.FluxJy.Flat())
	}
}

// TestReadFileAllocations: reading a spec allocates its numbers once (8
// bytes each, about 0.4 of the ~20 bytes that spell one) and at most its
// bytes once more (where the file cannot be mapped: TestReadFileMapped),
// not copies of either: at most 1.5 times the file's size. The reader
// before parseSpec allocated 10 times it.
func TestReadFileAllocations(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for _, flat := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "spec.json")
		if err := os.WriteFile(p, []byte(bigSpec(rng, 100000, flat, nil)), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		n := inputtest.Allocated(func() { _, err = ReadFile(p) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("flat %v: %d bytes allocated for a %d-byte spec (%.2f×)", flat, n, fi.Size(), float64(n)/float64(fi.Size()))
		if float64(n) > 1.5*float64(fi.Size()) {
			t.Errorf("flat %v: %d bytes allocated for a %d-byte spec, want at most 1.5×", flat, n, fi.Size())
		}
	}
}
