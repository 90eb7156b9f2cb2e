package cuda

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/kernels"
)

// TestKernelSignaturesParse reads a hand-written source: launch bounds on
// either side of void, a typedef resolved through a -D option, a struct
// by value, pointers of every kind, and a declaration inside a comment
// (which is not a kernel).
func TestKernelSignaturesParse(t *testing.T) {
	src := Source{Name: "t.cu", Code: `
typedef R_T real;
// extern "C" __global__ void commented(int a) {}
/* extern "C" __global__ void blocked(int a) {} */
extern "C" __global__ void __launch_bounds__(256) a(const real* x, real y, long long n, int k,
    unsigned long long* bits, const __grid_constant__ ParBlock p) {}
extern "C" __global__ __launch_bounds__(T* U, 1) void b(double z, float w, unsigned u) {}
extern "C" __global__ void c() {}
`}
	sigs, err := kernelSignatures(src, []string{"-DR_T=float", "--use_fast_math"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]paramKind{
		"a": {kindPtr, kindFloat32, kindInt64, kindInt32, kindPtr, kindStruct},
		"b": {kindFloat64, kindFloat32, kindInt32},
		"c": {},
	}
	if len(sigs) != len(want) {
		t.Fatalf("kernels %v, want %v", keys(sigs), keys(want))
	}
	for name, kinds := range want {
		got := sigs[name]
		if got == nil || len(got) != len(kinds) {
			t.Fatalf("%s: %v, want %v", name, got, kinds)
		}
		for i, k := range kinds {
			if got[i].kind != k {
				t.Errorf("%s parameter %d (%s): kind %d, want %d", name, i, got[i].decl, got[i].kind, k)
			}
		}
	}
	// With R_T=double, real is a double.
	sigs, _ = kernelSignatures(src, []string{"-DR_T=double"})
	if sigs["a"][1].kind != kindFloat64 {
		t.Errorf("real with R_T=double: kind %d", sigs["a"][1].kind)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// moduleRoot is the folder of the repository's go.mod, found upwards from
// the working directory (the package's folder under go test, the
// repository's root where a test binary runs on a GPU machine).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = up
	}
}

// TestEveryKernelParses: every extern "C" kernel of every program of the
// repository (beside its launcher) is found (as many signatures as
// __global__ declarations outside comments), with a known kind for every
// parameter.
func TestEveryKernelParses(t *testing.T) {
	root := moduleRoot(t)
	for _, prog := range []string{"matvis/gpu/vis.cu", "matvis/gpu/beamprep.cu", "cuda/gram/gram.cu", "cuda/gram/mmarate.cu", "cuda/testdata/selftest.cu", "matvis/nufftgpu/nufft.cu"} {
		code, headers, err := kernels.Program(os.DirFS(filepath.Join(root, filepath.Dir(prog))), filepath.Base(prog))
		if err != nil {
			t.Fatal(err)
		}
		src := Source{Name: prog, Code: code, Headers: headers}
		sigs, err := kernelSignatures(src, []string{"-DR_T=float"})
		if err != nil {
			t.Fatalf("%s: %v", prog, err)
		}
		text := code
		for _, h := range headers {
			text += "\n" + h
		}
		text = lineComment.ReplaceAllString(blockComment.ReplaceAllString(text, " "), "")
		if n := strings.Count(text, "__global__"); len(sigs) != n {
			t.Errorf("%s: %d signatures for %d __global__ declarations", prog, len(sigs), n)
		}
		for name, ps := range sigs {
			for i, p := range ps {
				if kindNames[p.kind] == "" {
					t.Errorf("%s: kernel %s parameter %d (%s): no kind", prog, name, i, p.decl)
				}
			}
		}
	}
}

// TestCheckArgs: the argument list must match the declaration in count and
// in each argument's width and class.
func TestCheckArgs(t *testing.T) {
	sig := []param{{"const real* x", kindPtr}, {"long long n", kindInt64}, {"int k", kindInt32}, {"float w", kindFloat32}, {"double z", kindFloat64}, {"ParBlock p", kindStruct}}
	ok := []any{DevicePtr(8), int64(3), int32(2), float32(1), 2.5, []float64{1, 2}}
	if err := checkArgs("k", sig, ok); err != nil {
		t.Fatalf("matching arguments: %v", err)
	}
	if err := checkArgs("k", sig, []any{DevicePtr(8), uint64(3), uint32(2), float32(1), 2.5, []float64{1}}); err != nil {
		t.Fatalf("unsigned of the same width: %v", err)
	}
	for _, c := range []struct {
		name string
		i    int
		v    any
		want string
	}{
		{"int32 for long long", 1, int32(3), "argument 1 (long long n) is a int32"},
		{"int64 for int", 2, int64(2), "argument 2 (int k) is a int64"},
		{"float64 for float", 3, 1.0, "argument 3 (float w) is a float64"},
		{"float32 for double", 4, float32(2.5), "argument 4 (double z) is a float32"},
		{"Go int", 2, 2, "argument 2 (int k) is a int"},
		{"integer for a pointer", 0, int64(8), "argument 0 (const real* x) is a int64"},
	} {
		args := append([]any(nil), ok...)
		args[c.i] = c.v
		if err := checkArgs("k", sig, args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := checkArgs("k", sig, ok[:5]); err == nil || !strings.Contains(err.Error(), "5 arguments, the kernel declares 6") {
		t.Errorf("a missing argument: %v", err)
	}
	if err := checkArgs("k", nil, []any{1}); err != nil {
		t.Errorf("an unchecked kernel (module from an image): %v", err)
	}
}
