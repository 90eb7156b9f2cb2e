package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod"
)

// widget is one widget as jsWidgets reports it.
type widget struct {
	Param   string   `json:"param"`
	Kind    string   `json:"kind"` // range, select or button
	Value   string   `json:"value"`
	Min     int      `json:"min"`
	Max     int      `json:"max"`
	Options []string `json:"options"`
}

// figure is a data-figure element as jsFigure reports it.
type figure struct {
	Data  map[string]string `json:"data"`
	Title string            `json:"title"`
	// Drawing is a digest of what the SVGs draw besides text.
	Drawing string `json:"drawing"`
}

// exercise moves every widget of the running cell i, checking after each
// move that the figure shows the values all the widgets now show, and
// finally clicks its stop button and checks that the cell ends with the
// figure at the last values. It writes a screenshot of every state and
// returns how many states it checked.
func exercise(ctx context.Context, page *rod.Page, i int, out string, o options) (int, error) {
	var ws []widget
	if err := evalJSON(page, jsWidgets, &ws, i); err != nil {
		return 0, err
	}
	if len(ws) == 0 {
		return 0, nil // a figure without widgets: nothing to move
	}
	want := map[string]string{}
	var stop *widget
	for k, w := range ws {
		switch {
		case w.Kind == "button" && w.Param == "stop":
			stop = &ws[k]
		case w.Kind == "button":
			return 0, fmt.Errorf("button %q: the driver only knows data-param=\"stop\" buttons", w.Param)
		default:
			want[w.Param] = w.Value
		}
	}
	if stop == nil {
		return 0, fmt.Errorf("widgets %v but no data-param=\"stop\" button: the cell would never end", params(ws))
	}
	step := 0
	shot := func(label string) error {
		path := filepath.Join(out, fmt.Sprintf("cell%02d-%02d-%s.png", i, step, label))
		step++
		return screenshotOutput(page, i, path)
	}
	// The first figure: drawn at the widgets' initial values.
	drawing, err := waitFigure(ctx, page, i, want, "", o.redrawLimit)
	if err != nil {
		return 0, fmt.Errorf("initial figure: %w", err)
	}
	if err := shot("initial"); err != nil {
		return step, err
	}
	for _, w := range ws {
		if w.Kind == "button" {
			continue
		}
		for _, target := range w.targets() {
			var shown *string
			if err := evalJSON(page, jsMove, &shown, i, w.Param, target); err != nil {
				return step, err
			}
			if shown == nil {
				return step, fmt.Errorf("widget %q disappeared, or has no option %q", w.Param, target)
			}
			want[w.Param] = *shown
			t := time.Now()
			// Every move must change the drawing, not only its labels.
			if drawing, err = waitFigure(ctx, page, i, want, drawing, o.redrawLimit); err != nil {
				return step, fmt.Errorf("after moving %q to %s: %w", w.Param, *shown, err)
			}
			fmt.Printf("  cell %d: %s → %s: figure redrawn for %s in %.2f s\n", i, w.Param, *shown, describe(want), time.Since(t).Seconds())
			if err := shot(w.Param + "=" + *shown); err != nil {
				return step, err
			}
		}
	}
	var clicked *string
	if err := evalJSON(page, jsMove, &clicked, i, stop.Param, ""); err != nil {
		return step, err
	}
	if err := waitCellDone(ctx, page, i, o.redrawLimit); err != nil {
		return step, fmt.Errorf("after clicking %q: %w", stop.Param, err)
	}
	if _, err := waitFigure(ctx, page, i, want, "", o.redrawLimit); err != nil {
		return step, fmt.Errorf("the figure left after %q: %w", stop.Param, err)
	}
	fmt.Printf("  cell %d: %s clicked: the cell ended, its figure kept at %s\n", i, stop.Param, describe(want))
	err = shot("stopped")
	return step, err
}

// targets are the values a widget is moved to, in order, each different
// from the one before it: for a range, a quarter of the way from each
// end; for a select, up to two options other than the current one.
func (w widget) targets() []string {
	var out []string
	switch w.Kind {
	case "range":
		prev, err := strconv.Atoi(w.Value)
		if err != nil || w.Max <= w.Min {
			return nil
		}
		for _, t := range []int{w.Min + (w.Max-w.Min)/4, w.Max - (w.Max-w.Min)/4} {
			if t == prev {
				t++
				if t > w.Max {
					t -= 2
				}
			}
			out = append(out, strconv.Itoa(t))
			prev = t
		}
	case "select":
		for _, opt := range w.Options {
			if opt != w.Value && len(out) < 2 {
				out = append(out, opt)
			}
		}
	}
	return out
}

// waitFigure polls cell i's figure until it matches want with a drawing
// other than before (unless before is empty), for at most limit; it
// returns the drawing's digest.
func waitFigure(ctx context.Context, page *rod.Page, i int, want map[string]string, before string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		var f *figure
		if err := evalJSON(page, jsFigure, &f, i); err != nil {
			return "", err
		}
		problem := f.mismatch(want, before)
		if problem == "" {
			return f.Drawing, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("widgets show %s, but after %v %s", describe(want), limit, problem)
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return "", err
		}
	}
}

// mismatch says how f fails to show want (empty if it does not): every
// value must be in the figure's data attributes and in its title, and
// the drawing must differ from before (unless before is empty).
func (f *figure) mismatch(want map[string]string, before string) string {
	if f == nil {
		return "the cell shows no data-figure element"
	}
	var bad []string
	for _, k := range sortedKeys(want) {
		v := want[k]
		if f.Data[k] != v {
			bad = append(bad, fmt.Sprintf("data-%s=%q", k, f.Data[k]))
		} else if !showsValue(f.Title, v) {
			bad = append(bad, fmt.Sprintf("no %s in the title", v))
		}
	}
	if before != "" && f.Drawing == before {
		bad = append(bad, "the same drawing as before the move (only its labels changed)")
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("the figure has %s (title %q)", strings.Join(bad, ", "), f.Title)
}

// showsValue says whether title contains v as a number of its own: not
// inside a longer number or a word ("fp32" does not show 32; "10^7
// sources" shows 7).
func showsValue(title, v string) bool {
	re := regexp.MustCompile(`(^|[^0-9A-Za-z.])` + regexp.QuoteMeta(v) + `([^0-9.]|$)`)
	return re.MatchString(title)
}

// waitCellDone polls until cell i has an execution count.
func waitCellDone(ctx context.Context, page *rod.Page, i int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var st pageState
		if err := evalJSON(page, jsState, &st); err != nil {
			return err
		}
		for _, c := range st.Cells {
			if c.Index == i && c.ran() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cell still runs after %v", limit)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// describe writes want as "a=1 b=2", sorted by name.
func describe(want map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(want) {
		parts = append(parts, k+"="+want[k])
	}
	return strings.Join(parts, " ")
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// params lists the widgets' names.
func params(ws []widget) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Param)
	}
	return out
}
