package nufftgpu

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestNewTargets: the bytes RetargetTo copies decode, part by part, to the
// plan's layout — first index minus offset is each sorted target's grid
// coordinate, the order and post-phases are the plan's, the corrections
// its axes' — in both precisions (float32 to its rounding), 1-D to 3-D;
// a plan whose targets need pre-phases, and an unknown precision, are
// refused. Runs without a device.
func TestNewTargets(t *testing.T) {
	rng := sharedtest.RNG(t, 43)
	for dim := 1; dim <= 3; dim++ {
		box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}[:dim]
		_, _, s := nufftest.Problem(rng, dim, 1, 300, 1, 80, 0, 0)
		pl, err := nufft.NewPlan(box, s, nufft.Options{Eps: 1e-6, Sign: 1, Real: true})
		if err != nil {
			t.Fatal(err)
		}
		l := pl.Layout()
		for _, prec := range []Precision{Single, Double} {
			tg, err := NewTargets(pl, prec)
			if err != nil {
				t.Fatal(err)
			}
			if len(tg.parts) != 4+dim || tg.parts[len(tg.parts)-1] != len(tg.buf) || len(tg.buf) != targetBytes(l, prec) {
				t.Fatalf("%d-D %v: parts %v of a %d-byte buffer (want %d parts, %d bytes)", dim, prec, tg.parts, len(tg.buf), 4+dim, targetBytes(l, prec))
			}
			checkTargetBytes(t, tg, l, prec)
		}
	}
	_, _, s := nufftest.Problem(rng, 2, 1, 50, 1, 40, 0, 9)
	off, err := nufft.NewPlan([][]float64{{-1, 1}, {-1, 1}}, s, nufft.Options{Eps: 1e-6, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTargets(off, Double); err == nil {
		t.Errorf("NewTargets accepted a plan whose targets are off centre")
	}
	if _, err := NewTargets(off, Precision(7)); err == nil {
		t.Errorf("NewTargets accepted Precision(7)")
	}
}

// checkTargetBytes decodes tg's parts and compares them with l.
func checkTargetBytes(t *testing.T, tg *Targets, l nufft.Layout, prec Precision) {
	t.Helper()
	r := int(prec.realBytes())
	tol := map[Precision]float64{Single: 1e-6, Double: 0}[prec]
	part := func(i int) []byte {
		from := 0
		if i > 0 {
			from = tg.parts[i-1]
		}
		return tg.buf[from:tg.parts[i]]
	}
	at := func(b []byte, i int) float64 {
		if prec == Single {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:])))
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[i*8:]))
	}
	near := func(got, want, scale float64) bool { return math.Abs(got-want) <= tol*math.Max(1, math.Abs(scale)) }
	first, offs, order, post := part(0), part(1), part(2), part(3)
	for d := range l.Dim {
		for i := range l.M {
			f := float64(int32(binary.LittleEndian.Uint32(first[4*(d*l.M+i):])))
			if q := l.Q[d][i]; !near(f-at(offs, d*l.M+i), q, q) {
				t.Fatalf("%d-D %v axis %d target %d: first %g − offset %g ≠ %g", l.Dim, prec, d, i, f, at(offs, d*l.M+i), q)
			}
		}
		dc := part(4 + d)
		if len(dc) != len(l.Deconv[d])*r {
			t.Fatalf("%d-D %v axis %d: %d bytes of corrections for %d", l.Dim, prec, d, len(dc), len(l.Deconv[d]))
		}
		for i, want := range l.Deconv[d] {
			if !near(at(dc, i), want, want) {
				t.Fatalf("%d-D %v axis %d correction %d: %g, want %g", l.Dim, prec, d, i, at(dc, i), want)
			}
		}
	}
	for i := range l.M {
		if o := int32(binary.LittleEndian.Uint32(order[4*i:])); o != l.QOrder[i] {
			t.Fatalf("%d-D %v target %d: order %d, want %d", l.Dim, prec, i, o, l.QOrder[i])
		}
		z := l.Post[i]
		if !near(at(post, 2*i), real(z), 1) || !near(at(post, 2*i+1), imag(z), 1) {
			t.Fatalf("%d-D %v target %d: post-phase (%g, %g), want %v", l.Dim, prec, i, at(post, 2*i), at(post, 2*i+1), z)
		}
	}
}
