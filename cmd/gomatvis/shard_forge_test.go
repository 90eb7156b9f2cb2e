package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/part"
)

// forgePart rewrites the part src into dst after edit has changed its
// metadata and data; the data hash is recomputed (so the part's
// self-declared hash matches) unless keepHash.
func forgePart(t *testing.T, src, dst string, keepHash bool, edit func(m *part.Meta, data []byte) []byte) {
	t.Helper()
	p, err := part.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Meta
	p.Close()
	// The forgery is written as a part of format 1 (which merge still
	// reads); a run streams format 2, whose data are time-major.
	data := append([]byte(nil), partData(t, mustRead(t, src))...)
	data = edit(&m, data)
	if !keepHash {
		h := sha256.Sum256(data)
		m.DataSHA256 = hex.EncodeToString(h[:])
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString(part.Magic)
	binary.Write(&buf, binary.LittleEndian, uint64(len(js)))
	buf.Write(js)
	buf.Write(data)
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// partData is the data of a part's bytes raw, of either format, in
// format 1's order (Result's), little endian.
func partData(t *testing.T, raw []byte) []byte {
	t.Helper()
	p, err := part.Read(bytes.NewReader(raw), int64(len(raw)), "part")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if res.Precision == 1 {
		err = binary.Write(&b, binary.LittleEndian, res.Vis64)
	} else {
		err = binary.Write(&b, binary.LittleEndian, res.Vis128)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// setVis sets the real (part 0) or imaginary (part 1) component of the
// part's visibility (f, t, k) of its block to v.
func setVis(m *part.Meta, data []byte, f, t, k, comp int, v float64) {
	per := 1
	for _, d := range m.Shape[2:] {
		per *= d
	}
	e := (f*m.Shape[1]+t)*per + k*(per/m.Shape[2])
	if m.Precision == 1 {
		binary.LittleEndian.PutUint32(data[e*8+comp*4:], math.Float32bits(float32(v)))
	} else {
		binary.LittleEndian.PutUint64(data[e*16+comp*8:], math.Float64bits(v))
	}
}

// editAxes changes the run's frequencies or times in the part's layout
// (uvh5) or npy metadata.
func editAxes(t *testing.T, m *part.Meta, edit func(freqs, times []float64)) {
	t.Helper()
	if m.UVH5 != nil {
		l := *m.UVH5
		l.Freqs = append([]float64(nil), l.Freqs...)
		l.Times = append([]float64(nil), l.Times...)
		edit(l.Freqs, l.Times)
		m.UVH5 = &l
		return
	}
	var x map[string]any
	if err := json.Unmarshal(m.NpyMeta, &x); err != nil {
		t.Fatal(err)
	}
	conv := func(a any) []float64 {
		var out []float64
		for _, v := range a.([]any) {
			out = append(out, v.(float64))
		}
		return out
	}
	fs, ts := conv(x["freqs_hz"]), conv(x["times_jd"])
	edit(fs, ts)
	x["freqs_hz"], x["times_jd"] = fs, ts
	js, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	m.NpyMeta = js
}

// forgeries are the ways TestForgedParts damages a part whose hash it
// then makes match again.
func forgeries(t *testing.T) []struct {
	name     string
	keepHash bool
	edit     func(m *part.Meta, data []byte) []byte
	wants    []string
} {
	return []struct {
		name     string
		keepHash bool
		edit     func(m *part.Meta, data []byte) []byte
		wants    []string
	}{
		// Part 1 of 3 of 9 freqs × 6 times holds times [2, 4): its
		// (freq 4, time 1, baseline 2) is the run's (4, 3, 2).
		{"NaN visibility", false, func(m *part.Meta, d []byte) []byte { setVis(m, d, 4, 1, 2, 0, math.NaN()); return d },
			[]string{"visibility (freq 4, time 3, baseline 2)", "NaN", "non-finite"}},
		{"+Inf visibility", false, func(m *part.Meta, d []byte) []byte { setVis(m, d, 0, 0, 0, 1, math.Inf(1)); return d },
			[]string{"visibility (freq 0, time 2, baseline 0)", "+Inf", "non-finite"}},
		{"frequency 1e308", false, func(m *part.Meta, d []byte) []byte {
			editAxes(t, m, func(fs, _ []float64) { fs[3] = 1e308 })
			return d
		}, []string{"frequency 3 = 1e+308 Hz"}},
		{"time changed", false, func(m *part.Meta, d []byte) []byte {
			editAxes(t, m, func(_, ts []float64) { ts[1] += 1e-3 })
			return d
		}, []string{"describe the run"}},
		{"time implausible", false, func(m *part.Meta, d []byte) []byte {
			editAxes(t, m, func(_, ts []float64) { ts[0] = 1e308 })
			return d
		}, []string{"time 0 = 1e+308 JD"}},
		{"baseline changed", false, func(m *part.Meta, d []byte) []byte {
			if m.UVH5 != nil {
				l := *m.UVH5
				l.Baselines = append([][2]int(nil), l.Baselines...)
				l.Baselines[0] = [2]int{l.Baselines[0][1], l.Baselines[0][0] + 1}
				m.UVH5 = &l
				return d
			}
			var x map[string]any
			json.Unmarshal(m.NpyMeta, &x)
			x["antpairs"].([]any)[0] = []int{5, 0}
			m.NpyMeta, _ = json.Marshal(x)
			return d
		}, []string{"describe the run"}},
		{"truncated", true, func(m *part.Meta, d []byte) []byte { return d[:len(d)-16] }, []string{"truncated"}},
	}
}

// TestForgedParts: merge refuses a forged part, naming it and writing
// nothing, and a rerun of simulate --shard recomputes it.
func TestForgedParts(t *testing.T) {
	for _, format := range []string{"npy", "uvh5"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			parts := shardAll(t, dir, "example", 3, "--format", format)
			good := mustRead(t, parts[1])
			out := filepath.Join(dir, "m."+format)
			for _, c := range forgeries(t) {
				forged := filepath.Join(dir, "forged.gmvpart")
				forgePart(t, parts[1], forged, c.keepHash, c.edit)
				code, _, e := runCLI(t, "merge", "-o", out, parts[0], forged, parts[2])
				if code == 0 {
					t.Errorf("%s: merge accepted the forged part", c.name)
				}
				for _, w := range append([]string{forged}, c.wants...) {
					if !strings.Contains(e, w) {
						t.Errorf("%s: merge's stderr %q lacks %q", c.name, e, w)
					}
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s: a refused merge wrote %s", c.name, out)
					os.Remove(out)
					os.Remove(metaPath(out))
				}
				if ms, _ := filepath.Glob(filepath.Join(dir, "*")); len(ms) != 4 {
					t.Errorf("%s: the refused merge left %v", c.name, ms)
				}

				// The forged part as shard 1/3's output: not complete.
				args := []string{"simulate", "example", "--shard", "1/3", "--format", format, "-o", forged, "--backend", "cpu", "-q"}
				code, o, e := runCLI(t, args...)
				if code != 0 || strings.Contains(o, "nothing to do") || !strings.Contains(e, "recomputing") {
					t.Errorf("%s: rerun kept the forged part: exit %d, stdout %q, stderr %q", c.name, code, o, e)
				}
				if got := mustRead(t, forged); !bytes.Equal(partData(t, got), partData(t, good)) {
					t.Errorf("%s: the recomputed part's data differ from the original's", c.name)
				}
				os.Remove(forged)
			}
			// The good parts still merge, and a rerun keeps a good part.
			if code, _, e := runCLI(t, append([]string{"merge", "-o", out}, parts...)...); code != 0 {
				t.Fatalf("merge of the good parts: %s", e)
			}
			code, o, _ := runCLI(t, "simulate", "example", "--shard", "1/3", "--format", format, "-o", parts[1], "--backend", "cpu", "-q")
			if code != 0 || !strings.Contains(o, "nothing to do") {
				t.Errorf("rerun of a good part: exit %d, %q", code, o)
			}
		})
	}
}

// TestForgedPartsObsparam: an obsparam's parts (pyuvsim layout) too.
func TestForgedPartsObsparam(t *testing.T) {
	dir := t.TempDir()
	parts := shardAll(t, dir, obsparamPath, 2, "--format", "uvh5")
	forged := filepath.Join(dir, "forged.gmvpart")
	forgePart(t, parts[1], forged, false, func(m *part.Meta, d []byte) []byte {
		editAxes(t, m, func(fs, _ []float64) { fs[0] *= 1 + 1e-12 })
		return d
	})
	out := filepath.Join(dir, "m.uvh5")
	if code, _, e := runCLI(t, "merge", "-o", out, parts[0], forged); code == 0 || !strings.Contains(e, forged) {
		t.Errorf("merge of a part with a changed frequency: exit %d, %s", code, e)
	}
	code, o, e := runCLI(t, "simulate", obsparamPath, "--shard", "1/2", "--format", "uvh5", "-o", forged, "--backend", "cpu", "-q")
	if code != 0 || strings.Contains(o, "nothing to do") || !strings.Contains(e, "recomputing") {
		t.Errorf("rerun kept the forged part: exit %d, %q, %q", code, o, e)
	}
	code, o, _ = runCLI(t, "simulate", obsparamPath, "--shard", "1/2", "--format", "uvh5", "-o", parts[1], "--backend", "cpu", "-q")
	if code != 0 || !strings.Contains(o, "nothing to do") {
		t.Errorf("rerun of a good part: exit %d, %q", code, o)
	}
}

// TestShardRerunKeepsGoodParts: the comparison with the configuration
// does not redo a good part (single precision, polarized, pyuvsim npy).
func TestShardRerunKeepsGoodParts(t *testing.T) {
	for _, c := range []struct{ name, config, format string }{
		{"fp32 polarized npy", "fp32pol", "npy"},
		{"fp32 polarized uvh5", "fp32pol", "uvh5"},
		{"obsparam npy", obsparamPath, "npy"},
	} {
		dir := t.TempDir()
		if c.config == "fp32pol" {
			c.config = writeSpec(t, dir, func(m map[string]any) { m["precision"] = 1; m["polarized"] = true }, "")
		}
		parts := shardAll(t, dir, c.config, 2, "--format", c.format)
		code, o, e := runCLI(t, "simulate", c.config, "--shard", "1/2", "--format", c.format, "-o", parts[1], "--backend", "cpu", "-q")
		if code != 0 || !strings.Contains(o, "nothing to do") {
			t.Errorf("%s: rerun of a good part: exit %d, %q, %q", c.name, code, o, e)
		}
	}
}
