package profile

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/matvis/shard"
)

// Season is the size of a long run (e.g. a full observing season) whose
// cost is estimated from a measured profile.
type Season struct {
	NAnt, NSrc, NFreq, NTimes int
}

// Integrations is the number of (frequency, time) integrations.
func (s Season) Integrations() int64 { return int64(s.NFreq) * int64(s.NTimes) }

// SeasonOptions say how a season is cut into Slurm array tasks and name
// what the printed command runs.
type SeasonOptions struct {
	// TaskTime is the Slurm time limit per array task (--time).
	TaskTime time.Duration
	// Fill is the fraction of TaskTime a task's estimated time may take,
	// the rest a margin for the estimate's error (0: 0.8).
	Fill float64
	// Spec, Out and Workdir are the slurm command's configuration,
	// merged output and shared directory (placeholders when empty).
	Spec, Out, Workdir string
}

// SeasonCost is a season's estimated cost on the profiled device.
//
// The scaling it assumes, from the profile's size (RefNAnt antennas,
// RefNSrc sources) to the season's: the time per integration is the
// profile's steady wall per integration, linear in sources (every stage
// works per source, the horizon keeping the same visible fraction), and
// in antennas split by stage: the Gram product (share MatProdShare of the
// profile's stage time) as M²·K, everything else as M·K (an upper bound
// for the coordinate stage, which does not grow with antennas). The
// season's integrations are independent: the total is linear in them.
// RunOverhead — the profile's measured run wall not in its set-up or its
// integrations' walls, per channel — is charged once per channel of each
// task (conservative: it may be per run), unscaled.
type SeasonCost struct {
	Season
	RefNAnt, RefNSrc int
	// RefPerIntegration is the profile's steady wall per integration (s).
	RefPerIntegration float64
	// MatProdShare is the Gram product's share of the profile's stage
	// time per integration (integrations after the first).
	MatProdShare float64
	// PerIntegration is the scaled time per integration (s).
	PerIntegration float64
	// RunOverhead is the per-channel run overhead charged per task (s).
	RunOverhead float64
	// DeviceHours is the whole season's device time, every task's
	// integrations and overheads, in hours (GPU-hours on a GPU profile).
	DeviceHours float64
	// Tasks is the fewest array tasks (to 1 % above 100) whose longest
	// estimated time, TaskSeconds, fits in Fill of the time limit.
	Tasks       int
	TaskSeconds float64
	// Command is the gomatvis slurm command that runs the season.
	Command string
}

// EstimateSeason scales a profile's measured time per integration to
// season s (see SeasonCost for the assumptions) and finds the number of
// Slurm array tasks that keeps each within o.TaskTime.
func EstimateSeason(rep *Report, s Season, o SeasonOptions) (SeasonCost, error) {
	c := SeasonCost{Season: s}
	if rep == nil {
		return c, errors.New("profile: season: no profile")
	}
	if s.NAnt < 1 || s.NSrc < 1 || s.NFreq < 1 || s.NTimes < 1 {
		return c, fmt.Errorf("profile: season %+v: every count must be at least 1", s)
	}
	if o.Fill == 0 {
		o.Fill = 0.8
	}
	if o.TaskTime <= 0 || o.Fill < 0 || o.Fill > 1 {
		return c, fmt.Errorf("profile: season: task time %v, fill %g: want a positive time and a fill in (0, 1]", o.TaskTime, o.Fill)
	}
	c.RefNAnt, c.RefNSrc = rep.Config.NAnt, rep.Config.NSrc
	c.RefPerIntegration = rep.Derived.SteadyWallPerIntegration
	if c.RefNAnt < 1 || c.RefNSrc < 1 || !(c.RefPerIntegration > 0) {
		return c, fmt.Errorf("profile: season: the profile has %d antennas, %d sources, %g s per integration: nothing to scale", c.RefNAnt, c.RefNSrc, c.RefPerIntegration)
	}
	c.MatProdShare = matProdShare(rep)
	a := float64(s.NAnt) / float64(c.RefNAnt)
	c.PerIntegration = c.RefPerIntegration * float64(s.NSrc) / float64(c.RefNSrc) * (c.MatProdShare*a*a + (1-c.MatProdShare)*a)
	c.RunOverhead = runOverhead(rep)
	limit := o.TaskTime.Seconds() * o.Fill
	tasks, longest, total, err := fitTasks(s, c.PerIntegration, c.RunOverhead, limit)
	if err != nil {
		return c, err
	}
	c.Tasks, c.TaskSeconds, c.DeviceHours = tasks, longest, total/3600
	c.Command = slurmCommand(rep.Config.Backend, c.Tasks, o)
	return c, nil
}

