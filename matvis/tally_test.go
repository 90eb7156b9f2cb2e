package matvis

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// tallySim is validConfig's simulation over two channels and three times,
// and the progress reports it gets.
func tallySim(t *testing.T) (*Simulation, *[]Progress) {
	t.Helper()
	cfg := validConfig()
	cfg.Freqs = []float64{1e8, 2e8}
	cfg.Flux = []float64{1, 1, 2, 2}
	one := []float64{0, 0.1, 0, 0.2, 1, 0.9}
	crd, err := NewPrecomputed(3, 2, slices.Concat(one, one, one))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Coords = crd
	progress := new([]Progress)
	cfg.Options.Progress = func(p Progress) { *progress = append(*progress, p) }
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim, progress
}

// TestTallyTimes: channel 1's times run in order and are marked at
// Done[1·3 + t] with one wall time each, and Progress counts on from the
// integration recorded before (channel 0's first time, by Record) to
// 4 of 6.
func TestTallyTimes(t *testing.T) {
	sim, progress := tallySim(t)
	res := NewResult(sim)
	tally := NewTally("be", sim, res)
	tally.Record(0, 0, time.Millisecond)
	var order []int
	if err := tally.Times(context.Background(), 1, func(ti int) error { order = append(order, ti); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{0, 1, 2}) {
		t.Errorf("times run in order %v, want [0 1 2]", order)
	}
	if want := []bool{true, false, false, true, true, true}; !slices.Equal(res.Done, want) {
		t.Errorf("Done %v, want %v", res.Done, want)
	}
	if n := len(res.Stats.Integrations); n != 4 || res.Stats.Integrations[0] != time.Millisecond {
		t.Errorf("Stats.Integrations %v, want 4 wall times, the first 1ms", res.Stats.Integrations)
	}
	if want := []Progress{{1, 6}, {2, 6}, {3, 6}, {4, 6}}; !slices.Equal(*progress, want) {
		t.Errorf("progress %v, want %v", *progress, want)
	}
	if tally.Done() != 4 {
		t.Errorf("Done() = %d, want 4", tally.Done())
	}
}

// TestTallyStops: an integration's error ends the channel, that time
// unrecorded, and comes back as it is; a cancelled context stops the
// channel before its next time with an error that wraps the context's and
// says how far the run got.
func TestTallyStops(t *testing.T) {
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	for _, c := range []struct {
		name      string
		ctx       context.Context
		integrate func(ti int) error
		err       func(error) bool
		done      []bool
		ran       int // integrate calls: the failed or cancelled one and those before it
	}{
		{"error at time 1", context.Background(), func(ti int) error {
			if ti == 1 {
				return boom
			}
			return nil
		}, func(err error) bool { return err == boom }, []bool{false, false, false, true, false, false}, 2},
		{"cancelled during time 0", cancelled, func(int) error { cancel(); return nil }, func(err error) bool {
			return errors.Is(err, context.Canceled) && err.Error() == "be: cancelled after 1 of 6 integrations: context canceled"
		}, []bool{false, false, false, true, false, false}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, progress := tallySim(t)
			res := NewResult(sim)
			tally := NewTally("be", sim, res)
			ran := 0
			err := tally.Times(c.ctx, 1, func(ti int) error { ran++; return c.integrate(ti) })
			if !c.err(err) {
				t.Errorf("error %v", err)
			}
			if !slices.Equal(res.Done, c.done) {
				t.Errorf("Done %v, want %v", res.Done, c.done)
			}
			if ran != c.ran || tally.Done() != 1 || len(*progress) != 1 {
				t.Errorf("%d integrations ran, %d recorded, %d progress reports; want %d, 1 and 1", ran, tally.Done(), len(*progress), c.ran)
			}
		})
	}
}
