// Command testsummary reads `go test -json` on stdin and counts every test,
// subtests included, by its outcome: it writes the plain -v text to the
// log named by -log, prints each package's result, the failed tests with
// their output, the skipped ones with their reason, and a summary line,
// and exits 1 when a test or a package (a build, a panic, a timeout)
// failed. scripts/test.sh runs it.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json's output.
type event struct {
	Action string
	// Package names the package; build events name it in ImportPath
	// ("pkg [pkg.test]") instead.
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type key struct{ pkg, test string }

// result is a test's outcome and output.
type result struct {
	action string
	output []string
}

// Summary is what a run came to.
type Summary struct {
	Passed, Failed, Skipped int
	// SubtestsPassed etc. count the tests whose name has a "/".
	SubtestsPassed, SubtestsFailed, SubtestsSkipped int
	// PackagesFailed lists packages whose run failed, a test or not.
	PackagesFailed []string
	// Packages is each package's final line ("ok pkg", "FAIL pkg", "? pkg").
	Packages []string
	// FailedTests and SkippedTests name the tests, with their output.
	FailedTests, SkippedTests []string
}

// summarize reads test2json events from r, copying their output to log.
func summarize(r io.Reader, log io.Writer) (Summary, error) {
	var s Summary
	c := collector{res: map[key]*result{}, pkgOut: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		c.line(&s, sc.Bytes(), log)
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	for _, k := range c.order {
		s.count(k, c.res[k])
	}
	for _, p := range s.PackagesFailed {
		if out := c.pkgOut[p]; len(out) > 0 {
			s.FailedTests = append(s.FailedTests, p+" (package)\n"+tail(out, 40))
		}
	}
	if out := c.pkgOut[""]; len(out) > 0 && len(s.PackagesFailed) == 0 && s.Failed == 0 {
		// Lines outside any package's events: a build failure of the
		// command itself.
		s.PackagesFailed = append(s.PackagesFailed, "(go test)")
		s.FailedTests = append(s.FailedTests, "go test\n"+tail(out, 40))
	}
	sort.Strings(s.Packages)
	return s, nil
}

// collector gathers go test's events: each test's outcome and output in
// the order tests first appear, and each package's own output.
type collector struct {
	res    map[key]*result
	order  []key
	pkgOut map[string][]string
}

// line takes one line of go test -json's output, echoing its text to log.
func (c *collector) line(s *Summary, line []byte, log io.Writer) {
	var e event
	if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
		// go test's own lines (build errors before any test) pass through.
		fmt.Fprintln(log, string(line))
		if len(line) > 0 {
			c.pkgOut[""] = append(c.pkgOut[""], string(line))
		}
		return
	}
	if e.Output != "" {
		io.WriteString(log, e.Output)
	}
	if e.Package == "" && e.ImportPath != "" {
		e.Package, _, _ = strings.Cut(e.ImportPath, " ")
	}
	if e.Test == "" {
		c.packageEvent(s, e)
		return
	}
	k := key{e.Package, e.Test}
	t := c.res[k]
	if t == nil {
		t = &result{}
		c.res[k] = t
		c.order = append(c.order, k)
	}
	switch e.Action {
	case "output":
		t.output = append(t.output, strings.TrimRight(e.Output, "\n"))
	case "pass", "fail", "skip":
		t.action = e.Action
	}
}

// packageEvent takes an event of a package rather than of a test.
func (c *collector) packageEvent(s *Summary, e event) {
	switch e.Action {
	case "output", "build-output":
		c.pkgOut[e.Package] = append(c.pkgOut[e.Package], strings.TrimRight(e.Output, "\n"))
	case "pass":
		s.Packages = append(s.Packages, "ok   "+e.Package)
	case "skip":
		s.Packages = append(s.Packages, "?    "+e.Package+" [no test files]")
	case "fail":
		s.Packages = append(s.Packages, "FAIL "+e.Package)
		s.PackagesFailed = append(s.PackagesFailed, e.Package)
	}
}

// count adds test k's outcome: "fail", or no outcome at all — a test that
// never finished (a panic or a timeout in its package) — counts as failed.
func (s *Summary) count(k key, t *result) {
	sub := strings.Contains(k.test, "/")
	name := k.pkg + " " + k.test
	switch t.action {
	case "pass":
		s.Passed++
		if sub {
			s.SubtestsPassed++
		}
	case "skip":
		s.Skipped++
		if sub {
			s.SubtestsSkipped++
		}
		s.SkippedTests = append(s.SkippedTests, name+": "+reason(t.output))
	default:
		s.Failed++
		if sub {
			s.SubtestsFailed++
		}
		s.FailedTests = append(s.FailedTests, name+"\n"+tail(t.output, 40))
	}
}

// reason is a skipped test's message: its output but for the === and ---
// lines.
func reason(out []string) string {
	var keep []string
	for _, l := range out {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		return "(no reason given)"
	}
	return keep[len(keep)-1]
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

func main() {
	logPath := flag.String("log", "", "write the plain test output here")
	flag.Parse()
	log := io.Discard
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		log = f
	}
	s, err := summarize(os.Stdin, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	for _, p := range s.Packages {
		fmt.Println(p)
	}
	if len(s.SkippedTests) > 0 {
		fmt.Printf("== %d skipped tests (not counted as passed):\n", len(s.SkippedTests))
		for _, x := range s.SkippedTests {
			fmt.Println("   " + x)
		}
	}
	if len(s.FailedTests) > 0 {
		fmt.Printf("== %d failed tests, %d failed packages:\n", s.Failed, len(s.PackagesFailed))
		for _, x := range s.FailedTests {
			fmt.Println("--- FAIL: " + x)
		}
	}
	fmt.Printf("tests: %d passed, %d failed, %d skipped (of which subtests: %d passed, %d failed, %d skipped); %d packages failed\n",
		s.Passed, s.Failed, s.Skipped, s.SubtestsPassed, s.SubtestsFailed, s.SubtestsSkipped, len(s.PackagesFailed))
	if s.Failed > 0 || len(s.PackagesFailed) > 0 {
		os.Exit(1)
	}
}
