package cuda

import (
	"fmt"
	"regexp"
	"strings"
)

// Kernel signatures, read from the source a module is compiled from, so
// that Launch refuses an argument list its kernel does not declare — a
// missing argument, an int32 where the kernel takes a long long, a float64
// for a float — instead of handing the driver bytes the kernel misreads.

// paramKind is how Launch passes one kernel parameter.
type paramKind uint8

const (
	kindPtr     paramKind = iota + 1 // any pointer: a DevicePtr
	kindInt32                        // int, unsigned: int32 or uint32
	kindInt64                        // long long, unsigned long long: int64 or uint64
	kindFloat32                      // float
	kindFloat64                      // double
	kindStruct                       // a struct by value: a []float64 of its doubles
)

var kindNames = map[paramKind]string{kindPtr: "a pointer (DevicePtr)", kindInt32: "a 32-bit integer (int32 or uint32)",
	kindInt64: "a 64-bit integer (int64 or uint64)", kindFloat32: "float32", kindFloat64: "float64", kindStruct: "a struct by value ([]float64)"}

// param is one declared kernel parameter.
type param struct {
	decl string // as written, e.g. "const real* bases"
	kind paramKind
}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	// kernelDecl is an extern "C" kernel's head: its name and parameter
	// list (launch bounds may stand before or after void).
	kernelDecl  = regexp.MustCompile(`extern\s+"C"\s+__global__\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?(\w+)\s*\(([^)]*)\)`)
	typedefDecl = regexp.MustCompile(`(?m)^\s*typedef\s+(\w+)\s+(\w+)\s*;`)
)

// kernelSignatures parses every extern "C" kernel of src (its code and
// headers) with the types its typedefs and the -D options give (a real
// that is R_T, R_T=float, is a float).
func kernelSignatures(src Source, options []string) (map[string][]param, error) {
	text := src.Code
	for _, h := range src.Headers {
		text += "\n" + h
	}
	text = lineComment.ReplaceAllString(blockComment.ReplaceAllString(text, " "), "")
	alias := map[string]string{}
	for _, o := range options {
		if name, v, ok := strings.Cut(strings.TrimPrefix(o, "-D"), "="); ok && strings.HasPrefix(o, "-D") {
			alias[name] = v
		}
	}
	for _, m := range typedefDecl.FindAllStringSubmatch(text, -1) {
		alias[m[2]] = m[1]
	}
	sigs := map[string][]param{}
	for _, m := range kernelDecl.FindAllStringSubmatch(text, -1) {
		ps := []param{} // non-nil: a kernel without parameters is checked too
		for _, p := range strings.Split(m[2], ",") {
			p = strings.Join(strings.Fields(p), " ")
			if p == "" || p == "void" {
				continue
			}
			k, err := declKind(p, alias)
			if err != nil {
				return nil, fmt.Errorf("cuda: kernel %s: %w", m[1], err)
			}
			ps = append(ps, param{decl: p, kind: k})
		}
		sigs[m[1]] = ps
	}
	return sigs, nil
}

// declKind is the kind of parameter declaration p ("const int* chans",
// "long long n", "StokesFrame f").
func declKind(p string, alias map[string]string) (paramKind, error) {
	if strings.Contains(p, "*") {
		return kindPtr, nil
	}
	words := strings.Fields(p)
	if len(words) < 2 {
		return 0, fmt.Errorf("parameter %q: no type and name", p)
	}
	var typ []string
	for _, w := range words[:len(words)-1] {
		if w != "const" && w != "__grid_constant__" && w != "volatile" && w != "__restrict__" {
			typ = append(typ, w)
		}
	}
	t := strings.Join(typ, " ")
	for range 8 { // follow typedefs and macros (R_T → float)
		a, ok := alias[t]
		if !ok {
			break
		}
		t = a
	}
	switch t {
	case "int", "unsigned", "unsigned int":
		return kindInt32, nil
	case "long long", "unsigned long long", "long long int":
		return kindInt64, nil
	case "float":
		return kindFloat32, nil
	case "double":
		return kindFloat64, nil
	}
	return kindStruct, nil
}

// argKind is how a Go launch argument is passed (0: not a type Launch
// takes).
func argKind(a any) paramKind {
	switch a.(type) {
	case DevicePtr:
		return kindPtr
	case int32, uint32:
		return kindInt32
	case int64, uint64:
		return kindInt64
	case float32:
		return kindFloat32
	case float64:
		return kindFloat64
	case []float64:
		return kindStruct
	}
	return 0
}

// checkArgs refuses args that do not match kernel name's declared
// parameters; a kernel whose declaration was not found (nil sig) is not
// checked.
func checkArgs(name string, sig []param, args []any) error {
	if sig == nil {
		return nil
	}
	if len(args) != len(sig) {
		return fmt.Errorf("cuda: launch %s: %d arguments, the kernel declares %d", name, len(args), len(sig))
	}
	for i, a := range args {
		if k := argKind(a); k != sig[i].kind {
			return fmt.Errorf("cuda: launch %s: argument %d (%s) is a %T, the kernel takes %s", name, i, sig[i].decl, a, kindNames[sig[i].kind])
		}
	}
	return nil
}

// ParamKind is how Launch passes one kernel parameter: the class and
// width a Go argument must have.
type ParamKind = paramKind

// The kinds, exported for checks of launch sites without a device
// (internal/launchcheck).
const (
	KindPtr     = kindPtr
	KindInt32   = kindInt32
	KindInt64   = kindInt64
	KindFloat32 = kindFloat32
	KindFloat64 = kindFloat64
	KindStruct  = kindStruct
)

// String names the Go argument a parameter of kind k takes.
func (k paramKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// KernelParam is one declared parameter of a kernel: its declaration as
// written and its kind.
type KernelParam struct {
	Decl string
	Kind ParamKind
}

// Signatures returns the declared parameters of every extern "C" kernel
// of src as compiled with options: what Launch checks its arguments
// against, for tests that check launch sites without a device.
func Signatures(src Source, options ...string) (map[string][]KernelParam, error) {
	sigs, err := kernelSignatures(src, options)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]KernelParam, len(sigs))
	for name, ps := range sigs {
		kp := make([]KernelParam, len(ps))
		for i, p := range ps {
			kp[i] = KernelParam{Decl: p.decl, Kind: p.kind}
		}
		out[name] = kp
	}
	return out, nil
}
