package main

import (
	"fmt"
	"path/filepath"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// Every file a command reads is gathered here once, one function per
// kind of input, and every file it writes or removes (its outputs, their
// companions and the temporaries it clears) is checked against all of
// them before any work: an output that is an input would destroy it.

// namedInput is an input file and what it is to the run ("" for nothing
// to say).
type namedInput struct {
	path, role string
}

// namedAs names every path with one role.
func namedAs(paths []string, role string) []namedInput {
	var in []namedInput
	for _, p := range paths {
		in = append(in, namedInput{p, role})
	}
	return in
}

// specFiles are the files a spec reads: the spec itself (not the
// embedded example), its layout_csv, its catalog and its beamfits beams,
// relative paths resolved against the spec's directory as the run
// resolves them.
func specFiles(path string, spec *simspec.Spec) []namedInput {
	var in []namedInput
	if path != "example" {
		in = append(in, namedInput{path, "spec"})
	}
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(spec.Dir, p)
	}
	if spec.LayoutCSV != "" {
		in = append(in, namedInput{rel(spec.LayoutCSV), "array layout (layout_csv)"})
	}
	if c := spec.Sources.Catalog; c != nil && c.Path != "" {
		in = append(in, namedInput{rel(c.Path), "catalog (sources.catalog.path)"})
	}
	for i, b := range spec.Beams {
		if b.Type == "beamfits" && b.Path != "" {
			in = append(in, namedInput{rel(b.Path), fmt.Sprintf("beam file (beams[%d].path)", i)})
		}
	}
	return in
}

// obsparamFiles are the files a pyuvsim obsparam reads: itself, its
// telescope config, layout, catalog and beamfits beams.
func obsparamFiles(cfg *obsparam.Config) []namedInput {
	t := cfg.Telescope
	files := []namedInput{
		{cfg.Path, "obsparam"}, {t.ConfigFile, "telescope config (telescope.telescope_config_name)"},
		{t.LayoutFile, "array layout (telescope.array_layout)"}, {cfg.Sources.Catalog, "catalog (sources.catalog)"},
	}
	for i, b := range t.Beams {
		if b.Type == "beamfits" {
			files = append(files, namedInput{b.Path, fmt.Sprintf("beam file (beam_paths[%d])", t.BeamIDs[i])})
		}
	}
	return files
}

// flagFiles are the files given by flags (--topo, --eop), those left
// empty dropped.
func flagFiles(flags ...namedInput) []namedInput {
	var in []namedInput
	for _, f := range flags {
		if f.path != "" {
			in = append(in, f)
		}
	}
	return in
}

// writtenFile is a file a command writing -o out creates, replaces or
// removes, and what it is to that output ("" for the output itself).
type writtenFile struct {
	path, what string
}

// writtenFiles are the files a command writing -o out creates, replaces
// or removes: the output, its metadata sidecar and the partial output of
// a cancelled run (written at a cancel, removed after a complete run).
func writtenFiles(out string) []writtenFile {
	return []writtenFile{
		{out, ""},
		{metaPath(out), "its metadata"},
		{partialPath(out), "the partial output of a cancelled run (removed after a complete run)"},
	}
}

// outputFiles are the files a run writing -o out may create or replace.
func outputFiles(out string) []string {
	var files []string
	for _, w := range writtenFiles(out) {
		files = append(files, w.path)
	}
	return files
}

// clobbers says how writing (or clearing the temporaries of) the file
// out would destroy the input in ("" when it would not): out is in, by
// path or as one file (links, other spellings), or in is a name of out's
// temporaries, which writeOutputs clears as left by a killed run.
func clobbers(out string, in namedInput) string {
	if in.path == "" {
		return ""
	}
	if samePath(out, in.path) {
		return "is"
	}
	names := []string{in.path}
	if r, err := filepath.EvalSymlinks(in.path); err == nil {
		names = append(names, r)
	}
	for _, n := range names {
		if atomicfile.IsTempOf(out, filepath.Base(n)) && samePath(filepath.Dir(out), filepath.Dir(n)) {
			return "has as a temporary"
		}
	}
	return ""
}

// inputError is the refusal of an output that would destroy an input:
// it names both files, the input's role and what the file is to -o.
func inputError(out string, w writtenFile, how string, in namedInput, hint string) error {
	what := "the input"
	if in.role != "" {
		what += " " + in.role
	}
	if how == "has as a temporary" {
		return fmt.Errorf("output %s: %s is named as a temporary of %s, which a run clears as left by a killed run; it is %s %s, which would be deleted; rename the input or %s",
			out, in.path, w.path, what, in.path, hint)
	}
	if w.what == "" {
		return fmt.Errorf("output %s is %s %s: writing it would destroy the input; %s", w.path, what, in.path, hint)
	}
	return fmt.Errorf("output %s is %s %s: -o %s writes it as %s, which would destroy the input; %s", w.path, what, in.path, out, w.what, hint)
}

// checkOutputNotInput refuses an output any of whose files (writtenFiles
// and their temporaries) is one of the inputs, naming the inputs' roles;
// the refusal ends with hint (how to choose another output).
func checkOutputNotInput(out string, inputs []namedInput, hint string) error {
	for _, w := range writtenFiles(out) {
		for _, in := range inputs {
			if how := clobbers(w.path, in); how != "" {
				return inputError(out, w, how, in, hint)
			}
		}
	}
	return nil
}

// checkNotInput refuses an output any of whose files is one of the inputs
// (os.SameFile: links and other spellings of a path included).
func checkNotInput(out string, inputs []string) error {
	return checkOutputNotInput(out, namedAs(inputs, ""), "choose another -o")
}

// checkFilesNotInputs fails when any of the files a command writes, outs,
// is one of its inputs (for commands whose -o is a directory).
func checkFilesNotInputs(outs []string, inputs []namedInput, hint string) error {
	for _, o := range outs {
		for _, in := range inputs {
			if how := clobbers(o, in); how != "" {
				return inputError(o, writtenFile{o, ""}, how, in, hint)
			}
		}
	}
	return nil
}
