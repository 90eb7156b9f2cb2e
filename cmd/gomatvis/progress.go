package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
)

// progressBar draws a one-line bar on a terminal and nothing elsewhere.
type progressBar struct {
	w     io.Writer
	on    bool
	start time.Time
	last  time.Time
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	on := false
	if f, ok := w.(*os.File); ok && !quiet {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressBar{w: w, on: on, start: time.Now()}
}

func (p *progressBar) update(pr matvis.Progress) {
	if !p.on || (time.Since(p.last) < 100*time.Millisecond && pr.Done != pr.Total) {
		return
	}
	p.last = time.Now()
	const width = 30
	n := width * pr.Done / max(pr.Total, 1)
	el := time.Since(p.start)
	eta := time.Duration(float64(el) / float64(max(pr.Done, 1)) * float64(pr.Total-pr.Done))
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d integrations, %s elapsed, ~%s left ", strings.Repeat("#", n), strings.Repeat(".", width-n),
		pr.Done, pr.Total, el.Round(time.Second/10), eta.Round(time.Second))
}

func (p *progressBar) finish() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}
