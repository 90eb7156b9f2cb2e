package runclock

import (
	"encoding/json"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// fakeTime is a clock the test advances by hand.
type fakeTime struct{ t time.Time }

func (f *fakeTime) now() time.Time          { return f.t }
func (f *fakeTime) advance(d time.Duration) { f.t = f.t.Add(d) }

func TestMarksAttributeTheGapToTheNamedPhase(t *testing.T) {
	origin := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	ft := &fakeTime{origin}
	c := newAt(origin, "process", ft.now)
	steps := []struct {
		d time.Duration
		p Phase
	}{
		{10 * time.Millisecond, Start}, {800 * time.Millisecond, Input}, {50 * time.Millisecond, Setup},
		{200 * time.Millisecond, Compute}, {30 * time.Millisecond, Write}, {100 * time.Millisecond, Compute},
		{20 * time.Millisecond, Write}, {20 * time.Millisecond, Close},
	}
	for _, s := range steps {
		ft.advance(s.d)
		c.Mark(s.p)
	}
	p := c.Phases()
	want := map[Phase]float64{Start: 0.01, Input: 0.8, Setup: 0.05, Compute: 0.3, Write: 0.05, Close: 0.02}
	for q, w := range want {
		if got := p.Seconds(q); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: %v s, want %v", q, got, w)
		}
	}
	if math.Abs(p.WallS-1.23) > 1e-12 {
		t.Errorf("wall %v s, want 1.23", p.WallS)
	}
	const line = "wall 1.230 s: start 0.010, input 0.800, set-up 0.050, compute 0.300, write 0.050, close 0.020"
	if s := p.String(); s != line {
		t.Errorf("line %q\nwant %q", s, line)
	}
}

// TestUnreachedPhasesAreAbsent: a run that has not written yet (meta.json
// is made before the write) lists only what it passed, and its JSON has
// no key for the rest.
func TestUnreachedPhasesAreAbsent(t *testing.T) {
	origin := time.Unix(0, 0)
	ft := &fakeTime{origin}
	c := newAt(origin, "command", ft.now)
	c.Mark(Start)
	ft.advance(time.Second)
	c.Mark(Input)
	p := c.Phases()
	if p.WriteS != nil || p.ComputeS != nil || p.StartS == nil || *p.StartS != 0 {
		t.Errorf("phases %+v: want start 0 and input only", p)
	}
	if s := p.String(); s != "wall 1.000 s: start 0.000, input 1.000" {
		t.Errorf("line %q", s)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"setup_s", "compute_s", "write_s", "close_s"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present in %s", k, b)
		}
	}
	if m["start_from"] != "command" || m["input_s"] != 1.0 {
		t.Errorf("JSON %s", b)
	}
}

// TestRandomMarks compares the clock with a plain sum of the gaps over
// random mark sequences (time standing still included): every phase's
// time and the wall, which the phases add up to.
func TestRandomMarks(t *testing.T) {
	r := sharedtest.RNG(t, 1)
	for range 200 {
		origin := time.Unix(int64(r.IntN(1e9)), 0)
		ft := &fakeTime{origin}
		c := newAt(origin, "process", ft.now)
		var want [numPhases]time.Duration
		var total time.Duration
		for range r.IntN(30) {
			d := time.Duration(r.IntN(3)) * time.Duration(r.Int64N(int64(time.Second)))
			p := Phase(r.IntN(int(numPhases)))
			ft.advance(d)
			c.Mark(p)
			want[p] += d
			total += d
		}
		p := c.Phases()
		var sum float64
		for q := range numPhases {
			if got := p.Seconds(q); got != want[q].Seconds() {
				t.Fatalf("%s: %v s, want %v", q, got, want[q].Seconds())
			}
			sum += p.Seconds(q)
		}
		if p.WallS != total.Seconds() || math.Abs(sum-p.WallS) > 1e-9*max(1, p.WallS) {
			t.Fatalf("wall %v s, phases sum to %v, want %v", p.WallS, sum, total.Seconds())
		}
	}
}

