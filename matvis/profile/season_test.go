package profile

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seasonReport is a profile of 100 antennas and 1000 sources: 2
// integrations of 1 channel, 0.1 s each, the Gram product 3/4 of the stage
// time, a run of 1.3 s of which 0.1 s set-up (so 1 s of overhead).
func seasonReport() *Report {
	in := IntegrationSample{Wall: 0.1, Stages: map[string]float64{"matprod": 0.06, "tau_z": 0.02}}
	return &Report{
		Config:         Config{NAnt: 100, NSrc: 1000, NFreq: 1, NTimes: 2, Backend: "gpu"},
		Derived:        Derived{SteadyWallPerIntegration: 0.1},
		Timing:         Timing{Setup: 0.1, Run: 1.3},
		PerIntegration: []IntegrationSample{in, in},
	}
}

func TestEstimateSeason(t *testing.T) {
	hour := time.Hour
	for _, c := range []struct {
		name    string
		s       Season
		o       SeasonOptions
		perInt  float64 // s
		tasks   int
		longest float64 // s
	}{
		// Same size: 0.1 s per integration, 1 s per channel per task.
		{"profile size", Season{100, 1000, 1, 10}, SeasonOptions{TaskTime: hour}, 0.1, 1, 2},
		// Twice the sources: linear.
		{"sources ×2", Season{100, 2000, 1, 10}, SeasonOptions{TaskTime: hour}, 0.2, 1, 3},
		// Twice the antennas: ¾·4 + ¼·2 = 3.5×.
		{"antennas ×2", Season{200, 1000, 1, 10}, SeasonOptions{TaskTime: hour}, 0.35, 1, 4.5},
		// 4 channels × 100 times of 1 s (10× sources) = 400 s + 4 s
		// overhead per task: limit 0.5 × 200 s = 100 s → 5 tasks of 80 s
		// + 4 s (time blocks of 20 times).
		{"split in tasks", Season{100, 10000, 4, 100}, SeasonOptions{TaskTime: 200 * time.Second, Fill: 0.5}, 1, 5, 84},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := EstimateSeason(seasonReport(), c.s, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.PerIntegration-c.perInt) > 1e-12 || got.Tasks != c.tasks || math.Abs(got.TaskSeconds-c.longest) > 1e-9 {
				t.Errorf("per integration %g s, %d tasks, longest %g s; want %g, %d, %g", got.PerIntegration, got.Tasks, got.TaskSeconds, c.perInt, c.tasks, c.longest)
			}
			wantHours := (float64(c.s.Integrations())*c.perInt + float64(c.tasks*c.s.NFreq)) / 3600
			if c.tasks > c.s.NTimes {
				t.Fatalf("test case splits channels: adjust wantHours")
			}
			if math.Abs(got.DeviceHours-wantHours) > 1e-9 {
				t.Errorf("%g device hours, want %g", got.DeviceHours, wantHours)
			}
			if math.Abs(got.MatProdShare-0.75) > 1e-12 || math.Abs(got.RunOverhead-1) > 1e-12 {
				t.Errorf("matprod share %g, overhead %g; want 0.75, 1", got.MatProdShare, got.RunOverhead)
			}
			if !strings.Contains(got.Command, "--tasks "+strconv.Itoa(c.tasks)+" ") || !strings.Contains(got.Command, "--backend gpu") {
				t.Errorf("command %q", got.Command)
			}
		})
	}
}

func TestEstimateSeasonRefuses(t *testing.T) {
	empty := seasonReport()
	empty.Derived.SteadyWallPerIntegration = 0
	for _, c := range []struct {
		name string
		rep  *Report
		s    Season
		o    SeasonOptions
	}{
		{"no profile", nil, Season{1, 1, 1, 1}, SeasonOptions{TaskTime: time.Hour}},
		{"empty season", seasonReport(), Season{1, 0, 1, 1}, SeasonOptions{TaskTime: time.Hour}},
		{"no task time", seasonReport(), Season{1, 1, 1, 1}, SeasonOptions{}},
		{"fill above 1", seasonReport(), Season{1, 1, 1, 1}, SeasonOptions{TaskTime: time.Hour, Fill: 2}},
		{"no time per integration", empty, Season{1, 1, 1, 1}, SeasonOptions{TaskTime: time.Hour}},
		// 1 s of overhead per channel: a task of one integration needs 1.1 s.
		{"task too short", seasonReport(), Season{100, 1000, 1, 1}, SeasonOptions{TaskTime: time.Second, Fill: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, err := EstimateSeason(c.rep, c.s, c.o); err == nil {
				t.Errorf("no error: %+v", got)
			}
		})
	}
}

func TestSlurmTime(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{4 * time.Hour, "04:00:00"},
		{90*time.Minute + time.Second, "01:31:00"},
		{49 * time.Hour, "2-01:00:00"},
	} {
		if got := SlurmTime(c.d); got != c.want {
			t.Errorf("SlurmTime(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
