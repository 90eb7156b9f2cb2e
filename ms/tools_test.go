package ms

import (
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// needTool skips a test when a casacore-tools program is absent;
// scripts/test.sh installs them.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed: apt-get install casacore-tools (scripts/test.sh does)", name)
	}
	return p
}

// TestCasacoreTools: casacore's own programs read the MS of a reference
// case. showtableinfo lists it as a Measurement Set of every row, DATA,
// FLAG and FLAG_CATEGORY each in a TiledColumnStMan; msselect
// opens it through casacore's MeasurementSet class (which checks the MS v2
// required columns of every table) and selects one baseline's rows; TaQL's
// sum of |DATA| equals the UVH5's (phasing leaves |V| unchanged).
func TestCasacoreTools(t *testing.T) {
	showtableinfo, msselect, taql := needTool(t, "showtableinfo"), needTool(t, "msselect"), needTool(t, "taql")
	const name = "stokesI-gaussian"
	dir := t.TempDir()
	path := writeRef(t, name, dir)

	out, err := exec.Command(showtableinfo, "in="+path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Measurement Set") || !strings.Contains(string(out), "84 rows, 22 columns") {
		t.Fatalf("showtableinfo: %v\n%s", err, out)
	}
	out, err = exec.Command(showtableinfo, "in="+path, "dm=true").CombinedOutput()
	for _, col := range []string{"DATA", "FLAG", "FLAG_CATEGORY"} {
		if want := "TiledColumnStMan file=table.f"; err != nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "name=Tiled"+col+"\n") {
			t.Errorf("showtableinfo dm=true does not list %s in a TiledColumnStMan: %v\n%s", col, err, out)
		}
	}

	sel := filepath.Join(dir, "sel.ms")
	out, err = exec.Command(msselect, "in="+path, "out="+sel, "baseline=HH0&HH1", "deep=true").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "containing 3 rows (out of 84)") {
		t.Fatalf("msselect: %v\n%s", err, out)
	}

	out, err = exec.Command(taql, "-nopr", "select gsum(abs(DATA)) from "+path).CombinedOutput()
	if err != nil {
		t.Fatalf("taql: %v\n%s", err, out)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	got, err := strconv.ParseFloat(lines[len(lines)-1], 64)
	if err != nil {
		t.Fatalf("taql output %q: %v", out, err)
	}
	f, err := uvh5.ReadFile(filepath.Join(refDir, "pyuvsim-"+name, name+".uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, v := range f.Vis {
		c := complex64(v)
		want += math.Hypot(float64(real(c)), float64(imag(c)))
	}
	// TaQL prints 6 significant digits.
	if math.Abs(got-want) > 1e-5*want {
		t.Errorf("TaQL gsum(abs(DATA)) = %v, the UVH5's sum of |V| = %v", got, want)
	}
}
