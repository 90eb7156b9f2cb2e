package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// outputFormat is one kind of file that -o may name, by extension.
type outputFormat struct {
	ext, what string
	// sidecar says OUT.meta.json is written with OUT (an npy's axes).
	sidecar bool
}

// simulateFormats are the outputs of simulate.
func simulateFormats() []outputFormat {
	return []outputFormat{{".npy", "NumPy array, with OUT.meta.json", true}, {".uvh5", "UVH5, as pyuvdata reads it", false}}
}

// uvfitsFormat is simulate's UVFITS output (not a merge's or slurm's).
func uvfitsFormat() outputFormat {
	return outputFormat{".uvfits", "UVFITS as pyuvsim writes it (phased to the first time's zenith; --uvfits-drift: unphased)", false}
}

// msFormat is simulate's Measurement Set output (a directory).
func msFormat() outputFormat {
	return outputFormat{".ms", "Measurement Set v2 as pyuvdata writes it (phased), a directory", false}
}

// isMS says whether an output path asks for a Measurement Set.
func isMS(out string) bool { return strings.EqualFold(filepath.Ext(out), ".ms") }

// isUVFITS says whether an output path asks for UVFITS.
func isUVFITS(out string) bool { return strings.EqualFold(filepath.Ext(out), ".uvfits") }

// openOutput opens the writer of a run's output, chosen by out's
// extension: UVFITS, UVH5 or, for anything else, matvis's .npy with its
// meta.json (sidecar makes it from the run's summary). It finishes its
// files as one step with respect to other gomatvis runs (writeOutputs).
func openOutput(out string, sim *matvis.Simulation, obs *matvis.Observation, ph phasing, stderr io.Writer, sidecar func(output.Summary) ([]byte, error)) (output.BlockWriter, error) {
	var w output.BlockWriter
	var err error
	switch {
	case isMS(out):
		w, err = output.NewMS(out, sim, obs, ph.centre)
	case isUVFITS(out):
		w, err = output.NewUVFITSWith(out, sim, obs, uvdata.UVFITSPhasing{Drift: ph.drift, Centre: ph.centre})
	case isUVH5(out):
		w, err = output.NewUVH5(out, sim, obs)
	default:
		w, err = output.NewNPY(out, sim, metaPath(out), sidecar)
	}
	if err != nil {
		return nil, err
	}
	return lockedOutput{w, out, stderr}, nil
}

// lockedOutput finishes its writer's files under writeOutputs: under a
// lock of their directory, after clearing temporaries of killed runs; a
// complete run removes a stale partial output.
type lockedOutput struct {
	output.BlockWriter
	out    string
	stderr io.Writer
}

// Close finishes the output at its path.
func (l lockedOutput) Close() error {
	if err := writeOutputs(l.out, true, l.stderr, l.BlockWriter.Close); err != nil {
		return fmt.Errorf("writing %s: %w", l.out, err)
	}
	return nil
}

// ClosePartial finishes a cancelled run's partial output.
func (l lockedOutput) ClosePartial() (output.Kept, error) {
	var k output.Kept
	err := writeOutputs(l.out, false, l.stderr, func() (err error) {
		k, err = l.BlockWriter.ClosePartial()
		return err
	})
	return k, err
}

// Summarize hands the run's summary to the writer that records it.
func (l lockedOutput) Summarize(s output.Summary) {
	if w, ok := l.BlockWriter.(output.Summarizer); ok {
		w.Summarize(s)
	}
}

// partExt is the extension of a shard's part file.
const partExt = ".gmvpart"

// partFormats is the output of simulate --shard.
func partFormats() []outputFormat {
	return []outputFormat{{partExt, "a part of a sharded run, for gomatvis merge", false}}
}

// formatNames lists formats as "OUT.npy or OUT.uvh5".
func formatNames(formats []outputFormat) string {
	var names []string
	for _, f := range formats {
		names = append(names, "OUT"+f.ext)
	}
	return strings.Join(names, " or ")
}