func TestPhaseRange(t *testing.T) {
	origin := time.Unix(100, 0)
	ft := &fakeTime{origin}
	c := newAt(origin, "process", ft.now)
	ft.advance(2 * time.Second)
	c.Mark(Write)
	if w := c.Phases().Seconds(Write); w != 2 {
		t.Errorf("write %v s, want 2", w)
	}
	c.Mark(Phase(-1)) // out of range: ignored
	c.Mark(numPhases)
	if Phase(9).String() != "Phase(9)" || Setup.String() != "set-up" {
		t.Errorf("names %q %q", Phase(9), Setup)
	}
}

func TestAgeFrom(t *testing.T) {
	// A command name with spaces and parentheses: fields count after the
	// last ")". Field 22 (starttime) is 123000 ticks = 1230 s after boot.
	stat := "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 123000 1000000 200 18446744073709551615"
	for _, c := range []struct {
		stat, uptime string
		want         time.Duration
		ok           bool
	}{
		{stat, "1234.56 5000.00\n", 4560 * time.Millisecond, true},
		{stat, "1229.99 1.0", 0, true}, // rounding: never negative
		{"4242 (x) S 1 2", "1234.56 1", 0, false},
		{"no parenthesis", "1 1", 0, false},
		{stat, "", 0, false},
		{stat, "-3 1", 0, false},
	} {
		got, ok := ageFrom(c.stat, c.uptime)
		if ok != c.ok || (ok && (got-c.want).Abs() > time.Microsecond) {
			t.Errorf("ageFrom(…, %q) = %v, %v; want %v, %v", c.uptime, got, ok, c.want, c.ok)
		}
	}
}

// TestNewOnThisSystem: on Linux the clock starts at the process's start,
// before this test began and after the epoch of the machine's boot.
func TestNewOnThisSystem(t *testing.T) {
	before := time.Now()
	c := New()
	p := c.Phases()
	if runtime.GOOS != "linux" {
		if p.StartFrom != "command" {
			t.Errorf("start from %q off Linux", p.StartFrom)
		}
		return
	}
	if p.StartFrom != "process" || p.StartS == nil {
		t.Fatalf("phases %+v: want the process's start", p)
	}
	// The test binary ran for a while before this test: its age is at
	// least 0 and at most the machine's uptime.
	if *p.StartS < 0 || *p.StartS > time.Since(before).Seconds()+1e6 {
		t.Errorf("start %v s", *p.StartS)
	}
	if p.PeakRSSBytes <= 0 {
		t.Errorf("peak RSS %d bytes: VmHWM not read", p.PeakRSSBytes)
	}
}

func TestPeakRSSFrom(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int64
	}{
		{"Name:\tgomatvis\nVmPeak:\t  900 kB\nVmHWM:\t  1234 kB\nVmRSS:\t 1000 kB\n", 1234 << 10},
		{"VmHWM:\t12 MB\n", 0},
		{"Name: x\n", 0},
		{"VmHWM: -5 kB", 0},
	} {
		if got := peakRSSFrom(c.status); got != c.want {
			t.Errorf("peakRSSFrom(%q) = %d, want %d", c.status, got, c.want)
		}
	}
}

// TestMarkSplit: an interval split among measured parts gives each its
// share, the rest to the named phase, never more than the interval (a
// part longer than what is left is cut), and the phases still add up to
// the wall.
func TestMarkSplit(t *testing.T) {
	origin := time.Unix(0, 0)
	ft := &fakeTime{origin}
	c := newAt(origin, "process", ft.now)
	ft.advance(time.Second)
	c.Mark(Setup)
	ft.advance(10 * time.Second)
	c.MarkSplit(Compute, Part{Compute, 7 * time.Second}, Part{Write, 2 * time.Second}, Part{Close, 500 * time.Millisecond})
	ft.advance(time.Second)
	c.MarkSplit(Compute, Part{Write, 3 * time.Second}, Part{Close, time.Second}, Part{Phase(42), time.Second})
	p := c.Phases()
	for q, w := range map[Phase]float64{Setup: 1, Compute: 7.5, Write: 3, Close: 0.5} {
		if got := p.Seconds(q); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: %v s, want %v", q, got, w)
		}
	}
	if p.WallS != 12 || p.InputS != nil {
		t.Errorf("phases %v", p)
	}
}
