package obsparam

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLayout(t *testing.T) {
	in := "name beamid NUMBER u n e extra\n" +
		"\n" +
		"# a comment line\n" +
		"ANT1 2 7 0.5 -1e1 3.25 x   # trailing comment\r\n" +
		"ANT2 0 8 0 0 0 y\n"
	ants, warns, err := ParseLayout("lay.csv", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Antenna{
		{Name: "ANT1", Number: 7, BeamID: 2, ENU: [3]float64{3.25, -10, 0.5}},
		{Name: "ANT2", Number: 8, BeamID: 0},
	}
	if !reflect.DeepEqual(ants, want) {
		t.Errorf("got %+v\nwant %+v", ants, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"extra"`) {
		t.Errorf("warnings %q: want one about the extra column", warns)
	}
}

// TestLayoutBOM: a UTF-8 byte-order mark before the header is dropped, as
// Python's utf-8-sig does (the header "lacked column Name" while printing
// it), with CRLF line ends too.
func TestLayoutBOM(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		in := "\ufeffName Number BeamID E N U" + eol + "A 3 0 1 2 3" + eol
		ants, _, err := ParseLayout("lay.csv", []byte(in))
		if err != nil {
			t.Fatalf("%q: %v", eol, err)
		}
		if len(ants) != 1 || ants[0].Name != "A" || ants[0].Number != 3 {
			t.Fatalf("%q: %+v", eol, ants)
		}
	}
}

func TestParseLayoutErrors(t *testing.T) {
	const hdr = "Name Number BeamID E N U\n"
	cases := []struct {
		name, in string
		frags    []string
	}{
		{"empty", "", []string{"lay.csv:1", "first line must be the header"}},
		{"blank header", "\nA 0 0 0 0 0\n", []string{"lay.csv:1", "first line must be the header"}},
		{"missing columns", "Name Number E N U\nA 0 0 0 0\n", []string{"lay.csv:1", "lacks column(s) beamid"}},
		{"missing two", "Name Number BeamID E\nA 0 0 0\n", []string{"lacks column(s) n, u"}},
		{"commas", "Name,Number,BeamID,E,N,U\nA,0,0,0,0,0\n", []string{"commas", "whitespace-separated"}},
		{"duplicate column", "Name Number BeamID E N U e\nA 0 0 0 0 0 0\n", []string{"appears twice"}},
		{"no rows", hdr, []string{"no antennas"}},
		{"short row", hdr + "A 0 0 0 0\n", []string{"lay.csv:2", "5 fields", "6 columns"}},
		{"long row", hdr + "A 0 0 0 0 0 9\n", []string{"lay.csv:2", "7 fields"}},
		{"number not int", hdr + "A x 0 0 0 0\n", []string{"lay.csv:2", "column 2 (number)", `"x"`, "whole number"}},
		{"number float", hdr + "A 1.5 0 0 0 0\n", []string{"column 2 (number)", `"1.5"`}},
		{"negative number", hdr + "A -1 0 0 0 0\n", []string{"column 2 (number)", `"-1"`}},
		{"beamid not int", hdr + "A 0 b 0 0 0\n", []string{"column 3 (beamid)", `"b"`}},
		{"NaN", hdr + "A 0 0 0 NaN 0\n", []string{"lay.csv:2", "column 5 (n)", `"NaN"`, "finite"}},
		{"inf", hdr + "A 0 0 inf 0 0\n", []string{"column 4 (e)", "finite"}},
		{"not a number", hdr + "A 0 0 0 0 up\n", []string{"column 6 (u)", `"up"`}},
		{"duplicate number", hdr + "A 0 0 0 0 0\n\nB 0 0 1 0 0\n", []string{"lay.csv:4", "Number = 0", "duplicate antenna number (also on line 2)"}},
		{"duplicate name", hdr + "A 0 0 0 0 0\nA 1 0 1 0 0\n", []string{"lay.csv:3", `Name = "A"`, "duplicate antenna name (also on line 2)"}},
		{"invalid UTF-8 name", hdr + "A 0 0 0 0 0\nH\xe9 1 0 1 0 0\n", []string{"lay.csv:3", `"H\xe9 1 0 1 0 0"`, "0xE9 at byte 2", "not UTF-8", "save the file as UTF-8"}},
		{"invalid UTF-8 header", "Name Number\xff BeamID E N U\n", []string{"lay.csv:1", "0xFF at byte 12"}},
		{"BOM not at the start", "\ufeff\ufeff" + hdr + "A 0 0 0 0 0\n", []string{"lay.csv:1", "lacks column(s) name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseLayout("lay.csv", []byte(tc.in))
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestLayoutLongNameWarns(t *testing.T) {
	_, warns, err := ParseLayout("lay.csv", []byte("Name Number BeamID E N U\nAVERYLONGNAME 0 0 0 0 0\n"))
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "10 characters") {
		t.Fatalf("err %v warnings %q", err, warns)
	}
}

// TestLayoutInRead checks that layout errors reach Read's caller and that a
// BeamID missing from beam_paths is named.
func TestLayoutInRead(t *testing.T) {
	_, err := readCase(t, files{layout: "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 1 5 1 0 0\n"})
	wantErr(t, err, "layout.csv", "BeamID = 5", "antenna 1 (A1) uses beam id 5", "not in beam_paths", "[0 1]")
	_, err = readCase(t, files{layout: "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 0 1 1 0 0\n"})
	wantErr(t, err, "layout.csv:3", "duplicate antenna number")
	_, err = readCase(t, files{layout: "-"})
	wantErr(t, err, "telescope.array_layout", "file not found")
}
