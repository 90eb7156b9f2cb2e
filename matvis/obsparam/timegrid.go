package obsparam

import "math"

// pyuvsim126Times is the time_array that pyuvsim 1.2.6's
// simsetup.parse_time_params builds from a time section without
// time_array, operation for operation, so that the Julian dates equal the
// reference files' bit for bit:
//
//	numpy.linspace(start_time, end_time + inttime_days, Ntimes, endpoint=False)
//
// with start_time, end_time, Ntimes and integration_time filled in from the
// keys given in pyuvsim 1.2.6's order (duration_days wins over
// duration_hours; with both ends and no Ntimes the duration is
// end - start + integration_time; a missing integration_time is
// duration / dayspersec / Ntimes). pyuvsim 1.4 samples linspace(start, end,
// Ntimes) instead, which differs by an ulp at some samples (e.g. 20 times
// of 2160 s from JD 2459845.0: samples 12 and 17).
//
// ok is false where pyuvsim 1.2.6 refuses the keys (start_time, end_time
// and Ntimes without integration_time or a duration, which pyuvsim 1.4
// accepts): the caller keeps pyuvsim 1.4's grid there. tk holds the keys
// after time_offset, with integration_time still in seconds and the
// duration (if any) in days; buildAxis has already accepted them, so the
// counts are in range.
func pyuvsim126Times(tk *timeKeys) (times []float64, ok bool) {
	in := &tk.in
	if in.hasArray || !(in.hasStart || in.hasEnd) {
		return nil, false
	}
	start, end, n, dur := in.start, in.end, in.n, in.length
	hasDur := in.hasLength
	var itSec float64
	if in.hasDelta {
		if len(in.delta) != 1 {
			return nil, false
		}
		itSec = in.delta[0]
	}
	if !in.hasN {
		if !in.hasDelta {
			return nil, false
		}
		if in.hasStart && in.hasEnd {
			dur, hasDur = end-start+itSec*daysPerSec, true
		}
		if !hasDur {
			return nil, false
		}
		// numpy.round rounds halves to even.
		n = math.RoundToEven(dur / (itSec * daysPerSec))
	}
	if !in.hasDelta {
		if !hasDur {
			return nil, false
		}
		itSec = dur / daysPerSec / n
	}
	itd := itSec * daysPerSec
	if !hasDur {
		dur = itd * n
	}
	if !in.hasStart {
		start = end - dur + itd
	}
	if !in.hasEnd {
		end = start + dur - itd
	}
	if !(n >= 1 && n <= MaxSamples) {
		return nil, false
	}
	return linspaceOpen(start, end+itd, int(n)), true
}

// linspaceOpen is numpy.linspace(start, stop, n, endpoint=False) as numpy
// 1.24 computes it: step = (stop-start)/n, value i = i*step + start (or
// i/n*(stop-start) + start when the step underflows to zero).
func linspaceOpen(start, stop float64, n int) []float64 {
	vals := make([]float64, n)
	delta := stop - start
	step := delta / float64(n)
	for i := range vals {
		// The explicit conversions keep the compiler from fusing the
		// multiply and add (Go may on arm64), which numpy does not do.
		if step == 0 {
			vals[i] = float64(float64(i)/float64(n)*delta) + start
		} else {
			vals[i] = float64(float64(i)*step) + start
		}
	}
	return vals
}
