package simspec

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

const valid = `{
 "name": "t", "telescope": {"lat_deg": -30.7, "lon_deg": 21.4, "height_m": 1051},
 "antennas_enu_m": [[0,0,0],[14,0,0]], "freqs_hz": [1e8, 1.1e8], "times_jd": [2459845.0],
 "sources": {"ra_rad": [0.1, 0.2], "dec_rad": [-0.5, -0.6], "flux_jy": [[1, 1], [2, 2]]},
 "beams": [{"type": "gaussian", "sigma_rad": 0.5}], "beam_idx": null, "antpairs": null,
 "polarized": false, "precision": 2
}`

func mutate(t *testing.T, edit func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(valid), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidSpec(t *testing.T) {
	s, err := Decode(strings.NewReader(valid), ".")
	if err != nil {
		t.Fatal(err)
	}
	if s.NAnt() != 2 || s.NSrc() != 2 {
		t.Fatalf("nant %d nsrc %d", s.NAnt(), s.NSrc())
	}
}

func TestReferenceSpecsAreValid(t *testing.T) {
	for _, r := range sharedtest.References(t) {
		if _, err := ReadFile(filepath.Join(r.Dir, "spec.json")); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}

func TestInvalidSpecs(t *testing.T) {
	src := func(m map[string]any) map[string]any { return m["sources"].(map[string]any) }
	cases := []refusal{
		{"malformed", `{"name": `, []string{"malformed JSON", "line 1"}},
		{"nan literal", strings.Replace(valid, `"height_m": 1051`, `"height_m": NaN`, 1), []string{"NaN", "finite"}},
		{"unknown field", strings.Replace(valid, `"name"`, `"nmae"`, 1), []string{"nmae"}},
		{"wrong type", strings.Replace(valid, `"precision": 2`, `"precision": "two"`, 1), []string{"precision"}},
		{"trailing", valid + "{}", []string{"trailing"}},
		{"shape mismatch dec", mutate(t, func(m map[string]any) { src(m)["dec_rad"] = []float64{0} }), []string{"sources.dec_rad", "1 values"}},
		{"flux row", mutate(t, func(m map[string]any) { src(m)["flux_jy"] = [][]float64{{1}, {2, 2}} }), []string{"sources.flux_jy[0]"}},
		{"negative flux", mutate(t, func(m map[string]any) { src(m)["flux_jy"] = [][]float64{{1, -1}, {2, 2}} }), []string{"sources.flux_jy[0][1] = -1"}},
		{"dec range", mutate(t, func(m map[string]any) { src(m)["dec_rad"] = []float64{2, 0} }), []string{"sources.dec_rad[0] = 2"}},
		{"unknown beam", mutate(t, func(m map[string]any) { m["beams"] = []any{map[string]any{"type": "tophat"}} }), []string{"beams[0].type = \"tophat\"", "unknown beam type"}},
		{"gaussian both", mutate(t, func(m map[string]any) {
			m["beams"] = []any{map[string]any{"type": "gaussian", "sigma_rad": 1, "diameter_m": 14}}
		}), []string{"beams[0]", "exactly one"}},
		{"beam_idx range", mutate(t, func(m map[string]any) { m["beam_idx"] = []int{0, 3} }), []string{"beam_idx[1] = 3", "out of range"}},
		{"beam_idx len", mutate(t, func(m map[string]any) { m["beam_idx"] = []int{0} }), []string{"beam_idx"}},
		{"empty antennas", mutate(t, func(m map[string]any) { m["antennas_enu_m"] = []any{} }), []string{"antennas_enu_m"}},
		{"antenna shape", mutate(t, func(m map[string]any) { m["antennas_enu_m"] = []any{[]float64{0, 0}} }), []string{"antennas_enu_m[0]"}},
		{"empty freqs", mutate(t, func(m map[string]any) { m["freqs_hz"] = []any{} }), []string{"freqs_hz"}},
		{"negative freq", mutate(t, func(m map[string]any) { m["freqs_hz"] = []float64{1e8, -1} }), []string{"freqs_hz[1] = -1"}},
		{"old time", mutate(t, func(m map[string]any) { m["times_jd"] = []float64{2400000} }), []string{"times_jd[0]", "1960"}},
		{"precision", mutate(t, func(m map[string]any) { m["precision"] = 3 }), []string{"precision = 3"}},
		{"antpair", mutate(t, func(m map[string]any) { m["antpairs"] = [][]int{{0, 5}} }), []string{"antpairs[0]"}},
		{"feed", mutate(t, func(m map[string]any) { m["use_feed"] = "z" }), []string{"use_feed"}},
		{"coord", mutate(t, func(m map[string]any) { m["coord_method"] = "magic" }), []string{"coord_method"}},
		{"eop count", mutate(t, func(m map[string]any) { m["eop"] = []any{} }), []string{"eop"}},
		{"spline", mutate(t, func(m map[string]any) { m["beam_spline_opts"] = map[string]any{"order": 2} }), []string{"beam_spline_opts.order = 2"}},
	}
	checkRefusals(t, cases)
}

// refusal is a spec Decode must refuse, with an error that contains each
// of want.
type refusal struct {
	name string
	json string
	want []string // substrings of the error
}

// checkRefusals decodes each case's spec, each a subtest.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(c.json), ".")
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

func FuzzDecode(f *testing.F) {
	f.Add(valid)
	f.Add(`{}`)
	f.Add(`{"beams": [{"type": "airy"}], "beam_idx": [7]}`)
	f.Add(`{"antennas_enu_m": [[1e308, -1e308, 0]], "sources": {"flux_jy": [[]]}}`)
	f.Add("\uFEFF" + valid)
	f.Add(`[1,2,3]`)
	f.Add(`{"telescope": {"lat_deg": 1, "LAT_DEG": 2}, "beams": [{"type": "airy", "type": "uniform"}]}`)
	f.Add(`{"sources": [[[[[[[[{"ra_rad": 1}]]]]]]]], "options": {"matprod": "herk"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Decode(strings.NewReader(s), ".")
		if err == nil {
			// Whatever validated must be internally consistent.
			if spec.NAnt() == 0 || spec.NSrc() == 0 || len(spec.Sources.FluxJy.Values()) != spec.NSrc()*len(spec.FreqsHz) {
				t.Fatalf("invalid spec accepted: %+v", spec)
			}
		}
	})
}
