package gpu

import "unsafe"

// beamDesc is one beam's descriptor as the beam kernels read it: the
// BeamDesc of matvis/gpu/vis_beam.cuh, field for field. TestDescriptorLayout
// checks these offsets against the header's struct; the header's
// static_asserts check its size against descriptorDefines, so a change on
// one side alone fails in CI, and a change of size at compile time too.
type beamDesc struct {
	// Off is a gridded beam's first value in the packed planes (complex
	// values; 0 for an analytic beam).
	Off int64
	// Kind is an analytic beam's KIND_* (kindNone: gridded).
	Kind int32
	// Geom is a gridded beam's GeomDesc index (-1: analytic).
	Geom int32
	// Par is an analytic beam's parameter at the channel's frequency.
	Par float64
	_   float64 // 32 bytes, two 16-byte loads
}

// geomDesc is one grid geometry of the gridded beams: the GeomDesc of
// matvis/gpu/vis_beam.cuh (matvis/beam PlaneGrid's za/az origin and inverse
// spacing, its size, spline order and whether the planes are powers whose
// square root is taken after interpolation).
type geomDesc struct {
	Za0, ZScale, Az0, AScale   float64
	NZa, NAz, Order, SqrtAfter int32
}

// analyticDesc is the descriptor of an analytic beam of kind with par.
func analyticDesc(kind int32, par float64) beamDesc {
	return beamDesc{Kind: kind, Geom: -1, Par: par}
}

// nodes is the geometry's grid nodes.
func (g geomDesc) nodes() int { return int(g.NZa) * int(g.NAz) }

// descriptorDefines are the Go descriptors' sizes as -D macros, matched
// by vis_beam.cuh's static_asserts (the field offsets are compared with
// the header's declarations by TestDescriptorLayout).
func descriptorDefines() []struct {
	name string
	v    int
} {
	return []struct {
		name string
		v    int
	}{{"BEAM_DESC_BYTES", int(unsafe.Sizeof(beamDesc{}))}, {"GEOM_DESC_BYTES", int(unsafe.Sizeof(geomDesc{}))}}
}
