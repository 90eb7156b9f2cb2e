// Package matvis is the simulator library of gomatvis: a Go re-implementation
// of HERA's matvis. Per frequency ν and time t it rotates point sources to
// topocentric East-North-Up, drops those at or below the horizon, evaluates
// each unique beam at each source, forms
//
//	Z[(ant, feed), (axis, src)] = A·√(I/2)·exp(+i·2πν·x_a·ŝ/c)
//
// and the visibilities V_ij = Σ conj(Z_i)·Z_j as a Hermitian rank-k update.
// Signs, orderings and shapes follow docs/matvis-conventions.md.
//
// A Simulation is built from Go values (Config, New) — or from a simspec
// or a pyuvsim configuration by package matvis/input, which holds the file
// formats' glue so that this core imports none of them — planned against
// a memory budget (PlanMemory), and run by a Backend (package matvis/cpu,
// or matvis/gpu where a CUDA device exists):
//
//	sim, err := input.FromSpecFile("spec.json", nil)
//	res, err := cpu.New().Run(ctx, sim)
//	v := res.At(freq, time, pair, p, q)
package matvis
