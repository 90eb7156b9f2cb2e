// Package runclock records the phases of one gomatvis run with their wall
// times, from the process's start to the output's close, so that a run
// reports where its time went and not only the engine's share:
//
//	start    the process's start to the command's start (loading the
//	         binary, the runtime, flag parsing)
//	input    reading and validating the input and building the simulation
//	         from it (catalog, beam files, source coordinates)
//	set-up   opening the backend and preparing the run
//	compute  the backend's run (its own set-up included)
//	write    writing the output
//	close    closing the output and the backend
//
// A Clock attributes the time between two marks to the phase the second
// mark names (or, for an interval whose parts were measured apart, to
// those parts: MarkSplit), so the phases add up to the wall with nothing
// counted twice.
package runclock

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Phase is one part of a run.
type Phase int

// The phases, in the order a run passes them.
const (
	Start Phase = iota
	Input
	Setup
	Compute
	Write
	Close
	numPhases
)

var phaseNames = [numPhases]string{"start", "input", "set-up", "compute", "write", "close"}

// String is the phase's name as the summary line prints it.
func (p Phase) String() string {
	if p < 0 || p >= numPhases {
		return "Phase(" + strconv.Itoa(int(p)) + ")"
	}
	return phaseNames[p]
}

// Clock accumulates the phases of one run. Its methods are safe for
// concurrent use (an output written on its own goroutine marks too).
type Clock struct {
	mu     sync.Mutex
	origin time.Time
	from   string
	last   time.Time
	d      [numPhases]time.Duration
	seen   [numPhases]bool
	now    func() time.Time
}

// New starts a clock at the process's start where the system says when
// that was (Linux: /proc/self/stat), else now, and marks the time since
// then as Start.
func New() *Clock {
	now := time.Now()
	age, ok := processAge()
	from := "process"
	if !ok {
		age, from = 0, "command"
	}
	c := newAt(now.Add(-age), from, time.Now)
	c.Mark(Start)
	return c
}

// newAt is a clock whose time began at origin, reading time from now; it
// marks nothing.
func newAt(origin time.Time, from string, now func() time.Time) *Clock {
	return &Clock{origin: origin, from: from, last: origin, now: now}
}

// Mark attributes the time since the previous mark (or the clock's
// origin) to p and returns the mark's instant, so that a caller timing an
// interval between marks measures exactly what the phases hold.
func (c *Clock) Mark(p Phase) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now()
	if p < 0 || p >= numPhases {
		return t
	}
	if d := t.Sub(c.last); d > 0 {
		c.d[p] += d
	}
	c.seen[p] = true
	if t.After(c.last) {
		c.last = t
	}
	return t
}

// Part is a known share of an interval: d of it was phase p.
type Part struct {
	Phase    Phase
	Duration time.Duration
}

// MarkSplit attributes the time since the previous mark among phases
// whose shares were measured apart (a writer overlapping the compute
// reports the compute, the waits for the writer and the close): each
// part gets its duration, in order and never more than is left of the
// interval, and rest gets what remains, so the phases still add up to
// the wall. It returns the mark's instant, as Mark does.
func (c *Clock) MarkSplit(rest Phase, parts ...Part) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now()
	left := t.Sub(c.last)
	for _, pt := range parts {
		if pt.Phase < 0 || pt.Phase >= numPhases || pt.Duration <= 0 || left <= 0 {
			continue
		}
		d := min(pt.Duration, left)
		c.d[pt.Phase] += d
		c.seen[pt.Phase] = true
		left -= d
	}
	if rest >= 0 && rest < numPhases {
		c.d[rest] += max(left, 0)
		c.seen[rest] = true
	}
	if t.After(c.last) {
		c.last = t
	}
	return t
}

// Phases returns the phases recorded so far.
func (c *Clock) Phases() Phases {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := Phases{StartFrom: c.from, WallS: c.last.Sub(c.origin).Seconds(), PeakRSSBytes: peakRSS()}
	for i, f := range p.fields() {
		if c.seen[i] {
			s := c.d[i].Seconds()
			*f = &s
		}
	}
	return p
}

// Phases are a run's phase times in seconds; a phase not (yet) reached is
// nil (JSON: absent). The phases add up to WallS.
type Phases struct {
	// WallS is the process's start (see StartFrom) to the last mark.
	WallS float64 `json:"wall_s"`
	// StartFrom says where the clock began: "process" (the kernel's
	// record of the process's start, to 10 ms) or "command" (the
	// command's start: Start is then 0).
	StartFrom string   `json:"start_from"`
	StartS    *float64 `json:"start_s,omitempty"`
	InputS    *float64 `json:"input_s,omitempty"`
	SetupS    *float64 `json:"setup_s,omitempty"`
	ComputeS  *float64 `json:"compute_s,omitempty"`
	WriteS    *float64 `json:"write_s,omitempty"`
	CloseS    *float64 `json:"close_s,omitempty"`
	// PeakRSSBytes is the process's peak resident memory so far (Linux's
	// VmHWM; 0 where unknown).
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

// fields are the phase fields in Phase order.
func (p *Phases) fields() [numPhases]**float64 {
	return [numPhases]**float64{&p.StartS, &p.InputS, &p.SetupS, &p.ComputeS, &p.WriteS, &p.CloseS}
}

// Seconds is phase q's time (0 when not reached).
func (p Phases) Seconds(q Phase) float64 {
	if q < 0 || q >= numPhases {
		return 0
	}
	if f := *p.fields()[q]; f != nil {
		return *f
	}
	return 0
}

// String is the summary line's form, the phases reached in order, to the
// millisecond: "wall 1.230 s: start 0.010, input 0.800, set-up 0.050,
// compute 0.300, write 0.050, close 0.020".
func (p Phases) String() string {
	var parts []string
	for i, f := range p.fields() {
		if *f != nil {
			parts = append(parts, fmt.Sprintf("%s %.3f", Phase(i), **f))
		}
	}
	return fmt.Sprintf("wall %.3f s: %s", p.WallS, strings.Join(parts, ", "))
}

// userHZ is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go supports but alpha (not a Go port), fixed by the
// kernel's ABI and not the scheduler's tick.
const userHZ = 100

// processAge is how long ago the process started: the system's uptime
// (/proc/uptime, 10 ms) less the process's start after boot
// (/proc/self/stat field 22, in USER_HZ ticks).
func processAge() (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	return ageFrom(string(stat), string(up))
}

// ageFrom parses /proc/self/stat and /proc/uptime. The command name
// (field 2) is in parentheses and may hold spaces and parentheses itself,
// so fields are counted after its last ")".
func ageFrom(stat, uptime string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	// After the name: field 3 (state) is f[0], so field 22 is f[19].
	if len(f) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, false
	}
	u := strings.Fields(uptime)
	if len(u) == 0 {
		return 0, false
	}
	upS, err := strconv.ParseFloat(u[0], 64)
	if err != nil || upS < 0 {
		return 0, false
	}
	age := upS - float64(ticks)/userHZ
	if age < 0 {
		// Both are rounded to 10 ms: a process younger than that.
		age = 0
	}
	return time.Duration(age * float64(time.Second)), true
}

// peakRSS is the process's peak resident set (VmHWM of
// /proc/self/status), 0 where unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return peakRSSFrom(string(b))
}

func peakRSSFrom(status string) int64 {
	for _, line := range strings.Split(status, "\n") {
		v, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}
