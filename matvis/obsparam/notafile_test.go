package obsparam

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNamedPathNotAFile: a catalog, layout, telescope config or beam file
// that is a directory, a FIFO or a symbolic-link loop is refused saying
// what the path is, with the field (all were "file not found").
func TestNamedPathNotAFile(t *testing.T) {
	beamTel := strings.Replace(testTelescope, "  1:\n    type: gaussian\n    sigma: 0.2\n", "  1: {filename: beam.fits}\n", 1)
	kinds := []struct {
		name string
		make func(p string) error
		want string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is a directory"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "is a named pipe (FIFO)"},
		{"link loop", func(p string) error { return os.Symlink(filepath.Base(p), p) }, "too many levels of symbolic links"},
	}
	named := []struct{ file, field, tel string }{
		{"sky.txt", "sources.catalog", ""},
		{"layout.csv", "telescope.array_layout", ""},
		{"telescope_config.yaml", "telescope.telescope_config_name", ""},
		{"beam.fits", "beam_paths.1.filename", beamTel},
	}
	for _, k := range kinds {
		for _, f := range named {
			t.Run(k.name+" "+f.file, func(t *testing.T) {
				obs := writeCase(t, files{tel: f.tel})
				p := filepath.Join(filepath.Dir(obs), f.file)
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if err := k.make(p); err != nil {
					t.Fatal(err)
				}
				_, err := Read(obs)
				wantErr(t, err, f.field, p, k.want, "give the path of a file")
				if err != nil && strings.Contains(err.Error(), "not found") {
					t.Errorf("%v: says not found", err)
				}
			})
		}
	}
}

// TestYAMLNotUTF8: a telescope config or obsparam with a byte that is not
// UTF-8 is refused naming the file, line and byte (yaml.v3 said only
// "invalid leading UTF-8 octet"); a UTF-8 BOM is still read.
func TestYAMLNotUTF8(t *testing.T) {
	tel := strings.Replace(testTelescope, "telescope_name: TEST", "telescope_name: T\xe9ST", 1)
	_, err := readCase(t, files{tel: tel})
	wantErr(t, err, "telescope_config.yaml:9", `"telescope_name: T\xe9ST"`, "0xE9 at byte 18", "not UTF-8")
	_, err = readCase(t, files{obs: "# caf\xe9\n" + obsWith("", "", "")})
	wantErr(t, err, "obsparam.yaml:1", "0xE9 at byte 6")
	mustRead(t, files{tel: "\ufeff" + testTelescope, obs: "\ufeff" + obsWith("", "", "")})
}
