package uvfits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/uvh5"
)

// TestHeaderStringsRefused: a value FITS cannot hold is refused naming
// the keyword, the value and the character, before anything is written
// (it was written as H??RA, with control characters astropy cannot open,
// or cut at 68 characters).
func TestHeaderStringsRefused(t *testing.T) {
	long := strings.Repeat("x", 69)
	cases := []struct {
		name string
		set  func(h *uvh5.Header, pc *PhaseCenter)
		want []string
	}{
		{"non-ASCII telescope", func(h *uvh5.Header, _ *PhaseCenter) { h.TelescopeName = "HÉRA" }, []string{"TELESCOP", `"HÉRA"`, "U+00C9", "byte 2", "ASCII 32–126", ".uvh5"}},
		{"newline in instrument", func(h *uvh5.Header, _ *PhaseCenter) { h.Instrument = "HE\nRA" }, []string{"INSTRUME", "U+000A", "byte 3"}},
		{"invalid UTF-8 object", func(h *uvh5.Header, pc *PhaseCenter) { pc.Name = "ab\xff" }, []string{"OBJECT", "0xFF", "not UTF-8"}},
		{"long object", func(h *uvh5.Header, pc *PhaseCenter) { pc.Name = long }, []string{"OBJECT", "69 characters", "CONTINUE", "shorten"}},
		{"35 quotes", func(h *uvh5.Header, _ *PhaseCenter) { h.TelescopeName = strings.Repeat("'", 35) }, []string{"TELESCOP", "70 characters", "each ' counted twice"}},
		{"long telescope", func(h *uvh5.Header, _ *PhaseCenter) { h.TelescopeName = long }, []string{"TELESCOP", "69 characters"}},
		{"quote in a continued value", func(h *uvh5.Header, _ *PhaseCenter) { h.BltOrder = strings.Repeat("it's ", 20) }, []string{"BLTORDER", "cannot hold a '", "astropy"}},
		{"quote before slash", func(h *uvh5.Header, _ *PhaseCenter) { h.Instrument = "y' /x" }, []string{"INSTRUME", "byte 2", "comment"}},
		{"tab in antenna name", func(h *uvh5.Header, _ *PhaseCenter) { h.AntennaNames[1] = "A\tB" }, []string{"ANNAME", "antenna 1's name", "U+0009"}},
		{"non-ASCII antenna name", func(h *uvh5.Header, _ *PhaseCenter) { h.AntennaNames[0] = "Hé" }, []string{"ANNAME", "antenna 0's name", "U+00E9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.uvfits")
			h := tinyHeader()
			pc := PhaseCenter{Name: "zenith", RADeg: 10, DecDeg: -30}
			c.set(h, &pc)
			w, err := Create(path, h, Options{PhaseCenter: pc})
			if err == nil {
				w.Abort()
				t.Fatal("written")
			}
			var se *StringError
			if !errors.As(err, &se) {
				t.Fatalf("%v: not a *StringError", err)
			}
			for _, s := range append(c.want, path) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v\nlacks %q", err, s)
				}
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 0 {
				t.Errorf("left %v behind", ents)
			}
		})
	}
}

// decodeLong is the long-string convention read back by its rules, the
// slow twin of stringCards: the first card's quoted text, then each
// CONTINUE card's while the text so far ends in '&', with ” read as '.
func decodeLong(t *testing.T, cards []card) (string, int) {
	t.Helper()
	var out string
	for i, c := range cards {
		s := string(c)
		if len(s) != 80 {
			t.Fatalf("card %d is %d characters", i, len(s))
		}
		if i > 0 && s[:10] != "CONTINUE  " {
			t.Fatalf("card %d %q: want CONTINUE", i, s)
		}
		v := strings.TrimRight(s[10:], " ")
		if len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
			t.Fatalf("card %d %q: not one quoted value", i, s)
		}
		inner := v[1 : len(v)-1]
		if strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			t.Fatalf("card %d %q: a lone quote", i, s)
		}
		text := strings.ReplaceAll(inner, "''", "'")
		// One card is a plain value: its '&' is its own.
		more := len(cards) > 1 && strings.HasSuffix(text, "&")
		if more {
			text = text[:len(text)-1]
		}
		out += text
		if !more {
			return strings.TrimRight(out, " "), i + 1
		}
	}
	t.Fatalf("the last card %q ends in '&'", cards[len(cards)-1])
	return "", 0
}

