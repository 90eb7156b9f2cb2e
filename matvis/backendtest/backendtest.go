// Package backendtest is the test suite of the matvis.Backend contract,
// run against every backend as gonum's lapack/testlapack is run against
// every LAPACK: a backend's test file opens it and calls Run. The suite
// checks the matvis references (every coordinate method and precision),
// agreement with a plain-loop twin of the visibility equation on fresh
// random inputs for every option, cancellation and the meaning of
// Result.Done, and the per-chunk statistics.
package backendtest

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
)

// Run runs the whole suite against be, which stays open (the caller
// closes it).
func Run(t *testing.T, be matvis.Backend) {
	t.Run("References", func(t *testing.T) { References(t, be) })
	t.Run("ZenithSource", func(t *testing.T) { ZenithSource(t, be) })
	t.Run("Hermitian", func(t *testing.T) { Hermitian(t, be) })
	t.Run("PlainLoop", func(t *testing.T) { PlainLoop(t, be) })
	t.Run("SkySpectrum", func(t *testing.T) { SkySpectrum(t, be) })
	t.Run("MemoryBudget", func(t *testing.T) { MemoryBudget(t, be) })
	t.Run("Stats", func(t *testing.T) { Stats(t, be) })
	t.Run("Progress", func(t *testing.T) { Progress(t, be) })
	t.Run("CancelKeepsFinishedWork", func(t *testing.T) { CancelKeepsFinishedWork(t, be) })
	t.Run("CancelBeforeStart", func(t *testing.T) { CancelBeforeStart(t, be) })
	t.Run("NonFiniteOutput", func(t *testing.T) { NonFiniteOutput(t, be) })
	t.Run("StokesPlainLoop", func(t *testing.T) { StokesPlainLoop(t, be) })
	t.Run("StokesZenith", func(t *testing.T) { StokesZenith(t, be) })
	t.Run("StokesFirstPrinciples", func(t *testing.T) { StokesFirstPrinciples(t, be) })
	t.Run("StokesPositionAngle", func(t *testing.T) { StokesPositionAngle(t, be) })
	t.Run("StokesIUnchanged", func(t *testing.T) { StokesIUnchanged(t, be) })
}

// Tolerance is the bar on max|ΔV|/max|V| of a backend against the
// plain-loop twin: about ten times the largest seen on the CPU backend
// (1.4e-7 to 4e-7 in float32, 1e-16 to 3e-15 in float64, over a thousand
// sources; bench/RESULTS.md, 2026-11-30). A 14-bit Z or float64 ENU
// vectors in a precision-1 run exceed it.
func Tolerance(precision int) float64 {
	if precision == 1 {
		return 4e-6
	}
	return 1e-11
}

// Vis returns a result's visibilities in either precision as complex128,
// in their flat order.
func Vis(r *matvis.Result) []complex128 {
	if r.Precision != 1 {
		return r.Vis128
	}
	out := make([]complex128, len(r.Vis64))
	for i, v := range r.Vis64 {
		out[i] = complex128(v)
	}
	return out
}

// RelErr is max|got−want| / max|want|; +Inf when an entry of got is NaN or
// the lengths differ, so that a missing or unwritten value never passes.
func RelErr(got, want []complex128) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var d, m float64
	for i := range want {
		e := cmplx.Abs(got[i] - want[i])
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		d = math.Max(d, e)
		m = math.Max(m, cmplx.Abs(want[i]))
	}
	return d / m
}

// NewRNG returns a fresh random stream and logs its seed
// (sharedtest.RNG).
func NewRNG(t testing.TB, stream uint64) *rand.Rand {
	t.Helper()
	return sharedtest.RNG(t, stream)
}

// BaselineTolerance is the bar on PerBaselineErr against the plain-loop
// twin: about ten times the largest seen on the CPU backend (4.4e-7 to
// 1.2e-6 in float32, 2e-15 to 6e-14 in float64).
func BaselineTolerance(precision int) float64 {
	if precision == 1 {
		return 1.2e-5
	}
	return 1e-11
}

// PerBaselineErr is max over visibilities of |got−want| / max(|want|,
// scale): each visibility's error relative to its own value, or to the
// root-sum-square of its terms (PlainScaled) where cancellation left it
// smaller than that (rounding cannot do better there). Unlike RelErr it is
// not dominated by the auto-correlations. +Inf on NaN or a length mismatch.
func PerBaselineErr(got, want []complex128, scale []float64) float64 {
	if len(got) != len(want) || len(scale) != len(want) {
		return math.Inf(1)
	}
	var worst float64
	for i := range want {
		d := cmplx.Abs(got[i] - want[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		if den := math.Max(cmplx.Abs(want[i]), scale[i]); den > 0 {
			worst = math.Max(worst, d/den)
		} else if d > 0 {
			return math.Inf(1)
		}
	}
	return worst
}

// checkTwin compares a result with the plain-loop twin by both measures
// and logs them.
func checkTwin(t *testing.T, be matvis.Backend, sim *matvis.Simulation, res *matvis.Result) {
	t.Helper()
	want, scale := PlainScaled(t, sim)
	got := Vis(res)
	prec := sim.Options.Precision
	e, eb := RelErr(got, want), PerBaselineErr(got, want, scale)
	t.Logf("%s (%s): vs the plain loop: max|ΔV|/max|V| = %.3g (bar %g), per baseline %.3g (bar %g)",
		be.Name(), res.Stats.MatProdImpl, e, Tolerance(prec), eb, BaselineTolerance(prec))
	if !(e <= Tolerance(prec)) {
		t.Errorf("max|ΔV|/max|V| = %g > %g", e, Tolerance(prec))
	}
	if !(eb <= BaselineTolerance(prec)) {
		t.Errorf("per-baseline error %g > %g", eb, BaselineTolerance(prec))
	}
}
