package profile

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// closeRel says a and b agree to 1e-12 relative.
func closeRel(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

func TestStageFloorTime(t *testing.T) {
	// Hand-computed: 2e12 FLOPs at 1e12 FLOP/s is 2 s; 3e12 bytes at
	// 1e12 B/s is 3 s: memory-bound, floor 3 s.
	cases := []struct {
		name                   string
		w                      StageWork
		rate, bw               float64
		compute, memory, floor float64
		bound                  string
	}{
		{"memory-bound", StageWork{FLOPs: 2e12, Bytes: 3e12}, 1e12, 1e12, 2, 3, 3, "memory"},
		{"compute-bound", StageWork{FLOPs: 8e12, Bytes: 1e12}, 2e12, 4e12, 4, 0.25, 4, "compute"},
		// The ridge point: intensity = rate / bandwidth = 10 FLOP/byte;
		// both terms are 1 s.
		{"at the ridge", StageWork{FLOPs: 1e13, Bytes: 1e12}, 1e13, 1e12, 1, 1, 1, "memory"},
		{"no compute roof", StageWork{FLOPs: 5, Bytes: 10}, 0, 5, 0, 2, 2, "memory"},
		{"no bandwidth roof", StageWork{FLOPs: 6, Bytes: 10}, 3, 0, 2, 0, 2, "compute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			comp, mem, fl, bound := StageFloorTime(c.w, c.rate, c.bw)
			if !closeRel(comp, c.compute) || !closeRel(mem, c.memory) || !closeRel(fl, c.floor) || bound != c.bound {
				t.Errorf("got compute %g, memory %g, floor %g, %s; want %g, %g, %g, %s",
					comp, mem, fl, bound, c.compute, c.memory, c.floor, c.bound)
			}
		})
	}
}

// floorReport is a report with a hand-made roofline: two chunks per
// integration, a 10 ms steady wall, measured roofs 1e12 B/s and a Gram
// rate of 1e14 FLOP/s, on device.
func floorReport(device string, precision int) *Report {
	rep := &Report{Machine: Machine{GPU: device}}
	rep.Derived.ChunksPerIntegration = 2
	rep.Derived.SteadyWallPerIntegration = 0.010
	rep.Roofline = &Roofline{
		Ceilings: Ceilings{Device: device,
			Bandwidth: []Ceiling{{Name: "copy", Value: 1e12, Unit: "B/s", Measured: true}},
			Compute:   []Ceiling{{Name: "gram", Value: 1e14, Unit: "FLOP/s", Measured: true}},
		},
		Shape: GramShape{M: 10, K: 10, Precision: precision},
		Points: []StagePoint{
			// 1e9 bytes per chunk, 1e9 FLOPs: memory-bound everywhere.
			{StageWork: StageWork{Stage: "tau_z", FLOPs: 1e9, Bytes: 1e9}, Seconds: 0.002},
			// 1e11 FLOPs per chunk, 1e8 bytes: compute-bound.
			{StageWork: StageWork{Stage: "matprod", FLOPs: 1e11, Bytes: 1e8}, Seconds: 0.0025},
		},
	}
	AddDatasheet(&rep.Roofline.Ceilings, device)
	return rep
}

func TestComputeFloorMeasuredCPU(t *testing.T) {
	rep := floorReport("", 1)
	f := ComputeFloor(rep, RoofsMeasured)
	if f == nil {
		t.Fatal("no measured floor")
	}
	// Per integration (2 chunks): tau_z 2e9 bytes / 1e12 = 2 ms (its 2e9
	// FLOPs at the Gram rate, the only compute roof, 0.02 ms); matprod
	// 2e11 FLOPs / 1e14 = 2 ms (2e8 bytes: 0.2 ms). Total 4 ms.
	want := []struct {
		stage, bound     string
		floor, measured  float64
		fraction, compSe float64
	}{
		{"tau_z", "memory", 0.002, 0.004, 0.5, 2e-5},
		{"matprod", "compute", 0.002, 0.005, 0.4, 0.002},
	}
	if len(f.Stages) != len(want) {
		t.Fatalf("%d stages, want %d", len(f.Stages), len(want))
	}
	for i, w := range want {
		s := f.Stages[i]
		if s.Stage != w.stage || s.Bound != w.bound || !closeRel(s.Seconds, w.floor) || !closeRel(s.Measured, w.measured) ||
			!closeRel(s.Fraction, w.fraction) || !closeRel(s.ComputeSeconds, w.compSe) {
			t.Errorf("stage %d: %+v, want %+v", i, s, w)
		}
	}
	if !closeRel(f.PerIntegration, 0.004) || !closeRel(f.StageTime, 0.009) || !closeRel(f.FractionOfStageTime, 4.0/9) ||
		!closeRel(f.FractionAchieved, 0.4) {
		t.Errorf("total %g s over stages %g s (%g) and wall (%g); want 0.004, 0.009, 4/9, 0.4",
			f.PerIntegration, f.StageTime, f.FractionOfStageTime, f.FractionAchieved)
	}
	if ComputeFloor(rep, RoofsDatasheet) != nil {
		t.Error("a CPU has no datasheet floor")
	}
}