// randomValues are n printable strings of up to 300 characters, a third
// of them quotes and many blanks, '/' and '&'.
func randomValues(t *testing.T, n int) []string {
	rng := sharedtest.RNG(t, 1)
	out := make([]string, n)
	for k := range out {
		b := make([]byte, rng.IntN(300))
		quotes := rng.IntN(2) == 0 // half without: those may be continued
		for i := range b {
			switch rng.IntN(12) {
			case 0, 1:
				b[i] = 'q'
				if quotes {
					b[i] = '\''
				}
			case 2:
				b[i] = " &/"[rng.IntN(3)]
			default:
				b[i] = byte(32 + rng.IntN(95))
			}
		}
		out[k] = string(b)
	}
	return out
}

// quoteSlash is a quote that blanks and a '/' follow.
var quoteSlash = regexp.MustCompile(`' */`)

// wantRefused is why stringCards must refuse v (long: CONTINUE allowed),
// by the rules' own words: too long for a reserved keyword, a quote in a
// continued value, or a quote before blanks and '/'.
func wantRefused(v string, long bool) bool {
	n := len(strings.ReplaceAll(v, "'", "''"))
	return n > 68 && (!long || strings.Contains(v, "'")) || quoteSlash.MatchString(v)
}

// acceptedValues are the random values stringCards writes, each checked
// against decodeLong; a refusal must be one wantRefused expects.
func acceptedValues(t *testing.T, n int) []string {
	var out []string
	for _, v := range randomValues(t, n) {
		for _, long := range []bool{false, true} {
			cards, err := stringCards("LONGKEY", "a test", v, long)
			if err != nil || wantRefused(v, long) {
				if err == nil || !wantRefused(v, long) {
					t.Fatalf("%q (continuation allowed %v): refused %v, want refused %v", v, long, err, wantRefused(v, long))
				}
				continue
			}
			if !strings.HasPrefix(string(cards[0]), "LONGKEY = '") {
				t.Fatalf("first card %q", cards[0])
			}
			got, k := decodeLong(t, cards)
			if got != strings.TrimRight(v, " ") || k != len(cards) { // FITS drops trailing blanks
				t.Fatalf("%q read back as %q (%d of %d cards)", v, got, k, len(cards))
			}
			if long {
				out = append(out, v)
			}
		}
	}
	return out
}

// TestLongStringCards: random printable strings heavy in quotes, '/' and
// '&', each written by stringCards and read back by decodeLong whole, or
// refused for the reasons wantRefused gives.
func TestLongStringCards(t *testing.T) {
	if got := acceptedValues(t, 3000); len(got) < 500 {
		t.Errorf("only %d of 3000 accepted: the test checks too little", len(got))
	}
}

// TestHistoryEscapes: characters outside ASCII 32–126 are written as Go
// escapes (they were '?'), so that the text stays whole and readable, and
// two last cards say so; a plain history gets no such note.
func TestHistoryEscapes(t *testing.T) {
	cards := history("HÉRA\tsky\xff.txt")
	want := `HISTORY H\u00c9RA\tsky\xff.txt`
	if len(cards) != 3 {
		t.Fatalf("%d cards: %q", len(cards), cards)
	}
	if got := strings.TrimRight(string(cards[0]), " "); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.Contains(string(cards[1]), "are Go escapes") || !strings.Contains(string(cards[2]), `\u00c9 for U+00C9`) {
		t.Errorf("no note: %q", cards[1:])
	}
	if !strings.HasSuffix(strings.TrimRight(string(cards[2]), " "), "FITS headers are ASCII.") {
		t.Errorf("the note is cut: %q", cards[2]) // padCard cuts at 80
	}
	if plain := history("made by gomatvis\nsecond line"); len(plain) != 2 {
		t.Errorf("plain history: %q", plain)
	}
}

