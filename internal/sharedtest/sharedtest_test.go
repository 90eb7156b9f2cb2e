package sharedtest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Logf and Fatalf were given.
type recorder struct {
	testing.TB
	logs, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Logf(f string, a ...any) {
	r.logs = append(r.logs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(f, a...))
}

// TestSeedEnv: a seed in GOMATVIS_TEST_SEED is used and logged, the same
// seed and stream draw the same values, and a value that is not an
// unsigned integer fails the test naming the variable and the value.
func TestSeedEnv(t *testing.T) {
	t.Setenv(SeedEnv, "2169039517791694458")
	r := &recorder{TB: t}
	if s := Seed(r); s != 2169039517791694458 {
		t.Errorf("Seed = %d, want the environment's 2169039517791694458", s)
	}
	a, b := RNG(r, 9).Uint64(), RNG(r, 9).Uint64()
	if a != b {
		t.Errorf("one seed and stream drew %d and %d", a, b)
	}
	want := []string{"random seed 2169039517791694458", "random seed 2169039517791694458 (stream 9)", "random seed 2169039517791694458 (stream 9)"}
	if strings.Join(r.logs, "|") != strings.Join(want, "|") || len(r.fatals) != 0 {
		t.Errorf("logs %q fatals %q, want logs %q", r.logs, r.fatals, want)
	}
	for _, bad := range []string{"-3", "0x10", "seed", "18446744073709551616"} {
		t.Setenv(SeedEnv, bad)
		r := &recorder{TB: t}
		Seed(r)
		if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], SeedEnv+"=\""+bad+"\"") {
			t.Errorf("%s=%q: fatals %q, want one naming the variable and value", SeedEnv, bad, r.fatals)
		}
	}
}
