package simspec

import (
	"math"
	"strings"
	"testing"
)

// TestStokesRows: stokes_q/u/v_jy rows are optional; given, each has one
// finite value per source and frequency, and they cannot come with a
// catalog. Valid rows pass.
func TestStokesRows(t *testing.T) {
	rows := func(s *Spec) [][]float64 {
		out := make([][]float64, s.NSrc())
		for i := range out {
			out[i] = make([]float64, len(s.FreqsHz))
		}
		return out
	}
	cases := []struct {
		name string
		edit func(s *Spec)
		want string // "" for valid
	}{
		{"valid Q and V", func(s *Spec) { s.Sources.StokesQJy, s.Sources.StokesVJy = TableRows(rows(s)), TableRows(rows(s)) }, ""},
		{"U rows short", func(s *Spec) { s.Sources.StokesUJy = TableRows(rows(s)[1:]) }, "sources.stokes_u_jy"},
		{"V values short", func(s *Spec) { r := rows(s); r[0] = nil; s.Sources.StokesVJy = TableRows(r) }, "sources.stokes_v_jy[0]"},
		{"Q NaN", func(s *Spec) { r := rows(s); r[1][0] = math.NaN(); s.Sources.StokesQJy = TableRows(r) }, "sources.stokes_q_jy[1][0] = NaN: must be finite"},
		{"with a catalog", func(s *Spec) {
			s.Sources = Sources{Catalog: &Catalog{Path: "sky.txt"}, StokesQJy: TableRows([][]float64{{1}})}
		}, "sources.catalog"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Decode(strings.NewReader(valid), ".")
			if err != nil {
				t.Fatal(err)
			}
			c.edit(s)
			err = s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("valid rows refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

// TestStokesRowsJSON: the keys decode (the unknown-key check knows them).
func TestStokesRowsJSON(t *testing.T) {
	doc := strings.Replace(valid, `"flux_jy": [[1, 1], [2, 2]]`, `"flux_jy": [[1, 1], [2, 2]], "stokes_u_jy": [[0.5, 0.4], [0, 0]]`, 1)
	if doc == valid {
		t.Fatal("the valid spec's sources changed: update this test")
	}
	s, err := Decode(strings.NewReader(doc), ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sources.StokesUJy.Rows(len(s.FreqsHz)); len(got) != 2 || got[0][1] != 0.4 {
		t.Errorf("stokes_u_jy decoded as %v", got)
	}
}
