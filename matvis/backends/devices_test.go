package backends

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/multi"
)

func TestParseDevices(t *testing.T) {
	for _, c := range []struct {
		in   string
		ids  []int
		all  bool
		fail string
	}{
		{"all", nil, true, ""}, {"0", []int{0}, false, ""}, {"0,1, 3", []int{0, 1, 3}, false, ""},
		{"0,0", nil, false, "given twice"}, {"-1", nil, false, "not a device ordinal"}, {"x", nil, false, "not a device"}, {"", nil, false, "not a device"},
	} {
		ids, all, err := ParseDevices(c.in)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.fail)
			}
			continue
		}
		if err != nil || all != c.all || len(ids) != len(c.ids) {
			t.Errorf("%q: %v %v %v", c.in, ids, all, err)
			continue
		}
		for i := range ids {
			if ids[i] != c.ids[i] {
				t.Errorf("%q: %v", c.in, ids)
			}
		}
	}
}

func TestOpenDevicesCPU(t *testing.T) {
	b, _, err := OpenDevices("cpu", "0,1", gpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := b.(*multi.Backend)
	if !ok || len(m.Names()) != 2 || b.Name() != "cpu×2" {
		t.Fatalf("got %T %q", b, b.Name())
	}
	if b, _, _ := OpenDevices("cpu", "all", gpu.Options{}); b.Name() != "cpu" {
		t.Fatalf("cpu all: %q", b.Name())
	}
	if _, _, err := OpenDevices("tpu", "0", gpu.Options{}); err == nil {
		t.Fatal("tpu: no error")
	}
}

// TestMultiGPU runs a simulation on every GPU (at least two) and on GPU 0
// alone, and compares. It skips loudly without two devices.
func TestMultiGPU(t *testing.T) {
	n, err := cuda.DeviceCount()
	if err != nil || n < 2 {
		t.Skipf("SKIP multi-GPU: needs ≥ 2 CUDA devices (found %d: %v)", n, err)
	}
	sim := gpuTestSim(t)
	one, err := gpu.Open(gpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := one.Run(context.Background(), sim)
	one.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := OpenDevices("gpu", "all", gpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.(*multi.Backend).Close()
	t.Logf("devices: %v", b.(*multi.Backend).Names())
	got, err := b.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete() {
		t.Fatal("incomplete")
	}
	// The same GPU model with the same strategy gives the same bits; a
	// different strategy choice per device may differ in rounding only.
	var maxd, maxv float64
	for i := range want.Vis128 {
		d := cabs(got.Vis128[i] - want.Vis128[i])
		maxd = max(maxd, d)
		maxv = max(maxv, cabs(want.Vis128[i]))
	}
	t.Logf("max |Δ| = %g of max |V| = %g; strategies %s", maxd, maxv, got.Stats.MatProdImpl)
	if maxd > 1e-12*maxv {
		t.Fatalf("multi-GPU result differs: max |Δ| = %g of %g", maxd, maxv)
	}
	// A device that does not exist is an error naming it.
	if _, _, err := OpenDevices("gpu", "0,99", gpu.Options{}); err == nil || !strings.Contains(err.Error(), "device 99") {
		t.Fatalf("device 99: %v", err)
	}
}

func cabs(c complex128) float64 { return max(math.Abs(real(c)), math.Abs(imag(c))) }

// gpuTestSim is a precision-2 simulation of 8 times × 3 channels with
// ERFA-method coordinates (so each GPU does the rotation and the BCRS step
// on the device, for its blocks' times).
func gpuTestSim(t *testing.T) *matvis.Simulation {
	t.Helper()
	nsrc, nant, nf, nt := 2000, 24, 3, 8
	c := matvis.Config{}
	for a := range nant {
		c.Antennas = append(c.Antennas, [3]float64{float64(a%6) * 14.6, float64(a/6) * 12.6, 0})
	}
	for f := range nf {
		c.Freqs = append(c.Freqs, 120e6+float64(f)*0.5e6)
	}
	for ti := range nt {
		c.Times = append(c.Times, 2459845.3+float64(ti)*0.01)
	}
	for s := range nsrc {
		c.RA = append(c.RA, 2*math.Pi*float64((s*7919)%10007)/10007)
		c.Dec = append(c.Dec, -1.2+1.4*float64((s*6151)%9973)/9973)
		for f := range nf {
			c.Flux = append(c.Flux, 1+float64((s+f)%5))
		}
	}
	rot, err := astro.New(astro.Config{Method: astro.MethodERFA, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}, TimesJD: c.Times}, c.RA, c.Dec)
	if err != nil {
		t.Fatal(err)
	}
	c.Coords = rot
	c.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.3}}
	c.Options.Precision = 2
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}
