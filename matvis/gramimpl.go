package matvis

import (
	"fmt"
	"strings"
)

// FusedKernelName is how GramImpl names the GPU's kernel that makes Z and
// its Gram product in one launch.
const FusedKernelName = "fused beam+τ+Z+Gram kernel"

// GramImpl describes how a run did the Gram product (Stats.MatProdImpl):
// the fields for programs and tests, String for people (the CLI's summary,
// profiles and figures print it).
type GramImpl struct {
	// MatProd is the product asked for (Options.MatProd).
	MatProd MatProd
	// ExtractedPairs, when positive, says the requested pairs (this many)
	// were taken from the full Gram product rather than formed on their
	// own (the GPU's way of doing MatProdPairs).
	ExtractedPairs int
	// Strategy names the implementation: the CPU's herk routine,
	// "cuBLAS <strategy>", the tensor-core kernel (gpu.TensorCoreName) or
	// FusedKernelName.
	Strategy string
	// Why says how Strategy was chosen: "forced", a cached choice or a
	// measurement ("" when there was no choice).
	Why string
	// Fused says the Gram product ran inside the kernel that makes Z
	// (Strategy is FusedKernelName): the matprod stage then holds the beam,
	// τ and Z work too, and the tau_z stage is empty. Products describes
	// its multiplications and Blocks its grid (partial triangles summed in
	// float64).
	Fused    bool
	Products string
	Blocks   int
	// Stacked says the fused kernel read the beams stacked by grid node,
	// one warp per source.
	Stacked bool
	// NotFused says, for a run that could have used the fused kernel,
	// why it did not ("not used: <measurement>", "not available on this
	// device (<error>)").
	NotFused string
	// TilesComputed of the Gram product's TilesTotal tiles were computed,
	// those holding the requested pairs (TilesTotal 0: the whole product).
	TilesComputed, TilesTotal int
	// Transform, when not nil, says the product was a type-3 non-uniform
	// FFT's (matvis/nufftcpu, the GPU's transform path) and gives its
	// shape, which the profile's roofline counts the work of.
	Transform *TransformShape
	// Others are the different implementations other parts of the run
	// used (several devices, Merge).
	Others []GramImpl
}

// TransformShape is the shape of the type-3 transforms that made a run's
// visibilities.
type TransformShape struct {
	// Dim is the transform's dimension (2, or 3 with w-terms); Width the
	// spreading kernel's points per axis.
	Dim, Width int
	// Outer and Padded are the points of the outer (spreading) grid and
	// of the padded grid the FFT transforms, at the highest channel.
	Outer, Padded int
	// Targets are the baselines each transform is evaluated at; PerTime
	// the transforms of one integration (feed-pair products, w-term
	// terms), RealStrengths that their strengths are real (the FFT then
	// does half the work).
	Targets, PerTime int
	RealStrengths    bool
}

// IsZero reports whether g describes nothing.
func (g GramImpl) IsZero() bool { return g.String() == "" }

// String is the one-line description, e.g. "herk via cuBLAS cherk
// (measured at M=128 K=4096: …)".
func (g GramImpl) String() string {
	s := g.core()
	for _, o := range g.Others {
		s += "; " + o.String()
	}
	return s
}

// core is String without Others.
func (g GramImpl) core() string {
	if g.MatProd == "" && g.Strategy == "" {
		return ""
	}
	s := g.strategy()
	if g.NotFused != "" {
		s += "; " + FusedKernelName + " " + g.NotFused
	}
	if g.Stacked {
		s += "; beams stacked by grid node, one warp per source"
	}
	if g.TilesTotal > 0 {
		tiles := fmt.Sprintf("%d of the Gram product's %d tiles, those holding the requested pairs", g.TilesComputed, g.TilesTotal)
		if g.ExtractedPairs > 0 {
			return fmt.Sprintf("pairs (%d) from %s, %s", g.ExtractedPairs, tiles, s)
		}
		return fmt.Sprintf("%s via %s (%s)", g.MatProd, s, tiles)
	}
	if g.ExtractedPairs > 0 {
		return fmt.Sprintf("pairs (%d) extracted from the full Gram product, %s", g.ExtractedPairs, s)
	}
	return string(g.MatProd) + " via " + s
}

// strategy is the strategy and why it was chosen.
func (g GramImpl) strategy() string {
	if g.Fused {
		var b strings.Builder
		b.WriteString(g.Strategy + " (")
		if g.Why == "forced" {
			b.WriteString("forced; ")
		}
		fmt.Fprintf(&b, "%s, %d block partials summed in float64", g.Products, g.Blocks)
		if g.Why != "forced" && g.Why != "" {
			b.WriteString("; " + g.Why)
		}
		return b.String() + ")"
	}
	if g.Why == "" {
		return g.Strategy
	}
	return g.Strategy + " (" + g.Why + ")"
}

// Merge adds o, another part's implementation, to g's Others unless g's
// description already says it.
func (g *GramImpl) Merge(o GramImpl) {
	if s := o.String(); s != "" && !strings.Contains(g.String(), s) {
		g.Others = append(g.Others, o)
	}
}
