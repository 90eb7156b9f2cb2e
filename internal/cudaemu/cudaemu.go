// Package cudaemu builds a kernel file's host emulation for tests: the
// kernels compiled by the system's C++ compiler against mock.h (CUDA's
// device dialect reduced to host C++, one thread at a time) with a test's
// driver program, so that kernels that use no shared memory, warp
// intrinsics or inline PTX can be checked against Go on a machine
// without a GPU. What it checks is the kernels' arithmetic and indexing
// as C++ runs them; NVRTC's compilation and the device's concurrency
// (atomics from many threads) are the device tests'.
package cudaemu

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/kernels"
)

//go:embed mock.h
var mock []byte

// Build compiles the driver program driver (C++ source text, which
// includes the kernel files it runs by name) with the files files (include
// name → text: a program and its headers as kernels.Program gives them,
// so that the emulation compiles what NVRTC is given, wherever the test
// binary runs) and the macro definitions defs ("-DNAME=VALUE"), and
// returns the program's path (in t's temporary directory). Without a C++
// compiler t is skipped, loudly.
func Build(t testing.TB, driver string, files map[string]string, defs ...string) string {
	t.Helper()
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skipf("SKIPPED, not checked: no g++ to build the kernels' host emulation (%v)", err)
	}
	dir := t.TempDir()
	inc := filepath.Join(dir, "include")
	if err := os.Mkdir(inc, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if filepath.Base(name) != name {
			t.Fatalf("kernel file name %q: want a plain name, as #include gives it", name)
		}
		if err := os.WriteFile(filepath.Join(inc, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mockPath := filepath.Join(dir, "mock.h")
	src := filepath.Join(dir, "driver.cpp")
	bin := filepath.Join(dir, "driver")
	if err := os.WriteFile(mockPath, mock, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-std=c++17", "-O1", "-include", mockPath, "-o", bin, "-I", inc}
	args = append(args, defs...)
	args = append(args, "-x", "c++", src)
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("building the host emulation: %v\n%s", err, out)
	}
	return bin
}

// ProgramFiles are the files a driver that includes program name of fsys
// (a package's embedded kernel sources) compiles against: the program
// under its name and every header NVRTC is given with it
// (kernels.Program), for Build.
func ProgramFiles(t testing.TB, fsys fs.FS, name string) map[string]string {
	t.Helper()
	code, files, err := kernels.Program(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	files[name] = code
	return files
}

// Run runs the emulation bin with input on its standard input and returns
// its standard output; a failure fails t with the program's error output.
func Run(t testing.TB, bin string, input []byte) []byte {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the host emulation: %v\n%s", err, stderr.Bytes())
	}
	return out
}

// Complex decodes n little-endian complex values from b, complex64 when
// single, else complex128; a short output fails t.
func Complex(t testing.TB, b []byte, n int, single bool) []complex128 {
	t.Helper()
	out := make([]complex128, n)
	var err error
	if single {
		c := make([]complex64, n)
		err = binary.Read(bytes.NewReader(b), binary.LittleEndian, c)
		for i, v := range c {
			out[i] = complex128(v)
		}
	} else {
		err = binary.Read(bytes.NewReader(b), binary.LittleEndian, out)
	}
	if err != nil {
		t.Fatalf("reading %d complex values from the emulation's %d bytes: %v", n, len(b), err)
	}
	return out
}
