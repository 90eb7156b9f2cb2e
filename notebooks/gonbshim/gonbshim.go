// Package gonbshim stands in for GoNB's gonbui in the plain Go programs
// that `go run ./notebooks/mknb -go DIR` makes from the notebooks: what a
// notebook would display is written to files instead, so that a notebook
// runs where there is no Jupyter (a GPU machine, CI), and its figures can
// be checked.
//
// Output goes to the directory named by $NOTEBOOK_OUT (default "out"),
// numbered in the order it is displayed: 001.png, 002.html, … The number
// is the count of files already there, so the package holds no state.
package gonbshim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Dir is the output directory: $NOTEBOOK_OUT, or "out".
func Dir() string {
	if d := os.Getenv("NOTEBOOK_OUT"); d != "" {
		return d
	}
	return "out"
}

// write stores b as the next numbered file with extension ext.
func write(ext string, b []byte) {
	dir := Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(fmt.Errorf("gonbshim: %w", err))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		panic(fmt.Errorf("gonbshim: %w", err))
	}
	path := filepath.Join(dir, fmt.Sprintf("%03d.%s", len(entries)+1, ext))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		panic(fmt.Errorf("gonbshim: %w", err))
	}
	fmt.Printf("[display] %s (%d bytes)\n", path, len(b))
}

// DisplayPNG writes a PNG image.
func DisplayPNG(b []byte) { write("png", b) }

// DisplaySVG writes an SVG document.
func DisplaySVG(s string) { write("svg", []byte(s)) }

// DisplayHTML writes an HTML fragment.
func DisplayHTML(s string) { write("html", []byte(s)) }

// DisplayMarkdown writes Markdown text.
func DisplayMarkdown(s string) { write("md", []byte(s)) }

// UniqueId returns an identifier for UpdateHTML.
func UniqueId() string { return "id" + strconv.FormatInt(time.Now().UnixNano(), 36) }

// UpdateHTML prints what a notebook would update in place (a progress
// line) on standard output.
func UpdateHTML(id, html string) { fmt.Printf("[%s] %s\n", id, html) }

// Sync does nothing: files are written when displayed.
func Sync() {}
