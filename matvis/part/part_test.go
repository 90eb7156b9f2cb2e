package part

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/shard"
	"github.com/gomatvis/gomatvis/npy"
)

const hashA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// grid is a synthetic full result of nf × nt × npairs whose values encode
// their index.
func grid(nf, nt, np int) *matvis.Result {
	r := &matvis.Result{Shape: []int{nf, nt, np}, Precision: 2, Vis128: make([]complex128, nf*nt*np), Done: make([]bool, nf*nt)}
	for i := range r.Vis128 {
		r.Vis128[i] = complex(float64(i), -float64(i)/3)
	}
	for i := range r.Done {
		r.Done[i] = true
	}
	return r
}

// single is full rounded to precision 1.
func single(full *matvis.Result) *matvis.Result {
	r := &matvis.Result{Shape: full.Shape, Precision: 1, Done: full.Done, Vis64: make([]complex64, len(full.Vis128))}
	for i, v := range full.Vis128 {
		r.Vis64[i] = complex64(v)
	}
	return r
}

// blockOf cuts block b out of full.
func blockOf(full *matvis.Result, b matvis.Block) *matvis.Result {
	np := full.Shape[2]
	r := &matvis.Result{Shape: []int{b.NFreq(), b.NTime(), np}, Precision: full.Precision, Done: make([]bool, b.Size())}
	for f := b.F0; f < b.F1; f++ {
		for t := b.T0; t < b.T1; t++ {
			i := full.Index(f, t, 0, 0, 0)
			if full.Precision == 1 {
				r.Vis64 = append(r.Vis64, full.Vis64[i:i+np]...)
			} else {
				r.Vis128 = append(r.Vis128, full.Vis128[i:i+np]...)
			}
		}
	}
	for i := range r.Done {
		r.Done[i] = true
	}
	return r
}

// npyMetaOf is a plausible npy metadata for the whole run full.
func npyMetaOf(full *matvis.Result) []byte {
	a := npyAxes{Shape: full.Shape, Precision: full.Precision, Polarized: len(full.Shape) == 5}
	for f := range full.Shape[0] {
		a.FreqsHz = append(a.FreqsHz, 1e8+1e6*float64(f))
	}
	for t := range full.Shape[1] {
		a.TimesJD = append(a.TimesJD, 2459000.5+0.01*float64(t))
	}
	for k := range full.Shape[2] {
		a.AntPairs = append(a.AntPairs, [2]int{0, k})
	}
	js, _ := json.Marshal(a)
	return js
}

