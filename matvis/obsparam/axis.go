package obsparam

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// MaxSamples bounds the number of frequency channels and of times, so a
// mistyped Nfreqs or a tiny channel width cannot exhaust memory.
const MaxSamples = 1 << 22

// axisNames are the user-facing key names of one sampled axis (frequency or
// time), in the roles of pyuvsim's generic coordinate parser.
type axisNames struct {
	array, delta, start, end, n, length string
}

// axisInput holds the keys given for one axis. delta and length are in the
// axis unit (Hz, or days for time).
type axisInput struct {
	array                             []float64
	delta                             []float64
	deltaScalar                       bool
	start, end, n, length             float64
	hasArray, hasDelta                bool
	hasStart, hasEnd, hasN, hasLength bool
	lengthName                        string // key shown for length (duration_hours vs duration_days)
	lengthScale                       float64
	deltaUnit                         float64 // axis units per user unit of delta (0 means 1)
}

// axisResult is the sampled axis: centres and widths.
type axisResult struct {
	values, deltas []float64
	used           []string
}

// given lists the keys that were specified, sorted, as pyuvsim prints them.
func (in *axisInput) given(nm axisNames) string {
	var ks []string
	add := func(ok bool, k string) {
		if ok {
			ks = append(ks, k)
		}
	}
	add(in.hasArray, nm.array)
	add(in.hasDelta, nm.delta)
	add(in.hasStart, nm.start)
	add(in.hasEnd, nm.end)
	add(in.hasN, nm.n)
	add(in.hasLength, nm.length)
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// buildAxis derives the sample centres and widths from any combination of
// keys that pyuvsim (>= 1.3, pyuvsim.simsetup._setup_coord_arrays) accepts,
// and refuses extra keys that disagree with the derived axis by more than
// tol (absolute, in the axis unit: pyuvdata's tolerance for the quantity).
func buildAxis(in axisInput, nm axisNames, tol float64) (axisResult, error) {
	if err := in.checkSigns(nm); err != nil {
		return axisResult{}, err
	}
	var (
		res                   axisResult
		start, end, n, length float64
	)
	if in.hasArray {
		var err error
		res, length, err = fromArray(in, nm, tol)
		if err != nil {
			return axisResult{}, err
		}
		start, end = res.values[0], res.values[len(res.values)-1]
		n = float64(len(res.values))
	} else {
		a, err := derive(in, nm)
		if err != nil {
			return axisResult{}, err
		}
		if res, err = a.sample(in, nm); err != nil {
			return axisResult{}, err
		}
		start, end, n, length = res.values[0], res.values[len(res.values)-1], float64(len(res.values)), a.length
	}
	for i, v := range res.values {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(res.deltas[i]) || math.IsInf(res.deltas[i], 0) {
			return axisResult{}, fmt.Errorf("the keys given (%s) overflow: value %d of %s is %v with width %v", in.given(nm), i, nm.array, v, res.deltas[i])
		}
	}
	for _, w := range res.deltas {
		if !(w > 0) {
			return axisResult{}, fmt.Errorf("the keys given (%s) make %s = %s: it must be positive (%s must increase)",
				in.given(nm), nm.delta, fmtG(w/in.deltaScale()), nm.array)
		}
	}
	if err := increasing(res.values, nm); err != nil {
		return axisResult{}, err
	}
	if err := in.checkConsistent(nm, tol, res, start, end, n, length); err != nil {
		return axisResult{}, err
	}
	if in.hasDelta {
		// The widths given agree with the derived ones to the tolerance;
		// report the user's (the derived step carries the rounding of the
		// centres, e.g. ~4 us on 600 s at JD 2.46e6), as pyuvsim 1.2 did.
		for i := range res.deltas {
			if len(in.delta) == len(res.deltas) {
				res.deltas[i] = in.delta[i]
			} else {
				res.deltas[i] = in.delta[0]
			}
		}
	}
	return res, nil
}

// increasing refuses values that do not increase: a repeated channel or
// time would be simulated twice (an output pyuvdata cannot select from
// unambiguously), and one out of order makes a channel width or an
// integration negative.
func increasing(v []float64, nm axisNames) error {
	for i := 1; i < len(v); i++ {
		switch {
		case v[i] == v[i-1]:
			return fmt.Errorf("%s[%d] = %s repeats %s[%d]: each value must appear once (remove the repeat)", nm.array, i, fmtG(v[i]), nm.array, i-1)
		case !(v[i] > v[i-1]):
			return fmt.Errorf("%s[%d] = %s is below %s[%d] = %s: the values must increase (sort them)", nm.array, i, fmtG(v[i]), nm.array, i-1, fmtG(v[i-1]))
		}
	}
	return nil
}

// checkSigns refuses zero or negative widths, counts and lengths before any
// division by them.
func (in *axisInput) checkSigns(nm axisNames) error {
	if in.hasDelta {
		for _, v := range in.delta {
			if !(v > 0) {
				return fmt.Errorf("%s = %s: it must be positive", nm.delta, fmtG(v/in.deltaScale()))
			}
		}
	}
	if in.hasN && !(in.n >= 1) {
		return fmt.Errorf("%s = %s: at least 1 is needed", nm.n, fmtG(in.n))
	}
	if in.hasN && in.n > MaxSamples {
		return fmt.Errorf("%s = %s: over the limit of %d", nm.n, fmtG(in.n), MaxSamples)
	}
	if in.hasLength && !(in.length > 0) {
		return fmt.Errorf("%s = %s: it must be positive", in.lengthKey(nm), fmtG(in.length/in.lengthScaleOr1()))
	}
	if in.hasArray && len(in.array) > MaxSamples {
		return fmt.Errorf("%s has %d values, over the limit of %d", nm.array, len(in.array), MaxSamples)
	}
	return nil
}

func (in *axisInput) lengthKey(nm axisNames) string {
	if in.lengthName != "" {
		return in.lengthName
	}
	return nm.length
}

func (in *axisInput) lengthScaleOr1() float64 {
	if in.lengthScale == 0 {
		return 1
	}
	return in.lengthScale
}

// deltaScale is the factor from the user's unit of delta to the axis unit:
// 1 for frequency; the time axis holds integration_time in days but reports
// it in seconds.
func (in *axisInput) deltaScale() float64 {
	if in.deltaUnit == 0 {
		return 1
	}
	return in.deltaUnit
}

// fromArray handles an explicit array of centres (with or without widths).
func fromArray(in axisInput, nm axisNames, tol float64) (axisResult, float64, error) {
	arr := append([]float64(nil), in.array...)
	n := len(arr)
	res := axisResult{values: arr, used: []string{nm.array}}
	switch {
	case in.hasDelta && len(in.delta) == 1:
		res.deltas = fill(n, in.delta[0])
		res.used = append(res.used, nm.delta)
	case in.hasDelta && len(in.delta) != n:
		return res, 0, fmt.Errorf("if %s has multiple elements, the %s must be the same length as %s (%d values vs %d)",
			nm.delta, nm.delta, nm.array, len(in.delta), n)
	case in.hasDelta:
		res.deltas = append([]float64(nil), in.delta...)
		res.used = append(res.used, nm.delta)
	case n == 1:
		return res, 0, fmt.Errorf("%s must be specified if %s has length 1", nm.delta, nm.array)
	default:
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for i := 1; i < n; i++ {
			df := arr[i] - arr[i-1]
			lo, hi, sum = math.Min(lo, df), math.Max(hi, df), sum+df
		}
		if n > 2 && lo != hi && !(hi-lo <= tol) {
			return res, 0, fmt.Errorf("%s must be specified if spacing in %s is uneven (spacings from %s to %s)",
				nm.delta, nm.array, fmtG(lo), fmtG(hi))
		}
		res.deltas = fill(n, sum/float64(n-1))
	}
	length := (arr[n-1] + res.deltas[n-1]*0.5) - (arr[0] - res.deltas[0]*0.5)
	return res, length, nil
}

// derived is an axis worked out from its keys, before sampling.
type derived struct {
	start, end, n, length, d float64
	used                     []string
}

// derive computes start, end, count, total length and step from the keys
// given, in pyuvsim's order of precedence.
func derive(in axisInput, nm axisNames) (derived, error) {
	if !in.hasStart && !in.hasEnd {
		return derived{}, fmt.Errorf("either %s or %s must be specified. The parameters that were specified were: %s",
			nm.start, nm.end, in.given(nm))
	}
	if in.hasDelta && !in.deltaScalar && len(in.delta) > 1 {
		return derived{}, fmt.Errorf("%s must be a scalar if %s is not specified", nm.delta, nm.array)
	}
	a := derived{start: in.start, end: in.end, n: in.n, length: in.length}
	if in.hasDelta {
		a.d = in.delta[0]
	}
	if in.hasStart && in.hasEnd {
		return a, a.fromBothEnds(in, nm)
	}
	return a, a.fromOneEnd(in, nm)
}

// sample checks that the count is whole and in range and samples the axis
// as numpy.linspace(start, end, n).
func (a *derived) sample(in axisInput, nm axisNames) (axisResult, error) {
	nr := math.Round(a.n)
	if !(math.Abs(a.n-nr) <= 1e-8+1e-5*math.Abs(nr)) {
		return axisResult{}, fmt.Errorf("%s - %s must be evenly divisible by %s: the keys given (%s) make %s = %s, not a whole number",
			nm.end, nm.start, nm.delta, in.given(nm), nm.n, fmtG(a.n))
	}
	if nr < 1 {
		return axisResult{}, fmt.Errorf("the keys given (%s) make %s = %s: at least 1 is needed", in.given(nm), nm.n, fmtG(nr))
	}
	if nr > MaxSamples {
		return axisResult{}, fmt.Errorf("the keys given (%s) make %s = %s, over the limit of %d", in.given(nm), nm.n, fmtG(nr), MaxSamples)
	}
	res := axisResult{used: a.used}
	res.values, res.deltas = linspace(a.start, a.end, int(nr), a.d)
	return res, nil
}

// fromBothEnds handles start and end given, with Nfreqs or a width.
func (a *derived) fromBothEnds(in axisInput, nm axisNames) error {
	a.used = []string{nm.start, nm.end}
	switch {
	case !in.hasN && !in.hasDelta:
		return fmt.Errorf("if both %s and %s are specified, either %s or %s must be specified as well. The parameters that were specified were: %s",
			nm.start, nm.end, nm.n, nm.delta, in.given(nm))
	case in.hasN && a.n > 1:
		a.used = append(a.used, nm.n)
		extent := a.end - a.start
		a.d = extent / (a.n - 1)
		a.length = extent + a.d
	case in.hasN && in.hasDelta:
		a.used = []string{nm.start, nm.n, nm.delta}
		a.length = a.d
	case in.hasN && in.hasLength:
		a.used = []string{nm.start, nm.n, in.lengthKey(nm)}
		a.d = a.length
	case in.hasN:
		return fmt.Errorf("if %s is 1 then either %s or %s must be specified", nm.n, nm.delta, nm.length)
	default:
		a.used = append(a.used, nm.delta)
		a.length = a.end - a.start + a.d
		a.n = a.length / a.d
	}
	return nil
}

// fromOneEnd handles one of start and end with two of count, width and
// length.
func (a *derived) fromOneEnd(in axisInput, nm axisNames) error {
	others := 0
	for _, ok := range []bool{in.hasN, in.hasDelta, in.hasLength} {
		if ok {
			others++
		}
	}
	if others < 2 {
		return fmt.Errorf("if only one of %s and %s is specified, two more of %s, %s and %s must be specified as well. The parameters that were specified were: %s",
			nm.start, nm.end, nm.n, nm.delta, nm.length, in.given(nm))
	}
	switch {
	case in.hasN && in.hasDelta:
		a.used = []string{nm.n, nm.delta}
		a.length = a.n * a.d
	case in.hasN:
		a.used = []string{nm.n, in.lengthKey(nm)}
		a.d = a.length / a.n
	default:
		a.used = []string{nm.delta, in.lengthKey(nm)}
		a.n = a.length / a.d
	}
	if in.hasStart {
		a.used = append(a.used, nm.start)
		a.end = a.start + a.length - a.d
	} else {
		a.used = append(a.used, nm.end)
		a.start = a.end - a.length + a.d
	}
	return nil
}

// linspace is numpy.linspace(start, stop, n, endpoint=True) with its step:
// value i is start + i*step and the last is exactly stop. With n == 1 the
// width is d (the given or derived width).
func linspace(start, stop float64, n int, d float64) (vals, widths []float64) {
	vals = make([]float64, n)
	if n == 1 {
		vals[0] = start
		return vals, []float64{d}
	}
	delta := stop - start
	step := delta / float64(n-1)
	for i := range vals {
		// As numpy: i*step + start, or i/(n-1)*delta + start when the step
		// underflows; the conversions keep the multiply and add unfused.
		if step == 0 {
			vals[i] = float64(float64(i)/float64(n-1)*delta) + start
		} else {
			vals[i] = float64(float64(i)*step) + start
		}
	}
	vals[n-1] = stop
	return vals, fill(n, step)
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// checkConsistent refuses any given key whose value disagrees with the axis
// derived from the keys pyuvsim used. pyuvsim >= 1.3 warns and uses the
// derived values; pyuvsim 1.2 built a different grid from the same keys, so
// an inconsistent set has no single meaning and is refused here.
func (in *axisInput) checkConsistent(nm axisNames, tol float64, res axisResult, start, end, n, length float64) error {
	var bad, inVals, calc []string
	check := func(ok bool, key string, given, got float64, scale float64) {
		if ok && !(math.Abs(given-got) <= tol) {
			bad = append(bad, key)
			inVals = append(inVals, fmtG(given/scale))
			calc = append(calc, fmtG(got/scale))
		}
	}
	check(in.hasStart, nm.start, in.start, start, 1)
	check(in.hasEnd, nm.end, in.end, end, 1)
	check(in.hasLength, in.lengthKey(nm), in.length, length, in.lengthScaleOr1())
	if in.hasN && in.n != n {
		bad, inVals, calc = append(bad, nm.n), append(inVals, fmtG(in.n)), append(calc, fmtG(n))
	}
	if in.hasDelta {
		for i, v := range res.deltas {
			g := in.delta[0]
			if len(in.delta) == len(res.deltas) {
				g = in.delta[i]
			}
			if !(math.Abs(g-v) <= tol) {
				bad = append(bad, fmt.Sprintf("%s[%d]", nm.delta, i))
				inVals, calc = append(inVals, fmtG(g/in.deltaScale())), append(calc, fmtG(v/in.deltaScale()))
				break
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("the %s is not consistent with the %s specified: input values were [%s], calculated values were [%s] "+
		"(pyuvsim >= 1.3 warns and uses the calculated values, pyuvsim 1.2 built a different grid; remove or correct the extra keys)",
		strings.Join(bad, ", "), strings.Join(res.used, ", "), strings.Join(inVals, ", "), strings.Join(calc, ", "))
}

// fmtG prints a float with full precision but no noise.
func fmtG(v float64) string { return fmt.Sprintf("%.15g", v) }