// TestStringsAstropy: a file whose every string is at the edge (68
// quotes' worth in TELESCOP, a 300-character BLTORDER on CONTINUE cards,
// history with UTF-8 and tabs) opens in astropy with no warning and
// output_verify="exception", and gives each value back whole.
func TestStringsAstropy(t *testing.T) {
	py := sharedtest.Python(t, "astropy.io.fits", "python3-astropy")
	path := filepath.Join(t.TempDir(), "x.uvfits")
	h := tinyHeader()
	h.TelescopeName = strings.Repeat("'", 34)
	h.Instrument = "it's 'quoted'"
	h.BltOrder = strings.Repeat("time, baseline/and more & ", 11)
	h.History = "made from HÉRA/sky.txt\twith a tab\nsecond line"
	h.AntennaNames = []string{"A'0", "a much longer antenna name than eight"}
	pc := PhaseCenter{Name: strings.Repeat("o", 68), RADeg: 10, DecDeg: -30}
	kws := []Keyword{{Name: "NOTE", Value: strings.Repeat("n/&", 40)}, {Name: "AMP", Value: strings.Repeat("R&D ", 30) + "&"}, {Name: "AMP1", Value: "R&D&"}}
	random := acceptedValues(t, 120)
	for i, v := range random {
		kws = append(kws, Keyword{Name: fmt.Sprintf("R%d", i), Value: v})
	}
	w, err := Create(path, h, Options{PhaseCenter: pc, Keywords: kws})
	if err != nil {
		t.Fatal(err)
	}
	vis := make([]complex128, h.Nblts()*h.Nfreqs()*h.Npols())
	if err := w.WriteBlock(0, vis, make([]bool, len(vis)), make([]float32, len(vis))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, json, warnings
warnings.simplefilter("error")
from astropy.io import fits
with fits.open(sys.argv[1], output_verify="exception") as f:
    f.verify("exception")
    h = f[0].header
    print(json.dumps({"TELESCOP": h["TELESCOP"], "INSTRUME": h["INSTRUME"], "BLTORDER": h["BLTORDER"],
        "NOTE": h["NOTE"], "AMP": h["AMP"], "AMP1": h["AMP1"], "OBJECT": h["OBJECT"], "HISTORY": [str(x) for x in h["HISTORY"]],
        "ANNAME": [str(x) for x in f[1].data["ANNAME"]]}))
    print(json.dumps([h["R%d" % i] for i in range(int(sys.argv[2]))]))
`
	var stderr bytes.Buffer
	cmd := exec.Command(py, "-c", script, path, strconv.Itoa(len(random)))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("astropy: %v\n%s", err, stderr.String())
	}
	lines := bytes.SplitN(out, []byte("\n"), 2)
	var got []string
	if err := json.Unmarshal(lines[1], &got); err != nil {
		t.Fatalf("%v: %s", err, lines[1])
	}
	for i := range random {
		if got[i] != strings.TrimRight(random[i], " ") {
			t.Errorf("R%d: wrote %q, astropy read %q", i, random[i], got[i])
		}
	}
	for _, want := range []string{
		`"TELESCOP": "` + h.TelescopeName + `"`,
		`"INSTRUME": "it's 'quoted'"`,
		`"BLTORDER": "` + strings.TrimRight(h.BltOrder, " ") + `"`,
		`"NOTE": "` + strings.Repeat("n/&", 40) + `"`,
		`"AMP": "` + strings.Repeat("R&D ", 30) + `&"`,
		`"AMP1": "R&D&"`,
		`"OBJECT": "` + pc.Name + `"`,
		`"HISTORY": ["made from H\\u00c9RA/sky.txt\\twith a tab", "second line", "gomatvis: characters outside ASCII 32-126 above are Go escapes"`,
		`"ANNAME": ["A'0", "a much longer antenna name than eight"]`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("astropy read\n%s\nlacks %s", out, want)
		}
	}
}

// FuzzStringCards: whatever the value, stringCards either refuses it with
// a *StringError whose reason the rules predict (a character outside
// ASCII 32–126, or wantRefused), or writes cards that read back whole.
func FuzzStringCards(f *testing.F) {
	for _, s := range []string{"HERA", "it's", "y'/x", strings.Repeat("ab&", 40), strings.Repeat("'", 34), "HÉRA", "a\tb", "R&D&"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, long bool) {
		cards, err := stringCards("FUZZKEY", "a fuzzed value", v, long)
		printable := !strings.ContainsFunc(v, func(r rune) bool { return r < 32 || r > 126 })
		if err != nil {
			var se *StringError
			if !errors.As(err, &se) || printable && !wantRefused(v, long) {
				t.Fatalf("%q (long %v): %v", v, long, err)
			}
			return
		}
		if !printable || wantRefused(v, long) {
			t.Fatalf("%q (long %v): written, want refused", v, long)
		}
		if got, n := decodeLong(t, cards); got != strings.TrimRight(v, " ") || n != len(cards) {
			t.Fatalf("%q read back as %q", v, got)
		}
	})
}