// matProdShare is the matprod stage's share of the stage time summed over
// the integrations after the first (all of it when the Gram product is
// fused with the stages before it; 1 when nothing was timed, the
// conservative choice).
func matProdShare(rep *Report) float64 {
	if rep.GramFused {
		return 1
	}
	per := rep.PerIntegration
	if len(per) > 1 {
		per = per[1:]
	}
	var mp, all float64
	for _, in := range per {
		for k, v := range in.Stages {
			all += v
			if k == "matprod" {
				mp += v
			}
		}
	}
	if all <= 0 {
		return 1
	}
	return mp / all
}

// runOverhead is the profile's measured run wall outside its set-up and
// its integrations, per channel (0 when the walls account for all of it).
func runOverhead(rep *Report) float64 {
	walls := 0.0
	for _, in := range rep.PerIntegration {
		walls += in.Wall
	}
	o := rep.Timing.Run - rep.Timing.Setup - walls
	return max(0, o) / float64(max(1, rep.Config.NFreq))
}

// fitTasks finds the fewest tasks (shard.Split's blocks, as slurm cuts
// them) whose longest estimated time is within limit seconds, and returns
// it with that time and the total over the tasks.
func fitTasks(s Season, perInt, overhead, limit float64) (tasks int, longest, total float64, err error) {
	n := s.Integrations()
	work := float64(n) * perInt
	// The least count that could fit, then up until the longest task fits.
	lo := max(1, int(math.Ceil(work/limit)))
	for k := lo; int64(k) <= n; k = next(k) {
		blocks, err := shard.Split(s.NFreq, s.NTimes, k)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("profile: season: %w", err)
		}
		longest, total = 0, 0
		for _, b := range blocks {
			t := float64(b.Size())*perInt + float64(b.NFreq())*overhead
			longest, total = max(longest, t), total+t
		}
		if longest <= limit {
			return k, longest, total, nil
		}
	}
	return 0, 0, 0, fmt.Errorf("profile: season: one integration (%.3g s) and its channel overhead (%.3g s) do not fit in a task's %.3g s", perInt, overhead, limit)
}

// next is the next task count to try: one more, or 1 % more once large.
func next(k int) int { return k + max(1, k/100) }

// slurmCommand is the gomatvis slurm command for the season.
func slurmCommand(backend string, tasks int, o SeasonOptions) string {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	if backend == "" || backend == "auto" {
		backend = "gpu"
	}
	args := []string{"gomatvis slurm", or(o.Spec, "SEASON.json"), "--tasks", fmt.Sprint(tasks),
		"--backend", backend, "--time", SlurmTime(o.TaskTime),
		"--workdir", or(o.Workdir, "WORKDIR"), "-o", or(o.Out, "season.uvh5"), "--submit"}
	return strings.Join(args, " ")
}

// SlurmTime formats d as Slurm's time limit, rounded up to the minute:
// HH:MM:SS, or D-HH:MM:SS from a day on.
func SlurmTime(d time.Duration) string {
	m := int64(math.Ceil(d.Minutes()))
	days, h, min := m/(24*60), m/60%24, m%60
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:00", days, h, min)
	}
	return fmt.Sprintf("%02d:%02d:00", h, min)
}
