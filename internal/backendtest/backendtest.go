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
	"testing"

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
// plain-loop twin: rounding of the run's precision, summed over a few
// thousand sources.
func Tolerance(precision int) float64 {
	if precision == 1 {
		return 1e-4
	}
	return 1e-9
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
