package simspec

import (
	"bytes"
	"encoding/json"
	"testing"
)

// BenchmarkDecodeLarge decodes a 20 MB spec (20000 sources × 100
// frequencies) whole, with encoding/json alone (the plain reading, for
// comparison) and parseSpec alone (no validation).
func BenchmarkDecodeLarge(b *testing.B) {
	var m map[string]any
	if err := json.Unmarshal([]byte(valid), &m); err != nil {
		b.Fatal(err)
	}
	const ns, nf = 20000, 100
	ra, dec, flux := make([]float64, ns), make([]float64, ns), make([][]float64, ns)
	fr := make([]float64, nf)
	for i := range fr {
		fr[i] = 1e8 + float64(i)*1e5
	}
	for i := range ra {
		ra[i], dec[i] = 0.1+float64(i)*1e-5, -0.5
		flux[i] = make([]float64, nf)
		for k := range flux[i] {
			flux[i][k] = 1.234567 + float64(k)
		}
	}
	m["freqs_hz"] = fr
	m["sources"] = map[string]any{"ra_rad": ra, "dec_rad": dec, "flux_jy": flux}
	data, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.Run("Decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := Decode(bytes.NewReader(data), "."); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json only", func(b *testing.B) {
		for b.Loop() {
			var s Spec
			if err := json.Unmarshal(data, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parseSpec", func(b *testing.B) {
		for b.Loop() {
			var s Spec
			if err := parseSpec(data, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
