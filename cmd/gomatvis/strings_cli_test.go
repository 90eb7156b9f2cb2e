package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestCLIStringsUTF8: UTF-8 names go to the UVH5 whole (h5py decodes every
// string as UTF-8 and gets them back), the same run to UVFITS is refused
// naming the keyword and character (FITS headers are ASCII), and a layout
// byte that is not UTF-8 is refused at input with its file, line and byte
// (the UVH5 written from it could not be read by h5py or pyuvdata).
func TestCLIStringsUTF8(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
	dir := filepath.Dir(obs)
	editFile(t, filepath.Join(dir, "telescope_config.yaml"), `telescope_name: HERA`, "telescope_name: HÉRA")
	editFile(t, filepath.Join(dir, "layout.csv"), `HH0 `, "Hé0 ")
	editFile(t, filepath.Join(dir, "layout.csv"), `HH1 `, "Ω_1 ")

	out := filepath.Join(dir, "run.uvh5")
	if code, o, e := runCLI(t, "simulate", obs, "-q", "--backend", "cpu", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s%s", code, o, e)
	}
	script := `import h5py, sys, json
out = {}
def visit(name, obj):
    if isinstance(obj, h5py.Dataset) and obj.dtype.kind in 'SO':
        v = obj.asstr(encoding='utf-8', errors='strict')[()]
        out[name] = [str(x) for x in v] if hasattr(v, 'shape') and v.shape else str(v)
with h5py.File(sys.argv[1], 'r') as f:
    f.visititems(visit)
print(json.dumps(out, ensure_ascii=False))
`
	var stderr bytes.Buffer
	cmd := exec.Command(py, "-c", script, out)
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("h5py could not decode the strings as UTF-8: %v\n%s", err, stderr.String())
	}
	for _, w := range []string{`"Header/telescope_name": "HÉRA"`, `"Hé0"`, `"Ω_1"`} {
		if !strings.Contains(string(got), w) {
			t.Errorf("h5py read %s\nlacks %s", got, w)
		}
	}

	code, _, e := runCLI(t, "simulate", obs, "-q", "--backend", "cpu", "-o", filepath.Join(dir, "run.uvfits"))
	if code == 0 {
		t.Fatal("UVFITS written with a non-ASCII telescope name")
	}
	for _, w := range []string{"run.uvfits", "TELESCOP", `"HÉRA"`, "U+00C9", ".uvh5"} {
		if !strings.Contains(e, w) {
			t.Errorf("stderr %q lacks %q", e, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run.uvfits")); err == nil {
		t.Error("a UVFITS was left")
	}

	layout := filepath.Join(dir, "layout.csv")
	editFile(t, layout, `Hé0 `, "H\xe90 ")
	code, _, e = runCLI(t, "simulate", obs, "-q", "--backend", "cpu", "-o", filepath.Join(dir, "bad.uvh5"))
	if code == 0 {
		t.Fatal("a layout that is not UTF-8 was read")
	}
	for _, w := range []string{layout + ":2", "0xE9 at byte 2", "not UTF-8"} {
		if !strings.Contains(e, w) {
			t.Errorf("stderr %q lacks %q", e, w)
		}
	}
}
