package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/part"
)

// obsparamPath is a small pyuvsim configuration (3 freqs × 3 times).
const obsparamPath = "../../testdata/reference/pyuvsim-stokesI-gaussian/obsparam.yaml"

// shardAll runs simulate --shard i/n for every i and returns the parts.
func shardAll(t *testing.T, dir, config string, n int, extra ...string) []string {
	t.Helper()
	var parts []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("part-%03d.gmvpart", i))
		args := append([]string{"simulate", config, "--shard", fmt.Sprintf("%d/%d", i, n), "-o", p, "--backend", "cpu", "-q"}, extra...)
		code, out, e := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, e)
		}
		// --block 1 (one integration a block) reaches the shard's run.
		if slices.Contains(extra, "--block") && !strings.Contains(out, "block(s) of up to 1 times × 1 channels") {
			t.Errorf("shard %d/%d with %v: not one integration a block:\n%s", i, n, extra, out)
		}
		parts = append(parts, p)
	}
	return parts
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShardMergeEqualsUnsharded: a merged sharded run is the unsharded
// run's file byte for byte, for npy and UVH5, for shard counts that do not
// divide the grid and for more shards than times (channel blocks).
func TestShardMergeEqualsUnsharded(t *testing.T) {
	for _, c := range []struct {
		name, config, ext string
		extra             []string
		ns                []int
	}{
		{"spec npy", "example", ".npy", nil, []int{1, 4, 7, 13}}, // 9 freqs × 6 times
		{"spec uvh5", "example", ".uvh5", []string{"--format", "uvh5"}, []int{4, 11}},
		{"spec npy, shards over 2 backends each", "example", ".npy", []string{"--devices", "0,1"}, []int{3}},
		{"spec uvh5, blocks of one integration", "example", ".uvh5", []string{"--format", "uvh5", "--block", "1"}, []int{3}},
		{"obsparam uvh5", obsparamPath, ".uvh5", []string{"--format", "uvh5"}, []int{2, 5}}, // 3 × 3
		{"fp32 polarized npy", "fp32pol", ".npy", nil, []int{4, 7}},
		{"fp32 polarized uvh5", "fp32pol", ".uvh5", []string{"--format", "uvh5"}, []int{4, 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.config == "fp32pol" {
				c.config = writeSpec(t, dir, func(m map[string]any) { m["precision"] = 1; m["polarized"] = true }, "")
			}
			whole := filepath.Join(dir, "whole"+c.ext)
			if code, _, e := runCLI(t, "simulate", c.config, "-o", whole, "--backend", "cpu", "-q"); code != 0 {
				t.Fatalf("unsharded: %s", e)
			}
			want := mustRead(t, whole)
			for _, n := range c.ns {
				sd := filepath.Join(dir, fmt.Sprint(n))
				os.Mkdir(sd, 0o755)
				parts := shardAll(t, sd, c.config, n, c.extra...)
				out := filepath.Join(sd, "merged"+c.ext)
				if code, _, e := runCLI(t, append([]string{"merge", "-o", out}, parts...)...); code != 0 {
					t.Fatalf("n=%d merge: %s", n, e)
				}
				if got := mustRead(t, out); !bytes.Equal(got, want) {
					t.Errorf("n=%d: merged %s (%d bytes) differs from the unsharded run (%d bytes)", n, c.ext, len(got), len(want))
				}
				if c.ext == ".npy" {
					checkMergedMeta(t, metaPath(whole), metaPath(out), n)
				}
			}
		})
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	parts := shardAll(t, dir, "example", 3)
	otherDir := filepath.Join(dir, "other")
	os.Mkdir(otherDir, 0o755)
	other := shardAll(t, otherDir, "example", 3, "--coord-method", "CoordinateRotationAstropy")
	uv := filepath.Join(dir, "uv")
	os.Mkdir(uv, 0o755)
	uvParts := shardAll(t, uv, "example", 3, "--format", "uvh5")
	out := filepath.Join(dir, "m.npy")
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"missing", []string{parts[0], parts[2]}, 1, []string{"1 of 3 shards missing: 1 (rerun them, e.g. sbatch --array=1 "}},
		{"doubled", []string{parts[0], parts[1], parts[2], parts[1]}, 1, []string{"shard 1/3 given twice", parts[1]}},
		{"mismatched hash", []string{parts[0], other[1], parts[2]}, 1, []string{"different configurations", "config hash"}},
		{"wrong format", uvParts, 1, []string{"made for uvh5 output, not npy"}},
		{"not a part", []string{parts[0], parts[1], filepath.Join("..", "..", "testdata", "specs", "stokesI-gaussian.json")}, 1, []string{"not a gomatvis part"}},
		{"no parts", nil, 2, []string{"no PART"}},
	} {
		code, _, e := runCLI(t, append([]string{"merge", "-o", out}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.code, e)
		}
		for _, w := range c.wants {
			if !strings.Contains(e, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, e, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: a refused merge wrote %s", c.name, out)
		}
	}
}