func TestComputeFloorDatasheetH200(t *testing.T) {
	cases := []struct {
		precision int
		gramRate  float64 // H200 datasheet: FP16 tensor 989.5 TFLOP/s / 3 in fp32, FP64 tensor 67 in fp64
	}{
		{1, 989.5e12 / 3},
		{2, 67e12},
	}
	for _, c := range cases {
		rep := floorReport("NVIDIA H200", c.precision)
		f := ComputeFloor(rep, RoofsDatasheet)
		if f == nil {
			t.Fatalf("precision %d: no datasheet floor", c.precision)
		}
		// tau_z: 2e9 bytes / 4.8e12 B/s; its FLOPs at 67e12 are less.
		tau := 2e9 / 4.8e12
		// matprod: max(2e11 / gram rate, 2e8 / 4.8e12).
		mat := math.Max(2e11/c.gramRate, 2e8/4.8e12)
		if got := f.Stages[0]; !closeRel(got.Seconds, tau) || got.ComputeRate != 67e12 || got.Bound != "memory" {
			t.Errorf("precision %d tau_z: %+v, want floor %g at 67e12", c.precision, got, tau)
		}
		if got := f.Stages[1]; !closeRel(got.Seconds, mat) || !closeRel(got.ComputeRate, c.gramRate) {
			t.Errorf("precision %d matprod: %+v, want floor %g at %g", c.precision, got, mat, c.gramRate)
		}
		if !closeRel(f.PerIntegration, tau+mat) || !closeRel(f.FractionAchieved, (tau+mat)/0.010) {
			t.Errorf("precision %d: total %g (fraction %g), want %g (%g)", c.precision, f.PerIntegration, f.FractionAchieved, tau+mat, (tau+mat)/0.010)
		}
		// The measured set's element-wise stages use the datasheet's
		// FP32 rate (nothing measures it), the Gram product the measured.
		m := ComputeFloor(rep, RoofsMeasured)
		if m.Stages[0].ComputeRate != 67e12 || m.Stages[1].ComputeRate != 1e14 || m.Stages[0].Bandwidth != 1e12 {
			t.Errorf("precision %d measured roofs: %+v", c.precision, m.Stages)
		}
	}
}

func TestComputeFloorAbsent(t *testing.T) {
	if ComputeFloor(&Report{}, RoofsMeasured) != nil {
		t.Error("a floor without a roofline")
	}
	rep := floorReport("", 1)
	rep.Roofline.Ceilings.Compute = nil
	if ComputeFloor(rep, RoofsMeasured) != nil {
		t.Error("a measured floor without a measured compute roof")
	}
	if ComputeFloor(floorReport("", 1), "guessed") != nil {
		t.Error("a floor for an unknown roof set")
	}
}

// TestCommittedFloor checks the floor of the committed H200 prodslice
// profile against the arithmetic done by hand from its roofline's counts
// (per chunk, 30 chunks; bench/profiles/gpu-prodslice.json) and the
// datasheet's roofs.
func TestCommittedFloor(t *testing.T) {
	rep, err := ReadJSON("../../bench/profiles/gpu-prodslice.json")
	if err != nil {
		t.Fatal(err)
	}
	Rederive(rep)
	f := rep.Derived.FloorDatasheet
	if f == nil {
		t.Fatal("no datasheet floor for the H200 profile")
	}
	var want float64
	for _, p := range rep.Roofline.Points {
		rate := 67e12
		if p.Stage == "matprod" {
			rate = 989.5e12 / 3
		}
		want += 30 * math.Max(p.FLOPs/rate, p.Bytes/4.8e12)
	}
	if !closeRel(f.PerIntegration, want) {
		t.Errorf("datasheet floor %g s, want %g", f.PerIntegration, want)
	}
	if frac := want / rep.Derived.SteadyWallPerIntegration; !closeRel(f.FractionAchieved, frac) || frac <= 0 || frac >= 1 {
		t.Errorf("fraction achieved %g, want %g in (0, 1)", f.FractionAchieved, frac)
	}
	lines := rep.FloorLines()
	if len(lines) != 2 || !strings.Contains(lines[0], "measured roofs") || !strings.Contains(lines[1], "datasheet roofs") {
		t.Errorf("floor lines %q", lines)
	}
}

// TestFloorInFigures: the stage figure draws both floors of the H200
// profile as levels and the roofline's caption states them.
func TestFloorInFigures(t *testing.T) {
	rep, err := ReadJSON("../../bench/profiles/gpu-prodslice.json")
	if err != nil {
		t.Fatal(err)
	}
	Rederive(rep)
	st, err := StageFigure("stages", []*Report{rep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var levels int
	for _, s := range st.Series {
		if strings.HasPrefix(s.Name, "floor: least time at the ") && s.Kind == "line" {
			levels++
		}
	}
	if levels != 2 {
		t.Errorf("stage figure: %d floor lines, want 2 (measured, datasheet): %+v", levels, st.Series)
	}
	rl, err := RooflineFigure(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := seconds(rep.Derived.FloorDatasheet.PerIntegration) + " at the datasheet roofs"
	if !slices.ContainsFunc(rl.Caption, func(c string) bool { return strings.Contains(c, want) }) {
		t.Errorf("roofline caption %q lacks %q", rl.Caption, want)
	}
}

// TestFloorGramStages: the Gram roof goes to the stages that hold the
// product (matprod, or the kernel that fuses it with Z), the element-wise
// roof to the others.
func TestFloorGramStages(t *testing.T) {
	for _, c := range []struct {
		stage string
		gram  bool
	}{{"matprod", true}, {StageGramFused, true}, {StageBeamTauZ, false}, {"coords", false}, {"beam", false}} {
		rep := floorReport("NVIDIA H200", 1)
		rep.Roofline.Points = []StagePoint{{StageWork: StageWork{Stage: c.stage, FLOPs: 1e12, Bytes: 1}, Seconds: 1}}
		f := ComputeFloor(rep, RoofsDatasheet)
		want := 67e12
		if c.gram {
			want = 989.5e12 / 3
		}
		if got := f.Stages[0].ComputeRate; !closeRel(got, want) {
			t.Errorf("%s: compute roof %g, want %g", c.stage, got, want)
		}
	}
}
