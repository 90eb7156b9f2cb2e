package matvis

import "testing"

// TestGramImplString: the description reads as the free text it replaced
// (the CLI summary, profiles and figures print it unchanged).
func TestGramImplString(t *testing.T) {
	const prod = "tensor-core products of FP16-split operands, float32 sums"
	cmp := "measured on the first chunk (1000 visible sources): fused 0.400 ms, beam_tau_z + cuBLAS cgemm 0.600 ms"
	for _, c := range []struct {
		g    GramImpl
		want string
	}{
		{GramImpl{}, ""},
		{GramImpl{MatProd: MatProdPairs, Strategy: "openblas zherk"}, "pairs via openblas zherk"},
		{GramImpl{MatProd: MatProdHerk, Strategy: "cuBLAS cherk", Why: "forced"}, "herk via cuBLAS cherk (forced)"},
		{GramImpl{MatProd: MatProdPairs, ExtractedPairs: 3, Strategy: "cuBLAS cgemm", Why: "cached choice for M=8 K≈4096"},
			"pairs (3) extracted from the full Gram product, cuBLAS cgemm (cached choice for M=8 K≈4096)"},
		{GramImpl{MatProd: MatProdHerk, Strategy: "cuBLAS cgemm", Why: "measured at M=128 K=4096: cgemm 0.1 ms", NotFused: "not used: " + cmp},
			"herk via cuBLAS cgemm (measured at M=128 K=4096: cgemm 0.1 ms); fused beam+τ+Z+Gram kernel not used: " + cmp},
		{GramImpl{MatProd: MatProdHerk, Strategy: "cuBLAS cherk", Why: "forced", NotFused: "not available on this device (too big)"},
			"herk via cuBLAS cherk (forced); fused beam+τ+Z+Gram kernel not available on this device (too big)"},
		{GramImpl{MatProd: MatProdHerk, Strategy: FusedKernelName, Why: "forced", Fused: true, Products: prod, Blocks: 132},
			"herk via fused beam+τ+Z+Gram kernel (forced; " + prod + ", 132 block partials summed in float64)"},
		{GramImpl{MatProd: MatProdHerk, Strategy: FusedKernelName, Why: cmp, Fused: true, Products: prod, Blocks: 264, Stacked: true},
			"herk via fused beam+τ+Z+Gram kernel (" + prod + ", 264 block partials summed in float64; " + cmp + "); beams stacked by grid node, one warp per source"},
	} {
		if got := c.g.String(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.g, got, c.want)
		}
	}
}

// TestGramImplMerge: a multi-device run lists each different
// implementation once, as the text joined with "; " did.
func TestGramImplMerge(t *testing.T) {
	a := GramImpl{MatProd: MatProdHerk, Strategy: "cuBLAS cherk", Why: "forced"}
	b := GramImpl{MatProd: MatProdHerk, Strategy: "cuBLAS cgemm", Why: "forced"}
	g := a
	g.Merge(a)
	g.Merge(b)
	g.Merge(b)
	g.Merge(GramImpl{})
	if want := a.String() + "; " + b.String(); g.String() != want || len(g.Others) != 1 {
		t.Errorf("merged: %q (%d others), want %q", g, len(g.Others), want)
	}
}
