package obsparam

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Filing says where the result goes, as pyuvsim's filing section does.
type Filing struct {
	// OutDir is the output directory as given ("." by default). Like
	// pyuvsim, a relative OutDir is relative to the working directory of
	// the run, not to the obsparam file.
	OutDir string
	// OutfileName, when not empty, is the file name; otherwise the name is
	// OutfilePrefix + "_" + OutfileSuffix (defaults "" and "results", so
	// pyuvsim's default name is "_results").
	OutfileName, OutfilePrefix, OutfileSuffix string
	// Format is "uvh5" or "npy".
	Format string
	// Clobber allows overwriting an existing file; without it pyuvsim
	// picks a new name (see OutputPath).
	Clobber bool
}

// outputFormats are what gomatvis writes; pyuvsim's others are refused.
var outputFormats = map[string]bool{"uvh5": true, "npy": true, "uvfits": true, "ms": true}

// parseFiling reads the filing section (sec may be nil: all defaults).
func (r *reader) parseFiling(sec *yaml.Node) error {
	f := Filing{OutDir: ".", OutfileSuffix: "results"}
	var fmtN *yaml.Node
	if sec != nil && !isNull(sec) {
		es, err := r.obs.entries(sec, "filing")
		if err != nil {
			return err
		}
		for _, e := range es {
			field := "filing." + e.key
			switch e.key {
			case "outdir":
				f.OutDir, err = r.obs.str(e.value, field)
			case "outfile_name":
				f.OutfileName, err = r.obs.text(e.value, field)
			case "outfile_prefix":
				f.OutfilePrefix, err = r.obs.text(e.value, field)
			case "outfile_suffix":
				f.OutfileSuffix, err = r.obs.text(e.value, field)
			case "output_format":
				f.Format, err = r.obs.str(e.value, field)
				fmtN = e.value
			case "clobber":
				f.Clobber, err = r.obs.boolean(e.value, field)
			default:
				r.warn(r.obs.warnf(e.keyN, field, "unknown filing key, ignored (pyuvsim ignores it too)"))
			}
			if err != nil {
				return err
			}
		}
	}
	if f.OutDir == "" {
		return r.obs.errf(sec, "filing.outdir", "must not be empty")
	}
	if err := r.settleFormat(&f, fmtN, sec); err != nil {
		return err
	}
	r.cfg.Filing = f
	return nil
}

// settleFormat applies pyuvsim's rule: output_format if given, else the
// name's extension, else uvh5 with a warning.
func (r *reader) settleFormat(f *Filing, fmtN, sec *yaml.Node) error {
	if fmtN != nil {
		if !outputFormats[f.Format] {
			return r.obs.errf(fmtN, "filing.output_format", "not supported by gomatvis: use uvh5 (pyuvsim's default), uvfits, ms or npy; pyuvsim's miriad output is not written")
		}
		return nil
	}
	ext := strings.TrimPrefix(filepath.Ext(f.baseName()), ".")
	switch ext {
	case "uvh5", "npy", "uvfits", "ms":
		f.Format = ext
	case "miriad":
		return r.obs.errf(sec, "filing.outfile_name", "the .%s extension asks for %s output, which gomatvis does not write: use .uvh5, .uvfits, .ms or .npy", ext, ext)
	default:
		f.Format = "uvh5"
		r.warn(r.obs.warnf(sec, "filing.output_format", "no output format specified: using uvh5 (as pyuvsim does)"))
	}
	return nil
}

// baseName is the file name before the format extension is added.
func (f *Filing) baseName() string {
	if f.OutfileName != "" {
		return f.OutfileName
	}
	return f.OutfilePrefix + "_" + f.OutfileSuffix
}

// OutputPath is the file pyuvsim would write for this filing section: the
// name (outfile_name, or prefix_suffix) in outdir, with ".<format>" added
// when the name does not already end with it. Without clobber, if that file
// exists, pyuvsim drops a trailing _<digits> from the name and tries
// name_0, name_1, ... until one is free; OutputPath does the same, so its
// answer depends on the files present when it is called.
//
// An absolute outfile_name is the path itself, outdir aside, as Python's
// os.path.join(outdir, name) makes it in pyuvsim (it lost its '/').
func (c *Config) OutputPath() string {
	f := &c.Filing
	p := filepath.Join(f.OutDir, f.baseName())
	if filepath.IsAbs(f.baseName()) {
		p = filepath.Clean(f.baseName())
	}
	if ext := "." + f.Format; !strings.HasSuffix(p, ext) {
		p += ext
	}
	if f.Clobber {
		return p
	}
	return nextFreeName(p)
}

// nextFreeName is pyuvsim's check_file_exists_and_increment.
func nextFreeName(p string) string {
	ext := filepath.Ext(p)
	base := strings.TrimSuffix(p, ext)
	if i := strings.LastIndex(base, "_"); i >= 0 && isDigits(base[i+1:]) {
		base = base[:i]
	}
	for n := 0; exists(p); n++ {
		p = fmt.Sprintf("%s_%d%s", base, n, ext)
	}
	return p
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
