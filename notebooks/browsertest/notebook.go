package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// cellState is one code cell as jsState reports it.
type cellState struct {
	Index  int             `json:"index"`
	Prompt json.RawMessage `json:"prompt"`
	Figure bool            `json:"figure"`
}

// ran says whether the cell has an execution count.
func (c cellState) ran() bool { return promptRan(c.Prompt) }

// busy says whether the cell is queued or running.
func (c cellState) busy() bool { return string(c.Prompt) == `"*"` }

// promptRan says whether a prompt is an execution count (a number; JSON
// null, which would decode into a float as well, is not).
func promptRan(p json.RawMessage) bool {
	var v any
	if json.Unmarshal(p, &v) != nil {
		return false
	}
	_, ok := v.(float64)
	return ok
}

// pageState is what jsState reports.
type pageState struct {
	Connected bool   `json:"connected"`
	Kernel    string `json:"kernel"`
	Trouble   string `json:"trouble"`
	// CommFailed is GoNB's front-end connection failing to open: its
	// JavaScript waits only 500 ms for the kernel's comm_open_ack, which a
	// loaded machine can miss; the widgets then never connect.
	CommFailed string      `json:"commFailed"`
	Cells      []cellState `json:"cells"`
}

// output is one output of a cell as jsOutputs reports it.
type output struct {
	Type   string `json:"type"`
	Ename  string `json:"ename"`
	Evalue string `json:"evalue"`
	Text   string `json:"text"`
	Figure bool   `json:"figure"`
}

// cellOutputs is one code cell's source head, prompt and outputs.
type cellOutputs struct {
	Index   int             `json:"index"`
	Prompt  json.RawMessage `json:"prompt"`
	Source  string          `json:"source"`
	Outputs []output        `json:"outputs"`
}

// evalJSON evaluates js (a function returning a JSON string) with args
// and decodes its answer into v.
func evalJSON(page *rod.Page, js string, v any, args ...any) error {
	res, err := page.Eval(js, args...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(res.Value.Str()), v); err != nil {
		return fmt.Errorf("decoding %.60q…: %w", res.Value.Str(), err)
	}
	return nil
}

// runNotebook opens the notebook name (NAME.ipynb on the server), runs
// all its cells, exercises the widgets of every interactive cell while it
// runs, checks the outputs and writes screenshots, the page's console and
// the executed notebook into out. It returns a one-line summary.
func runNotebook(ctx context.Context, br *browser, srv *jupyter, name, out string, o options) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	page, err := br.rod.Context(ctx).Page(proto.TargetCreateTarget{URL: srv.notebookURL(name + ".ipynb")})
	if err != nil {
		return "", fmt.Errorf("opening the page: %w", err)
	}
	// Closing the target, unlike Page.close, runs no beforeunload prompt.
	defer func() { _, _ = proto.TargetCloseTarget{TargetID: page.TargetID}.Call(br.rod) }()
	console, err := newLineLog(filepath.Join(out, "console.log"))
	if err != nil {
		return "", err
	}
	defer console.close()
	go logConsole(page, console)()
	if err := page.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1280, Height: 1000, DeviceScaleFactor: 1}); err != nil {
		return "", err
	}

	if err := waitKernel(ctx, page); err != nil {
		return "", err
	}
	var ok bool
	if err := evalJSON(page, jsWatchKernel, &ok); err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := evalJSON(page, jsRunAll, &ok); err != nil {
		return "", err
	}
	states, err := runAll(ctx, page, out, o)
	if err != nil {
		return "", err
	}
	ran := time.Since(t0)

	var cells []cellOutputs
	if err := evalJSON(page, jsOutputs, &cells); err != nil {
		return "", err
	}
	problems, figures := judge(cells)
	problems = append(problems, screenshotFigures(page, cells, out)...)
	if err := evalJSON(page, jsSave, &ok); err != nil {
		problems = append(problems, fmt.Sprintf("saving the executed notebook: %v", err))
	} else if err := srv.download(name+".ipynb", filepath.Join(out, name+".ipynb")); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "\n"))
	}
	return fmt.Sprintf("%d code cells ran in %.0f s, %d figures, %d widget states checked; screenshots in %s",
		len(cells), ran.Seconds(), figures, states, out), nil
}

// logConsole returns the page's event loop that writes its console
// messages and uncaught exceptions to console (run it on a goroutine).
func logConsole(page *rod.Page, console *lineLog) func() {
	return page.EachEvent(func(e *proto.RuntimeConsoleAPICalled) {
		var parts []string
		for _, a := range e.Args {
			if a.Value.Nil() {
				parts = append(parts, a.Description)
			} else {
				parts = append(parts, a.Value.String())
			}
		}
		console.printf("[%s] %s", e.Type, strings.Join(parts, " "))
	}, func(e *proto.RuntimeExceptionThrown) {
		d := e.ExceptionDetails
		desc := d.Text
		if d.Exception != nil {
			desc += " " + d.Exception.Description
		}
		console.printf("[exception] %s", desc)
	})
}