// npyFormat is the only output of topo.
func npyFormat() []outputFormat {
	return []outputFormat{{".npy", "NumPy array", false}}
}

// partialPath is where a cancelled run's finished integrations go.
func partialPath(out string) string { return output.PartialPath(out) }

// checkOutputName refuses, before any work, an output with an extension
// not in formats, one that names a directory or whose OUT.meta.json
// would be one (the run would fail only at its end), and one whose
// directory cannot be written.
func checkOutputName(out string, formats []outputFormat) error {
	ext := strings.ToLower(filepath.Ext(out))
	var exts []string
	var format *outputFormat
	for i, f := range formats {
		exts = append(exts, f.ext)
		if ext == f.ext {
			format = &formats[i]
		}
	}
	if format == nil {
		return fmt.Errorf("%w: -o %s: extension %q: want %s", errUsage, out, ext, strings.Join(exts, " or "))
	}
	if _, err := os.Lstat(out); err == nil && ext == ".ms" {
		return fmt.Errorf("output -o %s exists: a Measurement Set is a directory that is not replaced; remove it or choose another -o", out)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("output -o %s is a directory; name a file", out)
	}
	if m := metaPath(out); format.sidecar {
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			return fmt.Errorf("output -o %s: its metadata %s is a directory; remove it or choose another -o", out, m)
		}
	}
	return checkWritable(out)
}

// specInputs are the files a spec reads: the spec and its beamfits beams.
func specInputs(path string, spec *simspec.Spec) []string {
	var in []string
	if path != "example" {
		in = append(in, path)
	}
	for _, b := range spec.Beams {
		if b.Type == "beamfits" && b.Path != "" {
			p := b.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(spec.Dir, p)
			}
			in = append(in, p)
		}
	}
	return in
}

// writeOutputs runs write, which writes out's files, as one step with
// respect to other gomatvis runs: under a lock of out's directory, after
// removing temporaries left by killed writers of any of out's files. A
// successful complete run (complete) also removes a stale
// OUT.partial.npy of an earlier cancelled run.
func writeOutputs(out string, complete bool, stderr io.Writer, write func() error) error {
	// A file system without flock must not cost the finished run.
	unlock, err := atomicfile.Lock(filepath.Dir(out))
	if err != nil {
		fmt.Fprintf(stderr, "warning: writing %s unlocked (a concurrent run may mix its files with these): %v\n", out, err)
		unlock = func() {}
	}
	defer unlock()
	for _, f := range outputFiles(out) {
		removed, err := atomicfile.RemoveStale(f)
		for _, r := range removed {
			fmt.Fprintf(stderr, "removed %s, left by a killed run\n", r)
		}
		if err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", err)
		}
	}
	if err := write(); err != nil {
		return err
	}
	if complete {
		p := partialPath(out)
		remove := os.Remove
		if isMS(out) {
			remove = removeMS
		}
		if err := remove(p); err == nil {
			fmt.Fprintf(stderr, "removed %s of an earlier cancelled run\n", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s is written, but the stale %s remains: %w", out, p, err)
		}
	}
	return nil
}

// removeMS removes a stale partial MS directory: only one that holds a
// table.dat (a casacore table), so that no other directory is lost.
func removeMS(dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "table.dat")); err != nil {
		return fmt.Errorf("%s is not a Measurement Set (no table.dat); not removed", dir)
	}
	return os.RemoveAll(dir)
}

// checkOutputDir refuses, before any work, an output directory that is
// a file, or that cannot be created or written in: the nearest existing
// directory on its path must be writable.
func checkOutputDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("output -o %s is not a directory", dir)
	case err == nil:
		return checkWritable(filepath.Join(dir, "summary.json"))
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("output -o %s: %w", dir, err)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if parent == dir {
		return fmt.Errorf("output -o %s: cannot be created", dir)
	}
	return checkOutputDir(parent)
}
