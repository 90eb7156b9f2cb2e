package cblas

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseCPUFlags(t *testing.T) {
	cases := []struct {
		name, cpuinfo string
		want          CPUFeatures
	}{
		{"none", "processor\t: 0\nflags\t\t: fpu sse sse2 sse3\n", CPUFeatures{}},
		{"avx2", "flags\t: sse4_2 avx fma avx2\n", CPUFeatures{AVX2: true}},
		{"avx2 without fma", "flags\t: avx avx2\n", CPUFeatures{}},
		{"avx512", "flags\t: fma avx2 avx512f avx512dq avx512bw avx512vl\n", CPUFeatures{AVX2: true, AVX512: true}},
		{"avx512f only", "flags\t: fma avx2 avx512f\n", CPUFeatures{AVX2: true}},
		{"first cpu only", "flags\t: sse2\nflags\t: fma avx2\n", CPUFeatures{}},
		{"no flags line", "model name\t: Unknown\n", CPUFeatures{}},
	}
	for _, c := range cases {
		if got := featuresOf(parseCPUFlags(strings.NewReader(c.cpuinfo))); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestKernelMissing(t *testing.T) {
	zen5 := strings.Fields("sse2 sse3 ssse3 sse4_1 sse4_2 sse4a avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_bf16")
	cases := []struct {
		core  string
		flags []string
		want  []string
	}{
		{"Bulldozer", zen5, []string{"fma4"}},
		{"Opteron", zen5, []string{"3dnowext"}},
		{"Haswell", zen5, nil},
		{"Cooperlake", zen5, nil},
		{"SkylakeX", []string{"avx2", "fma", "avx512f"}, []string{"avx512bw", "avx512dq", "avx512vl"}},
		{"Prescott", nil, nil},
		{"Bulldozer", nil, nil}, // unknown CPU: no check
	}
	for _, c := range cases {
		got := Kernel{CoreName: c.core}.missing(c.flags)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: missing %v, want %v", c.core, got, c.want)
		}
	}
}

func TestKernelWarnings(t *testing.T) {
	avx512 := CPUFeatures{AVX2: true, AVX512: true}
	cases := []struct {
		name   string
		k      Kernel
		cpu    CPUFeatures
		want   []string // substrings of the one warning; nil: no warning
		absent string   // must not appear
	}{
		{"prescott on avx512", Kernel{Library: "libopenblas.so.0", CoreName: "Prescott"}, avx512, []string{"Prescott", "AVX-512", "OPENBLAS_CORETYPE=SkylakeX"}, "forced"},
		{"core2 on avx2", Kernel{Library: "l", CoreName: "Core2"}, CPUFeatures{AVX2: true}, []string{"Core2", "AVX2", "OPENBLAS_CORETYPE=Haswell"}, "SkylakeX"},
		{"forced generic", Kernel{Library: "l", CoreName: "Atom", CoreType: "Atom"}, avx512, []string{"Atom", "forced by OPENBLAS_CORETYPE=Atom"}, ""},
		{"haswell on avx512", Kernel{Library: "l", CoreName: "Haswell"}, avx512, nil, ""},
		{"zen on avx2", Kernel{Library: "l", CoreName: "Zen"}, CPUFeatures{AVX2: true}, nil, ""},
		{"cooperlake", Kernel{Library: "l", CoreName: "Cooperlake"}, avx512, nil, ""},
		{"prescott on old cpu", Kernel{Library: "l", CoreName: "Prescott"}, CPUFeatures{}, nil, ""},
		{"not openblas", Kernel{Library: "libblis.so.4"}, avx512, nil, ""},
	}
	for _, c := range cases {
		w := c.k.Warnings(c.cpu)
		if c.want == nil {
			if len(w) != 0 {
				t.Errorf("%s: unexpected warning %q", c.name, w)
			}
			continue
		}
		if len(w) != 1 {
			t.Fatalf("%s: got %d warnings %q, want 1", c.name, len(w), w)
		}
		for _, s := range c.want {
			if !strings.Contains(w[0], s) {
				t.Errorf("%s: warning %q lacks %q", c.name, w[0], s)
			}
		}
		if c.absent != "" && strings.Contains(w[0], c.absent) {
			t.Errorf("%s: warning %q has %q", c.name, w[0], c.absent)
		}
	}
}

// wrongHerk is a herk whose complex64 product is off in one entry, as a
// kernel mishandled by the CPU might be.
type wrongHerk struct{ Gonum }

func (w wrongHerk) Cherk(n, k int, alpha float32, a []complex64, lda int, beta float32, c []complex64, ldc int) {
	w.Gonum.Cherk(n, k, alpha, a, lda, beta, c, ldc)
	c[n-1] *= 1.001
}

func TestVerify(t *testing.T) {
	cases := []struct {
		name  string
		h     Herk
		wrong bool
	}{{"gonum", Gonum{}, false}, {"wrong cherk", wrongHerk{}, true}}
	if s, err := LoadSystem(); err == nil {
		cases = append(cases, struct {
			name  string
			h     Herk
			wrong bool
		}{"system " + s.Kernel().String(), s, false})
	}
	for _, c := range cases {
		err := Verify(c.h)
		if c.wrong != (err != nil) || (err != nil && !errors.Is(err, ErrDisagree)) {
			t.Errorf("%s: Verify = %v, want disagreement %v", c.name, err, c.wrong)
		}
	}
}

// rightHerk stands for a system library that computes right.
type rightHerk struct{ Gonum }

// explodingHerk fails the test if its kernels run.
type explodingHerk struct {
	Gonum
	t *testing.T
}

func (e explodingHerk) Zherk(int, int, float64, []complex128, int, float64, []complex128, int) {
	e.t.Fatal("zherk ran on a CPU without the kernels' features")
}

func (e explodingHerk) Cherk(int, int, float32, []complex64, int, float32, []complex64, int) {
	e.t.Fatal("cherk ran on a CPU without the kernels' features")
}

// TestChooseFallsBack: a library whose kernels need features the CPU
// lacks is never called, one that disagrees with gonum is not used, and
// one that agrees is used with the generic-kernel warning where due.
func TestChooseFallsBack(t *testing.T) {
	zen5 := strings.Fields("sse2 sse3 ssse3 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_bf16")
	lib := func(core, forced string) Kernel {
		return Kernel{Library: "libopenblas.so.0", CoreName: core, CoreType: forced}
	}
	cases := []struct {
		name     string
		h        Herk
		k        Kernel
		useGonum bool
		warn     []string // substrings of the one warning; nil: none
	}{
		{"SIGILL guard", explodingHerk{t: t}, lib("Bulldozer", "Bulldozer"), true, []string{"fma4", "SIGILL", "OPENBLAS_CORETYPE=Bulldozer is set"}},
		{"disagrees", wrongHerk{}, lib("Haswell", ""), true, []string{"disagrees", "gonum"}},
		{"generic but right", rightHerk{}, lib("Prescott", ""), false, []string{"Prescott", "OPENBLAS_CORETYPE=SkylakeX"}},
		{"fine", rightHerk{}, lib("Cooperlake", ""), false, nil},
	}
	for _, c := range cases {
		ch := choose(c.h, c.k, zen5)
		_, isGonum := ch.Herk.(Gonum)
		if isGonum != c.useGonum || ch.Kernel != c.k {
			t.Errorf("%s: chose %T with kernel %+v, want gonum %v", c.name, ch.Herk, ch.Kernel, c.useGonum)
		}
		if c.warn == nil {
			if len(ch.Warnings) != 0 {
				t.Errorf("%s: unexpected warnings %q", c.name, ch.Warnings)
			}
			continue
		}
		if len(ch.Warnings) != 1 {
			t.Fatalf("%s: warnings %q, want one", c.name, ch.Warnings)
		}
		for _, w := range c.warn {
			if !strings.Contains(ch.Warnings[0], w) {
				t.Errorf("%s: warning %q lacks %q", c.name, ch.Warnings[0], w)
			}
		}
	}
}

func TestChooseReportsKernel(t *testing.T) {
	ch := Choose()
	s, err := LoadSystem()
	if err != nil {
		if _, ok := ch.Herk.(Gonum); !ok {
			t.Fatalf("no system CBLAS, but Choose picked %s", ch.Herk.Name())
		}
		return
	}
	if ch.Kernel.Library == "" || ch.Kernel != s.Kernel() {
		t.Fatalf("Choose's kernel %+v, want %+v", ch.Kernel, s.Kernel())
	}
	if strings.HasPrefix(s.path, "libopenblas") && ch.Kernel.CoreName == "" {
		t.Errorf("OpenBLAS loaded (%s) but no corename", s.path)
	}
	t.Logf("%s; warnings %q", ch.Kernel, ch.Warnings)
}