// screenshotFigures saves a screenshot of every cell's first figure into
// out and returns the problems met.
func screenshotFigures(page *rod.Page, cells []cellOutputs, out string) []string {
	var problems []string
	for _, c := range cells {
		for _, op := range c.Outputs {
			if op.Figure {
				if err := screenshotOutput(page, c.Index, filepath.Join(out, fmt.Sprintf("cell%02d-figure.png", c.Index))); err != nil {
					problems = append(problems, fmt.Sprintf("cell %d: screenshot: %v", c.Index, err))
				}
				break
			}
		}
	}
	return problems
}

// waitKernel waits until the page's notebook has a connected kernel.
func waitKernel(ctx context.Context, page *rod.Page) error {
	limit := time.Now().Add(2 * time.Minute)
	for {
		var st pageState
		err := evalJSON(page, jsState, &st)
		if err == nil && st.Connected {
			return nil
		}
		if time.Now().After(limit) {
			return fmt.Errorf("no connected kernel after 2 min (last state %+v, %v)", st, err)
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return err
		}
	}
}

// commAttempts is how many times a notebook whose widgets could not
// connect (pageState.CommFailed) is run.
const commAttempts = 3

// runAll waits until no cell is queued or running. When the running cell
// shows a figure, its widgets are exercised (once per cell and run). When
// GoNB's front-end connection fails to open, the kernel is restarted and
// every cell run again, up to commAttempts runs in all: interrupting only
// the cell would leave the cells queued after it running, an interactive
// one waiting for ever. It returns how many widget states were checked.
func runAll(ctx context.Context, page *rod.Page, out string, o options) (int, error) {
	exercised := map[int]bool{}
	runs, states := 1, 0
	for {
		var st pageState
		if err := evalJSON(page, jsState, &st); err != nil {
			return states, err
		}
		if st.Trouble != "" {
			return states, fmt.Errorf("the kernel died or restarted (%s)", st.Trouble)
		}
		if st.CommFailed != "" {
			if runs >= commAttempts {
				return states, fmt.Errorf("GoNB's front-end connection failed in %d runs (last: %s): the widgets never connected", runs, st.CommFailed)
			}
			runs++
			fmt.Printf("  GoNB's front-end connection failed (%s; it waits 500 ms for the kernel's answer, which a loaded machine can miss): restarting the kernel, run %d of %d\n",
				st.CommFailed, runs, commAttempts)
			var ok bool
			if err := evalJSON(page, jsRestartRunAll, &ok); err != nil {
				return states, err
			}
			exercised = map[int]bool{}
			continue
		}
		running := -1
		for _, c := range st.Cells {
			if c.busy() {
				running = c.Index
				if c.Figure && !exercised[c.Index] {
					exercised[c.Index] = true
					n, err := exercise(ctx, page, c.Index, out, o)
					states += n
					if err != nil {
						return states, fmt.Errorf("cell %d: %w", c.Index, err)
					}
				}
				break // the first busy cell is the one running
			}
		}
		if running < 0 {
			return states, nil
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return states, fmt.Errorf("waiting for cell %d: %w", running, err)
		}
	}
}

// judge checks the executed cells as scripts/test-notebooks.sh does for
// nbconvert's copy: no error output, no Go panic, every code cell run, at
// least one figure. It returns the problems and the number of figures.
func judge(cells []cellOutputs) (problems []string, figures int) {
	for _, c := range cells {
		head := strings.SplitN(strings.TrimSpace(c.Source), "\n", 2)[0]
		for _, op := range c.Outputs {
			switch {
			case op.Type == "error":
				problems = append(problems, fmt.Sprintf("cell %d (%s) failed: %s: %s", c.Index, head, op.Ename, trim(op.Evalue, 2000)))
			case strings.Contains(op.Text, "panic:") || strings.Contains(op.Text, "goroutine 1 [running]"):
				problems = append(problems, fmt.Sprintf("cell %d (%s): Go panic in its output:\n%s", c.Index, head, trim(op.Text, 2000)))
			}
			if op.Figure {
				figures++
			}
		}
		if !promptRan(c.Prompt) {
			problems = append(problems, fmt.Sprintf("cell %d (%s) was not executed (prompt %s)", c.Index, head, c.Prompt))
		}
	}
	if figures == 0 {
		problems = append(problems, "no figure in any output")
	}
	return problems, figures
}

// trim keeps the last n bytes of s.
func trim(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// screenshotOutput writes a PNG of cell i's output area to path.
func screenshotOutput(page *rod.Page, i int, path string) error {
	var ok bool
	if err := evalJSON(page, jsMark, &ok, i); err != nil {
		return err
	}
	el, err := page.Element(fmt.Sprintf(`[data-browsertest-cell="%d"]`, i))
	if err != nil {
		return err
	}
	b, err := el.Screenshot(proto.PageCaptureScreenshotFormatPng, 0)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// lineLog is a log file that event callbacks may write to concurrently,
// also after it was closed (then nothing is written).
type lineLog struct {
	mu sync.Mutex
	f  *os.File
}

// newLineLog creates the file path.
func newLineLog(path string) (*lineLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &lineLog{f: f}, nil
}

// printf writes one line.
func (l *lineLog) printf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		fmt.Fprintf(l.f, format+"\n", a...)
	}
}

// close closes the file.
func (l *lineLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
