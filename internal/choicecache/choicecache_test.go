package choicecache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

type choice struct {
	Use bool   `json:"use"`
	Why string `json:"why"`
}

// TestGetPut: a value put is got back, beside the file's other entries
// and across value types' own files; a missing key, a missing, unparsable
// or oversized file, a FIFO in its place (nobody writing it) and the empty
// path miss; a Put over an unparsable file starts it afresh.
func TestGetPut(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "choices.json")
	if _, ok := Get[choice](p, "a"); ok {
		t.Fatal("a missing file hit")
	}
	Put(p, "a", choice{true, "measured"})
	Put(p, "b", choice{false, "slower"})
	if v, ok := Get[choice](p, "a"); !ok || v != (choice{true, "measured"}) {
		t.Errorf("a: %v %v", v, ok)
	}
	if v, ok := Get[choice](p, "b"); !ok || v != (choice{false, "slower"}) {
		t.Errorf("b: %v %v", v, ok)
	}
	if _, ok := Get[choice](p, "c"); ok {
		t.Error("a missing key hit")
	}
	s := filepath.Join(dir, "strategies.json")
	Put(s, "k", "herk")
	if v, ok := Get[string](s, "k"); !ok || v != "herk" {
		t.Errorf("string value: %q %v", v, ok)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[string](bad, "k"); ok {
		t.Error("an unparsable file hit")
	}
	Put(bad, "k", "x")
	if v, ok := Get[string](bad, "k"); !ok || v != "x" {
		t.Errorf("a Put over an unparsable file: %q %v", v, ok)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[string](big, "k"); ok {
		t.Error("an oversized file hit")
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[string](fifo, "k"); ok {
		t.Error("a FIFO hit")
	}
	if _, ok := Get[string]("", "k"); ok {
		t.Error("the empty path hit")
	}
	Put("", "k", "x") // dropped, no panic
}
