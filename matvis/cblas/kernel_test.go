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
