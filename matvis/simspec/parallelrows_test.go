package simspec

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestParallelTableSplitsBetweenRows: a table (rows of numbers) is cut
// only at the commas between rows, so that every core reads whole rows
// and the parallel path succeeds; its values are strconv.ParseFloat's
// of each number, in order, the twin.
func TestParallelTableSplitsBetweenRows(t *testing.T) {
	rng := sharedtest.RNG(t, 21)
	for trial := range 20 {
		nrow, ncol := 10+rng.IntN(300), 1+rng.IntN(5)
		var text bytes.Buffer
		var want []float64
		for r := range nrow {
			if r > 0 {
				text.WriteString(", ")
			}
			text.WriteByte('[')
			for c := range ncol {
				if c > 0 {
					text.WriteString(",")
				}
				s := strconv.FormatFloat((rng.Float64()-0.5)*1e4, 'g', -1, 64)
				v, _ := strconv.ParseFloat(s, 64)
				text.WriteString(s)
				want = append(want, v)
			}
			text.WriteByte(']')
		}
		workers := 2 + rng.IntN(7)
		a := splitArray{text: text.Bytes(), nested: true, pow10: fastfloat.PowersOfTen()}
		starts := a.pieces(workers)
		for _, s := range starts[1 : len(starts)-1] {
			if a.text[s] != ',' || !bytes.HasSuffix(bytes.TrimRight(a.text[:s], " "), []byte("]")) {
				t.Fatalf("trial %d: a piece starts at byte %d, %q, not at a comma after a row", trial, s, a.text[max(0, s-5):s+1])
			}
		}
		got, rowLen, ok := a.readParallel(workers)
		if !ok || rowLen != ncol || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d (%d rows of %d, %d workers): ok %v, rows of %d, values equal %v", trial, nrow, ncol, workers, ok, rowLen, fmt.Sprint(got) == fmt.Sprint(want))
		}
	}
}

// TestTableEndWrittenLoosely: a table's end is found by its "]]"; a table
// closed otherwise ("] ]", "]\n]") before a later "]]" in the document
// (antpairs here) is still read right on several cores (whose readers
// refuse the overshooting text and leave it to the sequential reader),
// the same Spec as on one core, for every spacing.
func TestTableEndWrittenLoosely(t *testing.T) {
	for _, closing := range []string{"]]", "] ]", "]\n]", "],]"} {
		doc := []byte(`{"sources": {"ra_rad": [0.1, 0.2], "dec_rad": [-0.3, -0.4], "flux_jy": [[1.5, 2], [3, 4.25` + closing + `}, "antpairs": [[0, 1], [1, 0]]}`)
		var one, many Spec
		errOne, errMany := parseSpecOn(doc, &one, 1, 0, unguarded), parseSpecOn(doc, &many, 3, 0, unguarded)
		if fmt.Sprint(errOne) != fmt.Sprint(errMany) {
			t.Fatalf("%q: on one core %v, on 3 cores %v", closing, errOne, errMany)
		}
		if closing == "],]" {
			if errOne == nil {
				t.Errorf("%q: a trailing comma was accepted", closing)
			}
			continue
		}
		if errOne != nil {
			t.Fatalf("%q: %v", closing, errOne)
		}
		sameSpec(t, doc, &one, &many)
		if got := fmt.Sprint(many.Sources.FluxJy.Values(), many.AntPairs); got != "[1.5 2 3 4.25] [[0 1] [1 0]]" {
			t.Errorf("%q: flux and antpairs read as %s", closing, got)
		}
	}
}

// TestCompactRows: a table's rows count as compact (its end searched for
// as "]]") only when its first two rows are separated without a line
// break; the text is what follows the table's '['.
func TestCompactRows(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"[1, 2], [3, 4]]", true},
		{"[1,2],[3,4]]", true},
		{"[1], \t[2]]", true},
		{"\n  [\n   1\n  ],\n  [\n   2\n  ]\n ]", false},
		{"[1],\n[2]]", false},
		{"[1]]", false},
		{"[1] , [2]]", false},
		{"[1],", false},
		{"", false},
	} {
		if got := compactRows([]byte(c.text)); got != c.want {
			t.Errorf("compactRows(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
