package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecFilesAreNotOutputs checks that no file a command writes or
// removes is a file a simspec names (its catalog, layout_csv), in every
// command that reads a spec or parts: the output itself, its metadata
// and partial companions, the temporaries a run clears, the merge's
// output of a Slurm job. Each of these used to be written over or
// deleted: only the spec and its beam files were protected.
func TestSpecFilesAreNotOutputs(t *testing.T) {
	// catalogSpec writes a spec whose sky is the text catalog name.
	catalogSpec := func(t *testing.T, dir, name string) string {
		t.Helper()
		writeBigCatalog(t, filepath.Join(dir, name), 3)
		return writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
			m["sources"] = map[string]any{"catalog": map[string]any{"path": name, "filetype": "text"}}
		}), "")
	}
	// layoutSpec writes a spec whose antennas are the layout file name.
	layoutSpec := func(t *testing.T, dir, name string) string {
		t.Helper()
		layout := "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 1 0 14.6 0 0.3\nA2 2 0 7.3 12.6 -0.5\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(layout), 0o644); err != nil {
			t.Fatal(err)
		}
		return writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
			delete(m, "antennas_enu_m")
			delete(m, "beam_idx")
			m["layout_csv"] = name
		}), "")
	}
	// A temporary of a writer whose process is gone (no pid this large).
	const staleTemp = ".v.npy.tmp-2147483000-abc"
	cases := []struct {
		name string
		// setup returns the arguments; want are what the refusal names.
		setup func(t *testing.T, dir string) []string
		want  []string
	}{
		{"simulate: catalog as -o", func(t *testing.T, dir string) []string {
			return []string{"simulate", catalogSpec(t, dir, "sky.uvh5"), "-o", filepath.Join(dir, "sky.uvh5")}
		}, []string{"output DIR/sky.uvh5 is the input catalog (sources.catalog.path) DIR/sky.uvh5", "choose another -o"}},
		{"simulate: catalog as OUT.meta.json", func(t *testing.T, dir string) []string {
			return []string{"simulate", catalogSpec(t, dir, "o.meta.json"), "-o", filepath.Join(dir, "o.npy")}
		}, []string{"output DIR/o.meta.json is the input catalog (sources.catalog.path) DIR/o.meta.json: -o DIR/o.npy writes it as its metadata"}},
		{"simulate: catalog as OUT.partial.uvh5", func(t *testing.T, dir string) []string {
			return []string{"simulate", catalogSpec(t, dir, "o.partial.uvh5"), "-o", filepath.Join(dir, "o.uvh5")}
		}, []string{"output DIR/o.partial.uvh5 is the input catalog (sources.catalog.path) DIR/o.partial.uvh5: -o DIR/o.uvh5 writes it as the partial output of a cancelled run"}},
		{"simulate: catalog named as a stale temporary of -o", func(t *testing.T, dir string) []string {
			return []string{"simulate", catalogSpec(t, dir, staleTemp), "-o", filepath.Join(dir, "v.npy")}
		}, []string{"output DIR/v.npy: DIR/" + staleTemp + " is named as a temporary of DIR/v.npy", "the input catalog (sources.catalog.path) DIR/" + staleTemp, "rename the input"}},
		{"simulate: -o a hard link to the catalog", func(t *testing.T, dir string) []string {
			s := catalogSpec(t, dir, "sky.txt")
			if err := os.Link(filepath.Join(dir, "sky.txt"), filepath.Join(dir, "v.uvh5")); err != nil {
				t.Skip(err)
			}
			return []string{"simulate", s, "-o", filepath.Join(dir, "v.uvh5")}
		}, []string{"output DIR/v.uvh5 is the input catalog (sources.catalog.path) DIR/sky.txt"}},
		{"simulate: layout_csv as -o", func(t *testing.T, dir string) []string {
			return []string{"simulate", layoutSpec(t, dir, "ants.npy"), "-o", filepath.Join(dir, "ants.npy")}
		}, []string{"output DIR/ants.npy is the input array layout (layout_csv) DIR/ants.npy"}},
		{"simulate --shard: catalog as the part", func(t *testing.T, dir string) []string {
			return []string{"simulate", catalogSpec(t, dir, "sky.gmvpart"), "--shard", "1/2", "-o", filepath.Join(dir, "sky.gmvpart")}
		}, []string{"output DIR/sky.gmvpart is the input catalog (sources.catalog.path) DIR/sky.gmvpart"}},
		{"topo: catalog as -o", func(t *testing.T, dir string) []string {
			return []string{"topo", catalogSpec(t, dir, "sky.npy"), "-o", filepath.Join(dir, "sky.npy")}
		}, []string{"output DIR/sky.npy is the input catalog (sources.catalog.path) DIR/sky.npy"}},
		{"topo: layout_csv as -o", func(t *testing.T, dir string) []string {
			return []string{"topo", layoutSpec(t, dir, "ants.npy"), "-o", filepath.Join(dir, "ants.npy")}
		}, []string{"output DIR/ants.npy is the input array layout (layout_csv) DIR/ants.npy"}},
		{"slurm: catalog as the merge's -o", func(t *testing.T, dir string) []string {
			return []string{"slurm", catalogSpec(t, dir, "sky.npy"), "--tasks", "2", "-o", filepath.Join(dir, "sky.npy"), "--workdir", filepath.Join(dir, "work")}
		}, []string{"DIR/sky.npy is the input catalog (sources.catalog.path) DIR/sky.npy", "choose another -o"}},
		{"slurm: catalog as the merge's metadata", func(t *testing.T, dir string) []string {
			return []string{"slurm", catalogSpec(t, dir, "o.meta.json"), "--tasks", "2", "-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "work")}
		}, []string{"DIR/o.meta.json is the input catalog (sources.catalog.path) DIR/o.meta.json"}},
		{"slurm: catalog as the array script", func(t *testing.T, dir string) []string {
			os.Mkdir(filepath.Join(dir, "work"), 0o755)
			return []string{"slurm", catalogSpec(t, dir, "work/array.sbatch"), "--tasks", "2", "-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "work")}
		}, []string{"DIR/work/array.sbatch is the input catalog (sources.catalog.path) DIR/work/array.sbatch"}},
		{"slurm: catalog named as a part in the work directory", func(t *testing.T, dir string) []string {
			os.Mkdir(filepath.Join(dir, "work"), 0o755)
			return []string{"slurm", catalogSpec(t, dir, "work/part-0000.gmvpart"), "--tasks", "2", "-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "work")}
		}, []string{"DIR/work is where the jobs write their parts and logs, and holds the input catalog (sources.catalog.path) DIR/work/part-0000.gmvpart"}},
		{"merge: a part named as a stale temporary of -o", func(t *testing.T, dir string) []string {
			parts := shardAll(t, dir, "example", 2)
			p := filepath.Join(dir, staleTemp)
			if err := os.Rename(parts[0], p); err != nil {
				t.Fatal(err)
			}
			return []string{"merge", "-o", filepath.Join(dir, "v.npy"), p, parts[1]}
		}, []string{"DIR/" + staleTemp + " is named as a temporary of DIR/v.npy", "the input DIR/" + staleTemp, "rename the input"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.setup(t, dir)
			before := treeState(t, dir)
			code, _, stderr := runCLI(t, args...)
			msg := strings.ReplaceAll(stderr, dir, "DIR")
			if code == 0 {
				t.Fatalf("exit 0, stderr %q; want a refusal", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
			after := treeState(t, dir)
			if len(after) != len(before) {
				t.Errorf("%d files before, %d after the refusal", len(before), len(after))
			}
			for n, st := range before {
				if after[n] != st {
					t.Errorf("%s changed", n)
				}
			}
		})
	}
}

// treeState is fileState of every file under dir, by relative path.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		st[rel] = fileState(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
