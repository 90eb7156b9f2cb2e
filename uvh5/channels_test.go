package uvh5

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestWriteChannelsEqualsRows: a file written by random channel ranges
// of random row ranges (with and without explicit flags and nsamples,
// the first explicit ones after default ones, rows rewritten) holds the
// bytes of the same data written as whole rows; with a channel range
// never written, Close refuses it.
func TestWriteChannelsEqualsRows(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for _, c := range []struct {
		name     string
		explicit bool // flags and nsamples given, else defaults
	}{{"defaults", false}, {"explicit", true}} {
		h := testHeader(rng, 4, 3, 7)
		nb, nf, np := h.Nblts(), h.Nfreqs(), h.Npols()
		vis, flags, ns := randomData(rng, nb*nf*np)
		if !c.explicit {
			flags, ns = make([]bool, len(vis)), make([]float32, len(vis))
			for i := range ns {
				ns[i] = 1
			}
		}
		dir := t.TempDir()
		want := filepath.Join(dir, "rows.uvh5")
		if err := writeRows(want, h, vis, flags, ns, c.explicit); err != nil {
			t.Fatal(err)
		}
		got := filepath.Join(dir, "channels.uvh5")
		w, err := Create(got, h)
		if err != nil {
			t.Fatal(err)
		}
		// Every row range is written twice over: junk first, then the
		// data, in random channel ranges.
		for pass := range 2 {
			for r0 := 0; r0 < nb; {
				r1 := min(nb, r0+1+rng.IntN(4))
				for f0 := 0; f0 < nf; {
					f1 := min(nf, f0+1+rng.IntN(3))
					v, fl, n := pick(vis, r0, r1, f0, f1, nf, np), pick(flags, r0, r1, f0, f1, nf, np), pick(ns, r0, r1, f0, f1, nf, np)
					if pass == 0 {
						v = make([]complex128, len(v))
					}
					if !c.explicit {
						fl, n = nil, nil
					}
					if err := w.WriteChannels(r0, r1-r0, f0, f1, v, fl, n); err != nil {
						t.Fatal(err)
					}
					f0 = f1
				}
				r0 = r1
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(want)
		b, _ := os.ReadFile(got)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: channel ranges give other bytes than whole rows", c.name)
		}
	}

	h := testHeader(rng, 3, 2, 5)
	nf, np := h.Nfreqs(), h.Npols()
	w, err := Create(filepath.Join(t.TempDir(), "short.uvh5"), h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteChannels(0, h.Nblts(), 0, nf-1, make([]complex128, h.Nblts()*(nf-1)*np), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, ErrIncomplete) {
		t.Errorf("a channel never written: Close gave %v, want ErrIncomplete", err)
	}
}

// writeRows writes the data whole rows at a time (flags and nsamples
// left to their defaults unless explicit).
func writeRows(path string, h *Header, vis []complex128, flags []bool, ns []float32, explicit bool) error {
	w, err := Create(path, h)
	if err != nil {
		return err
	}
	if !explicit {
		flags, ns = nil, nil
	}
	if err := w.WriteBlock(0, vis, flags, ns); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// pick copies channels [f0, f1) of rows [r0, r1) out of (row, freq, pol) data.
func pick[T any](x []T, r0, r1, f0, f1, nf, np int) []T {
	var out []T
	for r := r0; r < r1; r++ {
		out = append(out, x[(r*nf+f0)*np:(r*nf+f1)*np]...)
	}
	return out
}