// writeParts writes the n parts of full into dir with config hash h.
func writeParts(t testing.TB, dir string, full *matvis.Result, n int, h string) []string {
	t.Helper()
	nf, nt := full.Shape[0], full.Shape[1]
	blocks, err := shard.Split(nf, nt, n)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, b := range blocks {
		p := filepath.Join(dir, strings.Replace("part-I.gmvpart", "I", string(rune('a'+i)), 1))
		m := Meta{ConfigHash: h, Shard: i, N: n, NFreq: nf, NTime: nt, Block: b, Output: OutputNpy, Backend: "cpu", NpyMeta: npyMetaOf(full)}
		if err := Write(p, m, blockOf(full, b)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestMergeNpyEqualsWhole(t *testing.T) {
	for _, c := range []struct{ n, prec int }{{1, 2}, {3, 2}, {7, 2}, {11, 2}, {3, 1}, {11, 1}} { // 7 times: 3 does not divide; 11 splits channels
		n := c.n
		dir := t.TempDir()
		full := grid(3, 7, 4)
		if c.prec == 1 {
			full = single(full)
		}
		paths := writeParts(t, dir, full, n, hashA)
		// Any order on the command line.
		paths[0], paths[len(paths)-1] = paths[len(paths)-1], paths[0]
		s, err := OpenSet(paths)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.npy")
		if err := s.WriteNpy(context.Background(), out, filepath.Join(dir, "out.meta.json")); err != nil {
			t.Fatal(err)
		}
		s.Close()
		a, err := npy.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := a.AsComplex128()
		if len(got) != len(full.Done)*4 {
			t.Fatalf("n=%d: %d values, want %d", n, len(got), len(full.Done)*4)
		}
		for i := range got {
			if want := full.At(i/28, i/4%7, i%4, 0, 0); got[i] != want {
				t.Fatalf("n=%d precision %d: value %d = %v, want %v", n, c.prec, i, got[i], want)
			}
		}
	}
}

func TestOpenSetRefuses(t *testing.T) {
	dir := t.TempDir()
	full := grid(2, 5, 3)
	paths := writeParts(t, dir, full, 4, hashA)
	other := writeParts(t, t.TempDir(), full, 4, strings.Repeat("b", 64))
	for _, c := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing", paths[:3], "1 of 4 shards missing: 3"},
		{"doubled", append(append([]string(nil), paths...), paths[2]), "shard 2/4 given twice"},
		{"mismatched hash", []string{paths[0], paths[1], other[2], paths[3]}, "different configurations"},
		{"none", nil, "no parts"},
	} {
		_, err := OpenSet(c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func TestVerifyDetectsDamage(t *testing.T) {
	dir := t.TempDir()
	paths := writeParts(t, dir, grid(2, 3, 2), 1, hashA)
	if _, err := Verify(context.Background(), paths[0]); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(paths[0])
	trunc := filepath.Join(dir, "trunc")
	os.WriteFile(trunc, raw[:len(raw)-5], 0o644)
	if _, err := Verify(context.Background(), trunc); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: %v", err)
	}
	flip := append([]byte(nil), raw...)
	flip[len(flip)-3] ^= 1
	bad := filepath.Join(dir, "flip")
	os.WriteFile(bad, flip, 0o644)
	if _, err := Verify(context.Background(), bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("flipped bit: %v", err)
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("hello"), 0o644)
	if _, err := Verify(context.Background(), junk); err == nil || !strings.Contains(err.Error(), "not a gomatvis part") {
		t.Errorf("junk: %v", err)
	}
}

// TestPartChecks: a part's data must be finite (the message names the
// run's freq, time and baseline) and Matches compares every field a
// configuration implies.
func TestPartChecks(t *testing.T) {
	for _, prec := range []int{1, 2} {
		full := grid(2, 5, 3)
		if prec == 1 {
			full = single(full)
		}
		// 4 shards of 5 times: shard 1 holds times [1, 2).
		full.Set(1, 1, 2, 0, 0, complex(0, math.Inf(-1)))
		paths := writeParts(t, t.TempDir(), full, 4, hashA)
		for _, read := range []struct {
			name string
			f    func() error
		}{
			{"Verify", func() error { _, err := Verify(context.Background(), paths[1]); return err }},
			{"merge", func() error {
				s, err := OpenSet(paths)
				if err != nil {
					return err
				}
				defer s.Close()
				dir := t.TempDir()
				err = s.WriteNpy(context.Background(), filepath.Join(dir, "o.npy"), filepath.Join(dir, "o.meta.json"))
				if ms, _ := filepath.Glob(filepath.Join(dir, "*")); len(ms) != 0 {
					t.Errorf("precision %d: a refused merge left %v", prec, ms)
				}
				return err
			}},
		} {
			err := read.f()
			if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), paths[1]) || !strings.Contains(err.Error(), "(freq 1, time 1, baseline 2)") || !strings.Contains(err.Error(), "-Inf") {
				t.Errorf("precision %d, %s: %v", prec, read.name, err)
			}
		}
	}

	paths := writeParts(t, t.TempDir(), grid(2, 5, 3), 4, hashA)
	m, err := Verify(context.Background(), paths[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(w *Meta)
		want string
	}{
		{"same", func(*Meta) {}, ""},
		{"hash", func(w *Meta) { w.ConfigHash = strings.Repeat("c", 64) }, "config hash"},
		{"shard", func(w *Meta) { w.Shard = 1 }, "shard 2/4, want 1/4"},
		{"grid", func(w *Meta) { w.NTime = 6 }, "grid"},
		{"block", func(w *Meta) { w.Block.T1++ }, "block"},
		{"shape", func(w *Meta) { w.Shape = []int{2, 1, 4} }, "shape"},
		{"precision", func(w *Meta) { w.Precision = 1 }, "precision"},
		{"output", func(w *Meta) { w.Output = OutputUVH5 }, "output"},
		{"frequency", func(w *Meta) {
			var a npyAxes
			json.Unmarshal(w.NpyMeta, &a)
			a.FreqsHz[1] = math.Nextafter(a.FreqsHz[1], 0)
			w.NpyMeta, _ = json.Marshal(a)
		}, "npy metadata"},
		{"how computed differs", func(w *Meta) {
			var a map[string]any
			json.Unmarshal(w.NpyMeta, &a)
			a["created_utc"], a["backend"] = "2030-01-01T00:00:00Z", "gpu"
			w.NpyMeta, _ = json.Marshal(a)
		}, ""},
	} {
		want := *m
		want.Shape = append([]int(nil), m.Shape...)
		c.edit(&want)
		err := m.Matches(&want)
		if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
