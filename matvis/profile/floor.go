package profile

import (
	"fmt"
	"strings"
)

// The floor is the least time an integration could take on a machine: each
// stage's counted work (CountWork) at the machine's limits, the slower of
// its arithmetic at the compute roof and its memory traffic at the
// bandwidth roof,
//
//	floor(stage) = max(FLOPs / compute roof, bytes / bandwidth),
//
// summed over the stages and the chunks of an integration. A stage can
// overlap neither its own arithmetic with its traffic better than that nor
// run faster than both, so the floor is a lower bound for the counted work
// (the counts themselves are lower bounds: CountWork). The time measured
// over the floor says how much could still be gained.

// Roof sets a floor is computed from.
const (
	// RoofsMeasured are the ceilings measured on the machine that ran the
	// profile (the copy bandwidth, the Gram product at the run's shape).
	RoofsMeasured = "measured"
	// RoofsDatasheet are the device's published peak rates (Datasheet).
	RoofsDatasheet = "datasheet"
)

// StageFloor is one stage's floor per integration.
type StageFloor struct {
	Stage string `json:"stage"`
	// FLOPs and Bytes are the stage's counted work per integration (the
	// roofline's per-chunk counts × chunks per integration).
	FLOPs float64 `json:"flops"`
	Bytes float64 `json:"bytes"`
	// ComputeRoof names the arithmetic roof used for this stage and
	// ComputeRate is its value (FLOP/s); Bandwidth the memory roof (B/s).
	ComputeRoof string  `json:"compute_roof"`
	ComputeRate float64 `json:"compute_flops_per_s"`
	Bandwidth   float64 `json:"bandwidth_bytes_per_s"`
	// ComputeSeconds = FLOPs / ComputeRate, MemorySeconds = Bytes /
	// Bandwidth; Seconds is the larger, and Bound names which it is
	// ("compute" or "memory").
	ComputeSeconds float64 `json:"compute_s"`
	MemorySeconds  float64 `json:"memory_s"`
	Seconds        float64 `json:"floor_s"`
	Bound          string  `json:"bound"`
	// Measured is the stage's measured time per integration (its
	// roofline time per chunk × chunks) and Fraction = Seconds / Measured,
	// the share of the attainable speed the stage reached (0 when not
	// measured). Above 1 the measured roof was not a hard limit.
	Measured float64 `json:"measured_s"`
	Fraction float64 `json:"fraction_achieved"`
}

// Floor is the least time per integration at one set of roofs.
type Floor struct {
	// Roofs is RoofsMeasured or RoofsDatasheet; BandwidthRoof names the
	// bandwidth ceiling used.
	Roofs         string       `json:"roofs"`
	BandwidthRoof string       `json:"bandwidth_roof"`
	Stages        []StageFloor `json:"stages"`
	// PerIntegration is the sum of the stages' floors (s).
	PerIntegration float64 `json:"per_integration_s"`
	// StageTime is the stages' measured time per integration (the sum of
	// Stages' Measured) and FractionOfStageTime = PerIntegration over it.
	StageTime           float64 `json:"stage_time_per_integration_s"`
	FractionOfStageTime float64 `json:"fraction_of_stage_time"`
	// FractionAchieved is PerIntegration over the steady wall per
	// integration (Derived.SteadyWallPerIntegration): the share of the
	// attainable speed an integration of the run reached, host time
	// between the stages included.
	FractionAchieved float64 `json:"fraction_achieved"`
}

// StageFloorTime is the floor of work at a compute rate (FLOP/s) and a
// bandwidth (B/s): max(FLOPs / rate, bytes / bandwidth), with each term
// and which of the two bounds it. A rate or bandwidth that is not positive
// contributes no term (the stage is then bound by the other).
func StageFloorTime(w StageWork, rate, bandwidth float64) (compute, memory, floor float64, bound string) {
	if rate > 0 {
		compute = w.FLOPs / rate
	}
	if bandwidth > 0 {
		memory = w.Bytes / bandwidth
	}
	if compute > memory {
		return compute, memory, compute, "compute"
	}
	return compute, memory, memory, "memory"
}

// floorRoofs are the roofs one floor uses: the bandwidth, the rate of the
// Gram product and the rate of the other (element-wise) stages.
type floorRoofs struct {
	bandwidth, gram, other Ceiling
}

// isGramStage says the stage holds the Gram product.
func isGramStage(stage string) bool { return stage == "matprod" || stage == StageGramFused }

