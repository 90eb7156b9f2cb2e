package backends

import (
	"errors"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	for _, name := range []string{"cpu", "nufftcpu"} {
		if b, _, err := Open(name); err != nil || b.Name() != name {
			t.Fatalf("%s: %v %v", name, b, err)
		}
	}
	if _, _, err := Open("tpu"); err == nil || !strings.Contains(err.Error(), `"tpu"`) {
		t.Fatalf("tpu: %v", err)
	}
	b, note, err := Open("auto")
	if err != nil {
		t.Fatal(err)
	}
	g, _, gerr := Open("gpu")
	switch {
	case gerr == nil:
		defer b.Close()
		defer g.Close()
		if b.Name() != "gpu" || g.Name() != "gpu" {
			t.Fatalf("a GPU opened but auto chose %s", b.Name())
		}
	case errors.Is(gerr, ErrNoGPU):
		// The CPU with the transform chooser (matvis/nufftcpu), which
		// falls back to the direct product and says so.
		if b.Name() != "nufftcpu" || !strings.Contains(note, "no CUDA device/driver found") || !strings.Contains(note, "transform chooser") {
			t.Fatalf("without a GPU auto gave %s with note %q", b.Name(), note)
		}
	default:
		t.Fatalf("gpu: unexpected error %v", gerr)
	}
}
