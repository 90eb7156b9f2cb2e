package uvh5

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadUVH5 feeds arbitrary bytes to Read: it must return a File or an
// error, never panic, and never allocate beyond what the input's size
// implies (the reader checks declared sizes against it). Seeds: both pyuvsim
// references and a file from our writer.
func FuzzReadUVH5(f *testing.F) {
	for _, ref := range referenceFiles(f) {
		b, err := os.ReadFile(ref)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	h := testHeader(rng, 3, 2, 2)
	vis, _, _ := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	p := filepath.Join(f.TempDir(), "seed.uvh5")
	if err := WriteFile(p, h, vis); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), int64(len(data)), "fuzz.uvh5")
		if err == nil && (file == nil || len(file.Vis) != len(file.Flags)) {
			t.Fatalf("inconsistent result %v", file)
		}
	})
}
