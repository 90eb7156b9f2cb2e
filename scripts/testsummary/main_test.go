package main

import (
	"bytes"
	"strings"
	"testing"
)

// events is a go test -json stream (as test2json writes it) of two
// packages: passing, failing and skipped tests and subtests, a skipped
// subtest under a passing parent, a test cut short by a panic, and a
// package with no test files.
const events = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"run","Package":"a","Test":"TestOK/sub1"}
{"Action":"output","Package":"a","Test":"TestOK/sub1","Output":"    x_test.go:9: no GPU here\n"}
{"Action":"output","Package":"a","Test":"TestOK/sub1","Output":"    --- SKIP: TestOK/sub1 (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestOK/sub1"}
{"Action":"run","Package":"a","Test":"TestOK/sub2"}
{"Action":"pass","Package":"a","Test":"TestOK/sub2"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"run","Package":"a","Test":"TestBad"}
{"Action":"run","Package":"a","Test":"TestBad/x"}
{"Action":"output","Package":"a","Test":"TestBad/x","Output":"    x_test.go:20: got 1, want 2\n"}
{"Action":"fail","Package":"a","Test":"TestBad/x"}
{"Action":"fail","Package":"a","Test":"TestBad"}
{"Action":"run","Package":"a","Test":"TestSkip"}
{"Action":"output","Package":"a","Test":"TestSkip","Output":"    x_test.go:30: SKIP: needs numpy\n"}
{"Action":"skip","Package":"a","Test":"TestSkip"}
{"Action":"output","Package":"a","Output":"FAIL\n"}
{"Action":"fail","Package":"a"}
{"Action":"start","Package":"b"}
{"Action":"run","Package":"b","Test":"TestPanics"}
{"Action":"output","Package":"b","Test":"TestPanics","Output":"panic: boom\n"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.1s\n"}
{"Action":"fail","Package":"b"}
{"Action":"start","Package":"c"}
{"Action":"output","Package":"c","Output":"?   \tc\t[no test files]\n"}
{"Action":"skip","Package":"c"}
`

func TestSummarize(t *testing.T) {
	var log bytes.Buffer
	s, err := summarize(strings.NewReader(events), &log)
	if err != nil {
		t.Fatal(err)
	}
	// Passed: TestOK, TestOK/sub2. Failed: TestBad, TestBad/x, TestPanics
	// (no outcome). Skipped: TestOK/sub1, TestSkip.
	if s.Passed != 2 || s.Failed != 3 || s.Skipped != 2 {
		t.Errorf("passed %d, failed %d, skipped %d; want 2, 3, 2", s.Passed, s.Failed, s.Skipped)
	}
	if s.SubtestsPassed != 1 || s.SubtestsFailed != 1 || s.SubtestsSkipped != 1 {
		t.Errorf("subtests passed %d, failed %d, skipped %d; want 1, 1, 1", s.SubtestsPassed, s.SubtestsFailed, s.SubtestsSkipped)
	}
	if strings.Join(s.PackagesFailed, ",") != "a,b" {
		t.Errorf("failed packages %v, want [a b]", s.PackagesFailed)
	}
	skips := strings.Join(s.SkippedTests, "\n")
	for _, want := range []string{"a TestOK/sub1: x_test.go:9: no GPU here", "a TestSkip: x_test.go:30: SKIP: needs numpy"} {
		if !strings.Contains(skips, want) {
			t.Errorf("skipped tests %q lack %q", skips, want)
		}
	}
	fails := strings.Join(s.FailedTests, "\n")
	for _, want := range []string{"got 1, want 2", "panic: boom"} {
		if !strings.Contains(fails, want) {
			t.Errorf("failed tests %q lack %q", fails, want)
		}
	}
	if !strings.Contains(log.String(), "--- PASS: TestOK") || !strings.Contains(log.String(), "panic: boom") {
		t.Errorf("log lacks the -v output: %q", log.String())
	}
}

// TestSummarizeAllPass: no failure, no failed package.
func TestSummarizeAllPass(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"T"}
{"Action":"pass","Package":"p","Test":"T"}
{"Action":"pass","Package":"p"}
`
	s, err := summarize(strings.NewReader(in), &bytes.Buffer{})
	if err != nil || s.Passed != 1 || s.Failed != 0 || len(s.PackagesFailed) != 0 {
		t.Errorf("%+v, %v", s, err)
	}
}
