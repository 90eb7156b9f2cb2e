package main

// docs/cli.md is generated from the real --help of every command, so that
// the reference cannot drift from the flags: TestCLIReference fails when
// the committed page differs from what the commands print, and
//
//	go generate ./cmd/gomatvis/
//
// (or go test ./cmd/gomatvis/ -run TestCLIReference -update-cli-doc)
// rewrites it.

//go:generate go test -run ^TestCLIReference$ -update-cli-doc .

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateCLIDoc = flag.Bool("update-cli-doc", false, "rewrite docs/cli.md from the commands' --help")

// cliDocPath is the reference page, from this package's directory.
const cliDocPath = "../../docs/cli.md"

// helpOf is what `gomatvis args…` prints (its stdout, then its stderr)
// and its exit code.
func helpOf(args ...string) (string, int) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String() + errb.String(), code
}

// cliReference is docs/cli.md: the overview (gomatvis --help), then each
// command's --help verbatim in a code block under its own heading.
func cliReference() (string, error) {
	var b strings.Builder
	b.WriteString("# gomatvis command-line reference\n\n")
	b.WriteString("<!-- Generated from every command's --help by `go generate ./cmd/gomatvis/`; do not edit by hand.\n")
	b.WriteString("     cmd/gomatvis's TestCLIReference fails when this page differs from what the commands print. -->\n\n")
	b.WriteString("Every command prints this text with `--help`. Install the command with\n`go install ./cmd/gomatvis` from a clone (or run it in place with\n`go run ./cmd/gomatvis …`). How to profile a run and read what it\nwrites: [performance.md](performance.md).\n\n")
	over, code := helpOf("--help")
	if code != 0 {
		return "", fmt.Errorf("gomatvis --help: exit %d", code)
	}
	b.WriteString("## Commands\n\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", c.name, c.name)
	}
	b.WriteString("\n```text\n$ gomatvis --help\n" + over + "```\n")
	for _, c := range commands() {
		h, code := helpOf(c.name, "--help")
		if code != 0 {
			return "", fmt.Errorf("gomatvis %s --help: exit %d", c.name, code)
		}
		fmt.Fprintf(&b, "\n## %s\n\n```text\n$ gomatvis %s --help\n%s```\n", c.name, c.name, h)
	}
	return b.String(), nil
}

func TestCLIReference(t *testing.T) {
	want, err := cliReference()
	if err != nil {
		t.Fatal(err)
	}
	// Every command's page holds its usage line and every one of its flags
	// (the flag package prints each as "  -NAME").
	for _, c := range commands() {
		if !strings.Contains(want, "usage: gomatvis "+c.usage+"\n") {
			t.Errorf("the reference lacks the usage line of %s", c.name)
		}
	}
	if *updateCLIDoc {
		if err := os.WriteFile(cliDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatalf("%v (generate it: go generate ./cmd/gomatvis/)", err)
	}
	if string(got) != want {
		t.Errorf("docs/cli.md is stale: the commands' --help changed; regenerate it with go generate ./cmd/gomatvis/ (first difference at line %d)", firstDiffLine(string(got), want))
	}
}

// firstDiffLine is the 1-based line where a and b first differ.
func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
