// Command mknb builds the notebooks in notebooks/ from their plain-text
// sources in notebooks/src/, so that the cells can be reviewed and diffed
// as text and the .ipynb files hold no outputs.
//
// A source file NAME.txt becomes NAME.ipynb (GoNB kernel). Cells are
// separated by marker lines that are exactly
//
//	//// markdown
//	//// code
//
// and anything before the first marker is ignored (use it for notes to
// the maintainer). Leading and trailing blank lines of a cell are dropped.
//
// Usage (from the repository root):
//
//	go run ./notebooks/mknb          # rewrite notebooks/*.ipynb
//	go run ./notebooks/mknb -check   # fail if any .ipynb is out of date
//	go run ./notebooks/mknb -go DIR  # also write each notebook as a Go program
//
// With -go, each notebook NAME also becomes a plain Go program in DIR/NAME
// (cells.go and main.go, package main): every code cell's declarations,
// and each cell's main part (after GoNB's `%%`) as a function that main
// calls in order. GoNB's shell and special commands are dropped, and
// gonbui's display calls go to notebooks/gonbshim, which writes files
// into $NOTEBOOK_OUT; a code cell whose first line is "// mknb:
// interactive" (widgets, which need a browser) is left out.
// scripts/notebooks-gpu.sh builds and runs them.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// notebook is an nbformat 4.5 document.
type notebook struct {
	Cells         []map[string]any `json:"cells"`
	Metadata      map[string]any   `json:"metadata"`
	NBFormat      int              `json:"nbformat"`
	NBFormatMinor int              `json:"nbformat_minor"`
}

func main() {
	check := flag.Bool("check", false, "do not write; exit 1 if a notebook differs from its source")
	dir := flag.String("dir", "notebooks", "the notebooks directory (sources in DIR/src)")
	goDir := flag.String("go", "", "also write each notebook as a Go program in `DIR`/NAME")
	flag.Parse()
	srcs, err := filepath.Glob(filepath.Join(*dir, "src", "*.txt"))
	if err != nil || len(srcs) == 0 {
		fmt.Fprintf(os.Stderr, "mknb: no sources in %s/src (%v)\n", *dir, err)
		os.Exit(1)
	}
	stale := 0
	for _, src := range srcs {
		text, err := os.ReadFile(src)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mknb:", err)
			os.Exit(1)
		}
		nb, err := parse(string(text))
		if err != nil {
			fmt.Fprintf(os.Stderr, "mknb: %s: %v\n", src, err)
			os.Exit(1)
		}
		name := strings.TrimSuffix(filepath.Base(src), ".txt")
		if *goDir != "" {
			if err := writeProgram(*goDir, name, nb); err != nil {
				fmt.Fprintln(os.Stderr, "mknb:", err)
				os.Exit(1)
			}
		}
		out := filepath.Join(*dir, name+".ipynb")
		data, err := render(nb)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mknb:", err)
			os.Exit(1)
		}
		old, _ := os.ReadFile(out)
		if bytes.Equal(old, data) {
			continue
		}
		if *check {
			fmt.Fprintf(os.Stderr, "mknb: %s is out of date with %s: run 'go run ./notebooks/mknb'\n", out, src)
			stale++
			continue
		}
		// Atomic: an interrupted run never leaves a truncated notebook.
		if err := atomicfile.WriteBytes(out, data); err != nil {
			fmt.Fprintln(os.Stderr, "mknb:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", out)
	}
	if stale > 0 {
		os.Exit(1)
	}
}

// parse splits a source into cells.
func parse(text string) (*notebook, error) {
	nb := &notebook{
		Metadata: map[string]any{
			"kernelspec":    map[string]any{"display_name": "Go (gonb)", "language": "go", "name": "gonb"},
			"language_info": map[string]any{"name": "go"},
		},
		NBFormat:      4,
		NBFormatMinor: 5,
	}
	var kind string
	var lines []string
	flush := func() {
		if kind == "" {
			return
		}
		for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
			lines = lines[1:]
		}
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		source := []string{}
		for i, l := range lines {
			if i < len(lines)-1 {
				l += "\n"
			}
			source = append(source, l)
		}
		// Keys are written sorted, as Jupyter writes them.
		c := map[string]any{
			"cell_type": kind,
			"id":        fmt.Sprintf("cell-%02d", len(nb.Cells)),
			"metadata":  map[string]any{},
			"source":    source,
		}
		if kind == "code" {
			c["execution_count"] = nil
			c["outputs"] = []any{}
		}
		nb.Cells = append(nb.Cells, c)
	}
	for i, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		switch strings.TrimRight(l, " \t") {
		case "//// markdown":
			flush()
			kind, lines = "markdown", nil
		case "//// code":
			flush()
			kind, lines = "code", nil
		default:
			if strings.HasPrefix(l, "////") {
				return nil, fmt.Errorf("line %d: unknown marker %q (want '//// markdown' or '//// code')", i+1, l)
			}
			lines = append(lines, l)
		}
	}
	flush()
	if len(nb.Cells) == 0 {
		return nil, fmt.Errorf("no cells")
	}
	return nb, nil
}

// render encodes a notebook as Jupyter does: one-space indent, no HTML
// escaping, a final newline.
func render(nb *notebook) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
