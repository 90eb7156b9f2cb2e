package main

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestHelp: every command's --help prints its usage line, its flags with
// their accepted values and the boolean convention, and no "(default NaN)".
func TestHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.name, "--help")
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			for _, want := range []string{"usage: gomatvis " + c.name, "--NAME=false"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("help lacks %q:\n%s", want, stderr)
				}
			}
			if strings.Contains(stderr, "NaN") {
				t.Errorf("help shows NaN:\n%s", stderr)
			}
		})
	}
	for _, tc := range []struct{ cmd, want string }{
		{"simulate", "erfa, astropy or precomputed"},
		{"topo", "erfa or astropy"},
		{"profile", "-coord-method method"},
		{"profile", "-roofline"},
	} {
		if _, _, stderr := runCLI(t, tc.cmd, "--help"); !strings.Contains(stderr, tc.want) {
			t.Errorf("%s --help lacks %q", tc.cmd, tc.want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, _ := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "gomatvis ") {
			t.Errorf("%v: exit %d, %q", args, code, stdout)
		}
	}
}

func TestNormalizeCoordMethod(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"erfa", simspec.CoordERFA, true},
		{"ERFA", simspec.CoordERFA, true},
		{"CoordinateRotationERFA", simspec.CoordERFA, true},
		{"astropy", simspec.CoordAstropy, true},
		{"CoordinateRotationAstropy", simspec.CoordAstropy, true},
		{"precomputed", simspec.CoordPrecomputed, true},
		{"Foo", "", false},
	} {
		got, err := normalizeCoordMethod(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("normalizeCoordMethod(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestNormalizeBoolArgs(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("polarized", true, "")
	fs.Bool("scaling", true, "")
	fs.Bool("no-thing", false, "") // a flag really named no-…
	fs.String("o", "", "")
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--polarized", "false", "x"}, []string{"--polarized=false", "x"}},
		{[]string{"-polarized", "true"}, []string{"-polarized=true"}},
		{[]string{"--no-scaling", "-o", "false"}, []string{"--scaling=false", "-o", "false"}},
		{[]string{"--no-thing"}, []string{"--no-thing"}},
		{[]string{"--no-such"}, []string{"--no-such"}},
		{[]string{"--polarized", "maybe"}, []string{"--polarized", "maybe"}},
		{[]string{"--", "--polarized", "false"}, []string{"--", "--polarized", "false"}},
	} {
		if got := normalizeBoolArgs(fs, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("normalizeBoolArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestProfileFlagSpellings: the profile configuration from each spelling
// of the coordinate method and of booleans.
func TestProfileFlagSpellings(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		coords    string
		polarized bool
		ok        bool
	}{
		{nil, "erfa", true, true},
		{[]string{"--coords", "precomputed"}, "precomputed", true, true},
		{[]string{"--coord-method", "CoordinateRotationERFA"}, "erfa", true, true},
		{[]string{"--coord-method", "astropy"}, "", true, false},
		{[]string{"--polarized", "false"}, "erfa", false, true},
		{[]string{"--no-polarized"}, "erfa", false, true},
		{[]string{"--polarized=false"}, "erfa", false, true},
	} {
		fs := flag.NewFlagSet("profile", flag.ContinueOnError)
		config := profileFlags(fs)
		if _, err := parseFlags(fs, append([]string{"--nsrc", "100"}, tc.args...)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		c, err := config()
		if (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok = %v", tc.args, err, tc.ok)
			continue
		}
		if tc.ok && (c.Coords != tc.coords || c.Polarized != tc.polarized) {
			t.Errorf("%v: coords %q polarized %v, want %q %v", tc.args, c.Coords, c.Polarized, tc.coords, tc.polarized)
		}
	}
}

func TestBadFlagExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"profile", "--coords", "foo", "-o", "x"},
		{"topo", "spec.json", "--nonesuch"},
		{"simulate", "spec.json", "--coord-method", "Foo"},
	} {
		if code, _, _ := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
