// Package sharedtest locates the project's reference material for tests:
// the repository's testdata/ (copies of the developers' shared/ reference
// files, see testdata/README.md), so every clone checks its own accuracy.
package sharedtest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/npy"
)

// Root returns the repository root: the nearest directory above the
// working directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Dir returns the directory holding reference/ and beams/: the repository's
// testdata/, or GOMATVIS_SHARED where set. Its absence is a broken checkout,
// so the test fails rather than skips.
func Dir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("GOMATVIS_SHARED")
	if d == "" {
		d = filepath.Join(Root(t), "testdata")
	}
	if _, err := os.Stat(filepath.Join(d, "reference")); err != nil {
		t.Fatalf("reference material not found at %s (testdata/ belongs to every checkout): %v", d, err)
	}
	return d
}

// HERABeam returns the path of the shared HERA dipole beamfits
// (beams/NF_HERA_Dipole_small.fits under Dir), failing when it is missing.
func HERABeam(t testing.TB) string {
	t.Helper()
	p := filepath.Join(Dir(t), "beams", "NF_HERA_Dipole_small.fits")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not found: %v", p, err)
	}
	return p
}

// Reference is one reference simulation directory.
type Reference struct {
	Name, Dir string
}

// References lists shared/reference/*/ that hold a spec.json and vis.npy.
func References(t testing.TB) []Reference {
	t.Helper()
	root := filepath.Join(Dir(t), "reference")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	var out []Reference
	for _, e := range ents {
		d := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(d, "spec.json")); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "vis.npy")); err != nil {
			continue
		}
		out = append(out, Reference{e.Name(), d})
	}
	if len(out) == 0 {
		t.Fatalf("no reference simulations under %s", root)
	}
	return out
}

// ReadNpy reads a .npy file or fails the test.
func ReadNpy(t testing.TB, path string) *npy.Array {
	t.Helper()
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return a
}

// SeedEnv is the environment variable that replays a logged seed:
// GOMATVIS_TEST_SEED=SEED go test … draws from it again.
const SeedEnv = "GOMATVIS_TEST_SEED"

// Seed returns a fresh random seed, or the one SeedEnv gives, and logs it
// (go test prints the log of a failed test), so that a failure on random
// inputs can be replayed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	s := seed(t)
	t.Logf("random seed %d", s)
	return s
}

// seed is Seed without the log. A SeedEnv that is not an unsigned integer
// fails the test: ignoring it would run other inputs than those asked for.
func seed(t testing.TB) uint64 {
	t.Helper()
	v := os.Getenv(SeedEnv)
	if v == "" {
		return rand.Uint64()
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want the unsigned integer a failed test logged (%v)", SeedEnv, v, err)
	}
	return s
}

// RNG returns a fresh random stream and logs its seed (Seed).
func RNG(t testing.TB, stream uint64) *rand.Rand {
	t.Helper()
	s := seed(t)
	t.Logf("random seed %d (stream %d)", s, stream)
	return rand.New(rand.NewPCG(s, stream))
}

// CheckSHA256 fails the test unless the file at path has the SHA-256 hash
// want (hex): the pin of a written file's bytes that a refactoring must
// not change. The error gives the file's size and hash, so that a change
// meant to alter the format can take the new hash from it.
func CheckSHA256(t testing.TB, path, want string) {
	t.Helper()
	b, err := inputfile.ReadAll(path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("%s: %d bytes with sha256 %s, want %s", filepath.Base(path), len(b), got, want)
	}
}

// python is Debian's interpreter, which scripts/test.sh gives the
// packages the tests import (PyPI is not reachable from the test machines).
const python = "/usr/bin/python3"

// Python returns Debian's python3 when it can run the statement
// "import " + imports, and otherwise skips t, saying which Debian
// packages to install (scripts/test.sh installs them).
func Python(t testing.TB, imports string, debianPkgs ...string) string {
	t.Helper()
	if err := exec.Command(python, "-c", "import "+imports).Run(); err != nil {
		t.Skipf("SKIP: %s cannot import %s (apt-get install %s; scripts/test.sh does): %v", python, imports, strings.Join(debianPkgs, " "), err)
	}
	return python
}

// Untar extracts a .tar.gz of the repository's testdata (a Measurement
// Set, say) into dir: directories and regular files of at most 256 MiB,
// every entry kept inside dir.
func Untar(t testing.TB, path, dir string) {
	t.Helper()
	fh, _, err := inputfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		p := filepath.Join(dir, filepath.Clean("/"+h.Name)) // never outside dir
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(io.LimitReader(tr, 256<<20)); err == nil {
				err = os.WriteFile(p, b, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// BenchSpecs are the spec files named in GOMATVIS_BENCH_SPECS (paths
// separated by ':'), e.g. the 350-antenna, 2·10⁵- and 2·10⁶-source skies
// that `go run ./bench/e2e/gen` writes: generated specs are too large for
// the repository, so without the variable the benchmark skips.
func BenchSpecs(b *testing.B) []string {
	list := os.Getenv("GOMATVIS_BENCH_SPECS")
	if list == "" {
		b.Skip("GOMATVIS_BENCH_SPECS names no spec files")
	}
	return strings.Split(list, ":")
}
