package beam

// Uniform is pyuvdata's UniformBeam: power 1 everywhere.
type Uniform struct{}

// KindUniform is Uniform's form: g = 1, no parameters.
const KindUniform Kind = 0

var _ = registerAnalytic(AnalyticType{
	Kind: KindUniform, Name: "uniform", Class: "UniformBeam", Diagonal: true,
	New: func(Shape) (Beam, error) { return Uniform{}, nil },
})

// String describes the beam.
func (Uniform) String() string { return "uniform" }

// At prepares the beam (frequency-independent).
func (Uniform) At(freqHz float64, mode Mode) (Response, error) {
	return powerResponse{mode, func(float64) float64 { return 1 }}, nil
}

// AnalyticForm is KindUniform.
func (Uniform) AnalyticForm(float64) (Form, error) { return Form{Kind: KindUniform}, nil }
