package profile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// TestDescribeMachineBLASKernel: the machine block carries the system
// CBLAS's kernel, its configuration and the warnings, and summary.json
// names them blas_kernel.corename and warnings.
func TestDescribeMachineBLASKernel(t *testing.T) {
	generic := cblas.Kernel{Library: "libopenblas.so.0", CoreName: "Prescott",
		Config: "OpenBLAS 0.3.21 DYNAMIC_ARCH Prescott MAX_THREADS=64", CoreType: "Prescott"}
	cases := []struct {
		name       string
		choice     cblas.Choice
		wantKernel bool
		wantJSON   []string
		absentJSON []string
	}{
		{"gonum", cblas.Choice{Herk: cblas.Gonum{}}, false, []string{`"blas":"gonum"`, `"cpu_features"`}, []string{"blas_kernel", "warnings", "openblas"}},
		{"openblas generic", cblas.Choice{Herk: cblas.Gonum{}, Kernel: generic, Warnings: []string{"generic kernel"}}, true,
			[]string{`"corename":"Prescott"`, `"coretype":"Prescott"`, `"warnings":["generic kernel"]`, `"openblas":"OpenBLAS 0.3.21`}, nil},
	}
	for _, c := range cases {
		m := DescribeMachine(c.choice, nil)
		if (m.BLASKernel != nil) != c.wantKernel {
			t.Errorf("%s: BLASKernel %+v, want set %v", c.name, m.BLASKernel, c.wantKernel)
		}
		doc, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.wantJSON {
			if !strings.Contains(string(doc), s) {
				t.Errorf("%s: %s lacks %s", c.name, doc, s)
			}
		}
		for _, s := range c.absentJSON {
			if strings.Contains(string(doc), s) {
				t.Errorf("%s: %s has %s", c.name, doc, s)
			}
		}
	}
}

// TestProfileReportsKernel: a profile run with the system CBLAS records
// its corename.
func TestProfileReportsKernel(t *testing.T) {
	ch := cblas.Choose()
	if ch.Kernel.CoreName == "" {
		t.Skipf("no OpenBLAS loads here (%s)", ch.Kernel)
	}
	rep := small(t, Options{})
	if k := rep.Machine.BLASKernel; k == nil || k.CoreName != ch.Kernel.CoreName {
		t.Fatalf("machine block kernel %+v, want corename %q", k, ch.Kernel.CoreName)
	}
	t.Logf("%s; warnings %q", rep.Machine.BLASKernel, rep.Machine.Warnings)
}
