// Command browsertest runs every notebook in notebooks/ in a real browser:
// headless Chromium (the system's, driven through go-rod; nothing is
// downloaded) on a classic Jupyter Notebook server that it starts on
// 127.0.0.1 with a random port and token.
//
// For each notebook it runs all cells (Jupyter.notebook.execute_all_cells)
// and fails on an error output, a Go panic, a cell left unexecuted or a
// notebook without a figure. While a cell with widgets runs, it moves
// every widget by DOM input/change events and checks that the cell's
// figure is redrawn for the values the widgets now show, the first time;
// it saves a screenshot of each state. This is what nbconvert cannot do:
// GoNB's widgets talk to the kernel from the page's JavaScript.
//
// # What a notebook's interactive cell provides
//
// Widgets and the figure they drive are found by data attributes, so the
// driver needs no knowledge of a notebook:
//
//   - each widget (<input type=range>, <select> or <button>) sits inside an
//     element with data-param="NAME";
//   - the figure is the last element with a data-figure attribute in the
//     cell's output; it carries data-NAME="VALUE" for every slider and
//     select, the values it was drawn for, and its SVG's first <text> (the
//     title) shows every one of those values;
//   - the figure is drawn once all the widgets exist, at their initial
//     values;
//   - the only button understood is data-param="stop": clicking it ends the
//     cell, whose output must then still hold the figure at the last values.
//
// Usage (from the repository root; scripts/test-notebooks-browser.sh sets
// up PATH and the kernel first):
//
//	go run ./notebooks/browsertest -out DIR [-only GLOB]
//
// With -server URL it uses a running server instead (a container's, as
// scripts/test-image.sh does), its token in $JUPYTER_TOKEN.
//
// GoNB's page-side connection waits only 500 ms for the kernel's answer,
// which a loaded machine can miss; then no widget ever connects. The
// driver sees GoNB's console error, restarts the kernel and runs the
// notebook again (three runs at most), and says so.
//
// Output in DIR: NAME/*.png (one screenshot per widget state and per cell
// with a figure), NAME/NAME.ipynb (the executed notebook, as the browser
// saved it), NAME/console.log (the page's console) and jupyter.log.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	dir, only, out, server string
	jupyter, chromium      string
	timeout, redrawLimit   time.Duration
	noSandbox              bool
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "notebooks", "the notebooks' `directory`")
	flag.StringVar(&o.only, "only", "*", "run only the notebooks DIR/`GLOB`.ipynb")
	flag.StringVar(&o.out, "out", "", "where screenshots, executed notebooks and logs go (`directory`, required)")
	flag.StringVar(&o.jupyter, "jupyter", "jupyter-notebook", "the classic Jupyter Notebook server `command`")
	flag.StringVar(&o.server, "server", "", "use the classic Jupyter Notebook server at `URL` (a container's, say) instead of starting one; its token comes from $JUPYTER_TOKEN and it must serve the notebooks of -dir under the same names")
	flag.StringVar(&o.chromium, "chromium", "", "the Chromium `binary` (default: chromium, chromium-browser or google-chrome on PATH)")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "the most one notebook may take")
	flag.DurationVar(&o.redrawLimit, "redraw-timeout", 30*time.Second, "the most a figure may take to redraw after a widget moves")
	flag.BoolVar(&o.noSandbox, "no-sandbox", os.Geteuid() == 0, "run Chromium without its sandbox (needed as root)")
	flag.Parse()
	if o.out == "" {
		fmt.Fprintln(os.Stderr, "browsertest: -out is required")
		os.Exit(2)
	}
	// SIGINT/SIGTERM cancel the context, so that the deferred stops of
	// Jupyter and Chromium still run.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: FAIL:", err)
		os.Exit(1)
	}
}

// run starts Jupyter and Chromium, runs every selected notebook and
// stops both; it returns every notebook's failure.
func run(ctx context.Context, o options) (err error) {
	nbs, err := filepath.Glob(filepath.Join(o.dir, o.only+".ipynb"))
	if err != nil || len(nbs) == 0 {
		return fmt.Errorf("no notebooks %s/%s.ipynb (%v)", o.dir, o.only, err)
	}
	if o.chromium == "" {
		if o.chromium, err = findChromium(); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gomatvis-browsertest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Jupyter serves copies: the classic notebook autosaves, and what it
	// saves must never land in notebooks/.
	work := filepath.Join(tmp, "notebooks")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	for _, nb := range nbs {
		if err := copyFile(nb, filepath.Join(work, filepath.Base(nb))); err != nil {
			return err
		}
	}

	t0 := time.Now()
	var srv *jupyter
	if o.server != "" {
		if srv, err = useJupyter(ctx, o.server, os.Getenv("JUPYTER_TOKEN")); err != nil {
			return err
		}
		fmt.Printf("browsertest: using the jupyter at %s\n", o.server)
	} else {
		if srv, err = startJupyter(ctx, o.jupyter, work, tmp, filepath.Join(o.out, "jupyter.log")); err != nil {
			return err
		}
		defer func() {
			if serr := srv.stop(); serr != nil {
				err = errors.Join(err, serr)
			}
		}()
		fmt.Printf("browsertest: jupyter (pid %d) ready on 127.0.0.1:%d in %.1f s\n", srv.cmd.Process.Pid, srv.port, time.Since(t0).Seconds())
	}

	br, err := startBrowser(ctx, o.chromium, filepath.Join(tmp, "chromium"), o.noSandbox)
	if err != nil {
		return err
	}
	defer br.stop()
	fmt.Printf("browsertest: %s (pid %d)\n", o.chromium, br.launcher.PID())

	var failures []error
	for _, nb := range nbs {
		name := strings.TrimSuffix(filepath.Base(nb), ".ipynb")
		t := time.Now()
		sum, err := runNotebook(ctx, br, srv, name, filepath.Join(o.out, name), o)
		if err != nil {
			fmt.Printf("FAIL %s (%.0f s): %v\n", name, time.Since(t).Seconds(), err)
			failures = append(failures, fmt.Errorf("%s: %w", name, err))
		} else {
			fmt.Printf("ok   %s (%.0f s): %s\n", name, time.Since(t).Seconds(), sum)
		}
		if err := srv.deleteSessions(); err != nil {
			failures = append(failures, fmt.Errorf("%s: shutting its kernel down: %w", name, err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	fmt.Printf("browsertest: %d notebook(s) in %.0f s; output in %s\n", len(nbs), time.Since(t0).Seconds(), o.out)
	return errors.Join(failures...)
}

// findChromium returns the first Chromium or Chrome on PATH.
func findChromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome on PATH (Debian: apt-get install chromium)")
}

// copyFile copies the file src to dst.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
