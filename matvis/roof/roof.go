// Package roof holds the roofline's machine limits: the ceilings a
// profile draws and the interface through which a backend measures them.
// It is a leaf package beside the backends, not under matvis/profile, so
// that backends implement CeilingMeter without importing anything of the
// profiler's (which imports the backends).
package roof

import "context"

// Ceiling is one measured or published limit of a machine: a bandwidth in
// bytes/s or a compute rate in FLOP/s.
type Ceiling struct {
	Name     string  `json:"name"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"` // "B/s" or "FLOP/s"
	Measured bool    `json:"measured"`
	Note     string  `json:"note,omitempty"`
}

// Ceilings are a device's roofs.
type Ceilings struct {
	Device    string    `json:"device"`
	Bandwidth []Ceiling `json:"bandwidth"`
	Compute   []Ceiling `json:"compute"`
}

// GramShape is the Gram product of one chunk: C (M×M) = Z·Zᴴ with Z M×K.
type GramShape struct {
	M         int `json:"m"`
	K         int `json:"k"`
	Precision int `json:"precision"`
}

// CeilingMeter measures a device's ceilings, the Gram product at the run's
// exact shape among them. The CPU's is matvis/profile's CPUMeter; the GPU
// backend (matvis/gpu) implements it through cuBLAS with CUDA events.
type CeilingMeter interface {
	MeasureCeilings(ctx context.Context, shape GramShape) (Ceilings, error)
}
