package main

import (
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatchSignalsAfterStop sends two signals right after stop returns,
// many times: none may cancel or exit. The old watch decided between its
// stop channel and the signals by one select, which picks either when
// both are ready; a watch goroutine not yet scheduled when stop was called
// (the load of a busy machine) then acted on the late signal about half
// the time.
func TestWatchSignalsAfterStop(t *testing.T) {
	for i := range 300 {
		ch := make(chan os.Signal, 2)
		var cancels, exits atomic.Int32
		stop := watchSignals(ch, func() { cancels.Add(1) }, io.Discard, func() { exits.Add(1) })
		stop()
		ch <- os.Interrupt
		ch <- os.Interrupt
		// Time for a watch that still runs to take them.
		time.Sleep(200 * time.Microsecond)
		if c, e := cancels.Load(), exits.Load(); c != 0 || e != 0 {
			t.Fatalf("try %d: %d cancels and %d exits from signals sent after stop, want none", i, c, e)
		}
		stop() // a second stop is harmless
	}
}

// TestWatchSignalsBeforeStop: the first signal cancels and says so, the
// second exits, and stop afterwards returns.
func TestWatchSignalsBeforeStop(t *testing.T) {
	ch := make(chan os.Signal, 2)
	cancelled, exited := make(chan struct{}), make(chan struct{})
	// Written by the watch only; read after stop, which waits for it.
	var stderr strings.Builder
	stop := watchSignals(ch, func() { close(cancelled) }, &stderr, func() { close(exited) })
	ch <- os.Interrupt
	closedWithin(t, cancelled, "the first signal's cancel")
	ch <- os.Interrupt
	closedWithin(t, exited, "the second signal's exit")
	stop()
	got := stderr.String()
	for _, want := range []string{"interrupted: stopping at the next check", "interrupted again: exiting now"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr %q, want it to contain %q", got, want)
		}
	}
}

// closedWithin fails t unless c is closed within 10 s.
func closedWithin(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
}