// TestShardRerun: a complete part is not recomputed; a truncated,
// damaged, other-shard or other-configuration one is.
func TestShardRerun(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.gmvpart")
	args := []string{"simulate", "example", "--shard", "2/5", "-o", p, "--backend", "cpu", "-q"}
	if code, _, e := runCLI(t, args...); code != 0 {
		t.Fatal(e)
	}
	good := mustRead(t, p)
	st0, _ := os.Stat(p)
	code, o, _ := runCLI(t, args...)
	if st, _ := os.Stat(p); code != 0 || !strings.Contains(o, "nothing to do") || !st.ModTime().Equal(st0.ModTime()) {
		t.Fatalf("rerun of a complete part: exit %d, %q, rewritten %v", code, o, !st.ModTime().Equal(st0.ModTime()))
	}
	// A run writes format 2: its data follow the head magic, its
	// metadata and trailer end the file.
	flipped := append([]byte(nil), good...)
	flipped[len(part.Magic2)+5] ^= 0x40
	badTrailer := append([]byte(nil), good...)
	badTrailer[len(badTrailer)-1] ^= 0x40
	for _, c := range []struct {
		name, want string
		content    []byte
		args       []string
	}{
		{"truncated", "truncated", good[:len(good)-100], args},
		{"damaged", "SHA-256", flipped, args},
		{"damaged trailer", "no \"GOMATVIS-PART/2\" trailer", badTrailer, args},
		{"junk", "not a gomatvis part", []byte("partial"), args},
		{"other shard", "holds shard 2/5", good, []string{"simulate", "example", "--shard", "3/5", "-o", p, "--backend", "cpu", "-q"}},
		{"other config", "another configuration", good, append(append([]string(nil), args...), "--coord-method", "CoordinateRotationAstropy")},
	} {
		if err := os.WriteFile(p, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		code, o, e := runCLI(t, c.args...)
		if code != 0 || !strings.Contains(e, c.want) || !strings.Contains(e, "recomputing") || strings.Contains(o, "nothing to do") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", c.name, code, o, e)
		}
		if _, err := part.Verify(context.Background(), p); err != nil {
			t.Errorf("%s: after the rerun: %v", c.name, err)
		}
	}
}

func TestShardBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "5/5", "-o", filepath.Join(dir, "p.gmvpart")}, "0 ≤ I < N"},
		{[]string{"--shard", "0/55", "-o", filepath.Join(dir, "p.gmvpart")}, "55 shards"},
		{[]string{"--shard", "0/2", "-o", filepath.Join(dir, "p.npy")}, ".gmvpart"},
		{[]string{"--shard", "0/2", "--format", "fits", "-o", filepath.Join(dir, "p.gmvpart")}, "--format"},
		{[]string{"--format", "npy", "-o", filepath.Join(dir, "p.npy")}, "--format is for --shard"},
	} {
		code, _, e := runCLI(t, append([]string{"simulate", "example", "--backend", "cpu", "-q"}, c.args...)...)
		if code == 0 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, e, c.want)
		}
	}
}

// TestSimulateDevicesCPU: --devices over CPU backends gives the
// single-backend file byte for byte.
func TestSimulateDevicesCPU(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	if code, _, e := runCLI(t, "simulate", "example", "-o", a, "--backend", "cpu", "-q"); code != 0 {
		t.Fatal(e)
	}
	code, o, e := runCLI(t, "simulate", "example", "-o", b, "--backend", "cpu", "--devices", "0,1,2", "-q")
	if code != 0 || !strings.Contains(o, "cpu×3") {
		t.Fatalf("exit %d: %s %s", code, o, e)
	}
	va, vb := mustRead(t, a), mustRead(t, b)
	if !bytes.Equal(va, vb) {
		t.Error("--devices 0,1,2 differs from one backend")
	}
}

// checkMergedMeta compares a merged run's OUT.meta.json with the
// unsharded run's: the same axes, values and run details (but the
// backend's name), and the shard count.
func checkMergedMeta(t *testing.T, wholePath, mergedPath string, n int) {
	t.Helper()
	var w, m outputMeta
	if err := json.Unmarshal(mustRead(t, wholePath), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustRead(t, mergedPath), &m); err != nil {
		t.Fatal(err)
	}
	if m.Shards != n {
		t.Errorf("merged meta: shards %d, want %d", m.Shards, n)
	}
	// The backend may be several (--devices); the data's bytes are compared apart.
	w.WallS, w.Created, w.Shards, w.Backend, m.WallS, m.Created, m.Shards, m.Backend = 0, "", 0, "", 0, "", 0, ""
	// The phases are the unsharded run's times, as wall_s (a merge has none).
	w.Phases, m.Phases = nil, nil
	wb, _ := json.Marshal(w)
	mb, _ := json.Marshal(m)
	if !bytes.Equal(wb, mb) {
		t.Errorf("merged meta differs beyond time and shards:\n%s\n%s", wb, mb)
	}
}