// pickRoofs chooses a floor's roofs from c. Measured: the highest measured
// bandwidth and Gram rate; the element-wise stages get the datasheet's
// non-tensor rate where the device has one (nothing measures it), else the
// measured Gram rate, the fastest arithmetic measured on the machine.
// Datasheet: the published bandwidth; for the Gram product in float32 the
// FP16 tensor rate over 3 (float32 accuracy from FP16 tensor cores takes
// operands split in two halves and three products per term, docs/gram.md),
// in float64 the FP64 tensor rate; the element-wise stages the FP32 rate.
// ok is false when a set lacks a bandwidth or any compute roof.
func pickRoofs(c Ceilings, set string, device string, precision int) (r floorRoofs, ok bool) {
	best := func(cs []Ceiling, measured bool) (Ceiling, bool) {
		var out Ceiling
		for _, x := range cs {
			if x.Measured == measured && x.Value > out.Value {
				out = x
			}
		}
		return out, out.Value > 0
	}
	ds, hasDS := datasheetRoofs(device)
	switch set {
	case RoofsMeasured:
		bw, okB := best(c.Bandwidth, true)
		g, okG := best(c.Compute, true)
		if !okB || !okG {
			return r, false
		}
		r = floorRoofs{bandwidth: bw, gram: g, other: g}
		if hasDS {
			r.other = ds.fp32
		}
		return r, true
	case RoofsDatasheet:
		if !hasDS {
			return r, false
		}
		r = floorRoofs{bandwidth: ds.hbm, other: ds.fp32, gram: ds.fp64Tensor}
		if precision <= 1 {
			r.gram = Ceiling{Name: ds.fp16Tensor.Name + " / 3 (split FP16: three products per term)",
				Value: ds.fp16Tensor.Value / 3, Unit: "FLOP/s"}
		}
		return r, true
	}
	return r, false
}

// ComputeFloor is the floor of rep's roofline stages at one roof set
// (RoofsMeasured or RoofsDatasheet), nil when the report has no roofline
// or the set's roofs are not known for its machine.
func ComputeFloor(rep *Report, set string) *Floor {
	rl := rep.Roofline
	if rl == nil || len(rl.Points) == 0 {
		return nil
	}
	device := rep.Machine.GPU
	if device == "" {
		device = rl.Ceilings.Device
	}
	roofs, ok := pickRoofs(rl.Ceilings, set, device, rl.Shape.Precision)
	if !ok {
		return nil
	}
	chunks := float64(max(1, rep.Derived.ChunksPerIntegration))
	f := &Floor{Roofs: set, BandwidthRoof: roofs.bandwidth.Name}
	for _, p := range rl.Points {
		rate := roofs.other
		if isGramStage(p.Stage) {
			rate = roofs.gram
		}
		w := StageWork{Stage: p.Stage, FLOPs: p.FLOPs * chunks, Bytes: p.Bytes * chunks}
		comp, mem, fl, bound := StageFloorTime(w, rate.Value, roofs.bandwidth.Value)
		s := StageFloor{
			Stage: p.Stage, FLOPs: w.FLOPs, Bytes: w.Bytes,
			ComputeRoof: rate.Name, ComputeRate: rate.Value, Bandwidth: roofs.bandwidth.Value,
			ComputeSeconds: comp, MemorySeconds: mem, Seconds: fl, Bound: bound,
			Measured: p.Seconds * chunks,
		}
		s.Fraction = ratio(s.Seconds, s.Measured)
		f.Stages = append(f.Stages, s)
		f.PerIntegration += s.Seconds
		f.StageTime += s.Measured
	}
	f.FractionOfStageTime = ratio(f.PerIntegration, f.StageTime)
	f.FractionAchieved = ratio(f.PerIntegration, rep.Derived.SteadyWallPerIntegration)
	return f
}

// ratio is a / b, 0 when b is not positive.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// SetFloors fills Derived's floors from the report's roofline (again
// after its ceilings change).
func SetFloors(rep *Report) {
	rep.Derived.FloorMeasured = ComputeFloor(rep, RoofsMeasured)
	rep.Derived.FloorDatasheet = ComputeFloor(rep, RoofsDatasheet)
}

// FloorLines are the console's lines for the floors, e.g. "floor per
// integration 14 ms at the measured roofs, 78 % achieved
// (derived.floor_measured); …" and the stages' floors; none without a
// roofline. The fraction is of the steady wall per integration, which the
// console does not print (one headline number: Headline).
func (rep *Report) FloorLines() []string {
	var out []string
	for _, f := range []*Floor{rep.Derived.FloorMeasured, rep.Derived.FloorDatasheet} {
		if f == nil {
			continue
		}
		var parts []string
		for _, s := range f.Stages {
			parts = append(parts, fmt.Sprintf("%s %s %s-bound", s.Stage, seconds(s.Seconds), s.Bound))
		}
		out = append(out, fmt.Sprintf("floor per integration %s at the %s roofs, %.0f %% achieved (derived.floor_%s); %s",
			seconds(f.PerIntegration), f.Roofs, 100*f.FractionAchieved, f.Roofs, strings.Join(parts, ", ")))
	}
	return out
}

// seconds formats a time in ms below a second, else in s, 3 digits.
func seconds(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.3g ms", v*1e3)
	}
	return fmt.Sprintf("%.3g s", v)
}
