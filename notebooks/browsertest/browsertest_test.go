package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTargets: each move differs from the value before it and stays in range.
func TestTargets(t *testing.T) {
	for _, c := range []struct {
		w    widget
		want []string
	}{
		{widget{Kind: "range", Value: "350", Min: 8, Max: 512}, []string{"134", "386"}},
		{widget{Kind: "range", Value: "6", Min: 3, Max: 8}, []string{"4", "7"}},
		{widget{Kind: "range", Value: "4", Min: 3, Max: 8}, []string{"5", "7"}}, // a quarter is the current value
		{widget{Kind: "range", Value: "1", Min: 1, Max: 2}, []string{"2", "1"}},
		{widget{Kind: "range", Value: "5", Min: 5, Max: 5}, nil}, // cannot move
		{widget{Kind: "select", Value: "b", Options: []string{"a", "b", "c", "d"}}, []string{"a", "c"}},
	} {
		got := c.w.targets()
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: targets %v, want %v", c.w, got, c.want)
		}
		prev := c.w.Value
		for _, v := range got {
			if v == prev {
				t.Errorf("%+v: target %s repeats the value before it", c.w, v)
			}
			prev = v
		}
	}
}

// TestShowsValue: a value is found as a number of its own only.
func TestShowsValue(t *testing.T) {
	title := "memory model: 134 antennas, 10^7 sources, fp32, 24 GB"
	for v, want := range map[string]bool{"134": true, "7": true, "24": true, "32": false, "13": false, "4": false, "0": false, "350": false} {
		if got := showsValue(title, v); got != want {
			t.Errorf("showsValue(%q, %q) = %v, want %v", title, v, got, want)
		}
	}
}

// TestMismatch: a figure one change behind (the bug of issue 23) is caught
// by its data attribute, a figure whose title disagrees by its title, and
// one whose labels alone changed by its drawing.
func TestMismatch(t *testing.T) {
	want := map[string]string{"nant": "134", "lognsrc": "6", "budgetgb": "24"}
	good := &figure{Data: map[string]string{"figure": "x", "nant": "134", "lognsrc": "6", "budgetgb": "24"},
		Title: "memory model: 134 antennas, 10^6 sources, fp32, 24 GB"}
	if m := good.mismatch(want, ""); m != "" {
		t.Errorf("matching figure: %s", m)
	}
	behind := &figure{Data: map[string]string{"nant": "350", "lognsrc": "6", "budgetgb": "24"},
		Title: "memory model: 350 antennas, 10^6 sources, fp32, 24 GB"}
	if m := behind.mismatch(want, ""); !strings.Contains(m, `data-nant="350"`) {
		t.Errorf("figure one change behind: mismatch %q", m)
	}
	title := &figure{Data: good.Data, Title: "memory model: 350 antennas, 10^6 sources, fp32, 24 GB"}
	if m := title.mismatch(want, ""); !strings.Contains(m, "no 134 in the title") {
		t.Errorf("figure with a stale title: mismatch %q", m)
	}
	// Labels redrawn over the old picture: the drawing did not change.
	relabelled := &figure{Data: good.Data, Title: good.Title, Drawing: "812:ab12"}
	if m := relabelled.mismatch(want, "812:ab12"); !strings.Contains(m, "the same drawing as before the move") {
		t.Errorf("figure whose drawing did not change: mismatch %q", m)
	}
	if m := relabelled.mismatch(want, "812:ffff"); m != "" {
		t.Errorf("redrawn figure: mismatch %q", m)
	}
	var none *figure
	if m := none.mismatch(want, ""); m == "" {
		t.Error("no figure: no mismatch")
	}
}

// TestJudge: errors, panics, unexecuted cells and a notebook without
// figures are all reported.
func TestJudge(t *testing.T) {
	cells := []cellOutputs{
		{Index: 0, Prompt: json.RawMessage(`1`), Source: "ok", Outputs: []output{{Type: "display_data", Figure: true}}},
		{Index: 1, Prompt: json.RawMessage(`2`), Source: "bad", Outputs: []output{{Type: "error", Ename: "ERROR", Evalue: "undefined: x"}}},
		{Index: 2, Prompt: json.RawMessage(`3`), Source: "p", Outputs: []output{{Type: "stream", Text: "panic: boom\n\ngoroutine 1 [running]:"}}},
		{Index: 3, Prompt: json.RawMessage(`null`), Source: "never"},
		{Index: 4, Prompt: json.RawMessage(`"*"`), Source: "stuck"},
	}
	problems, figures := judge(cells)
	if figures != 1 || len(problems) != 4 {
		t.Fatalf("judge: %d figures, problems %q; want 1 figure and 4 problems", figures, problems)
	}
	for k, want := range []string{"cell 1 (bad) failed", "cell 2 (p): Go panic", "cell 3 (never) was not executed", "cell 4 (stuck) was not executed"} {
		if !strings.HasPrefix(problems[k], want) {
			t.Errorf("problem %d: %q, want it to start with %q", k, problems[k], want)
		}
	}
	if p, _ := judge(cells[:1]); len(p) != 0 {
		t.Errorf("a clean notebook: problems %q", p)
	}
	if p, _ := judge([]cellOutputs{{Index: 0, Prompt: json.RawMessage(`1`)}}); len(p) != 1 || !strings.Contains(p[0], "no figure") {
		t.Errorf("no figure: problems %q", p)
	}
}

// TestWithoutEnv: GOMATVIS_HEADLESS (which turns the widgets off) is
// removed from the server's environment.
func TestWithoutEnv(t *testing.T) {
	got := withoutEnv([]string{"A=1", "GOMATVIS_HEADLESS=1", "GOMATVIS_HEADLESSX=2", "B="}, "GOMATVIS_HEADLESS")
	if want := []string{"A=1", "GOMATVIS_HEADLESSX=2", "B="}; !slices.Equal(got, want) {
		t.Errorf("withoutEnv: %q, want %q", got, want)
	}
}
