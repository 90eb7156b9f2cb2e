package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// linearTicks places major ticks at 1, 2 or 5 times a power of ten (about
// five of them) with minor ticks between, and labels them with just the
// decimals the step needs: 0, 5, 10, not 0.00, 5.00, 10.00; and 2.5, 7.5,
// not 2.50, 7.50. Large values are grouped by thousands (25 000).
type linearTicks struct {
	// Integer keeps every tick on an integer (axes of indices).
	Integer bool
}

// Ticks implements plot.Ticker.
func (lt linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	step := niceStep((hi - lo) / 5)
	if lt.Integer {
		step = math.Max(1, math.Round(step))
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(m-2.5) < 1e-6 {
		decimals++ // a step of 2.5·10^k needs one more digit
	}
	var ts []plot.Tick
	minor := step / 5
	if lt.Integer {
		minor = step
		if step <= 10 {
			minor = 1
		}
	}
	for v := math.Ceil(lo/minor-1e-9) * minor; v <= hi+1e-9*(hi-lo); v += minor {
		if math.Abs(v) < 1e-12*step {
			v = 0
		}
		t := plot.Tick{Value: v}
		if r := math.Abs(v/step - math.Round(v/step)); r < 1e-6 {
			t.Label = formatTick(v, decimals)
		}
		ts = append(ts, t)
	}
	return ts
}

// niceStep rounds x up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if x <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// formatTick formats v with at most the given decimals (trailing zeros
// dropped: 2.5, 5, 7.5), grouping the integer part
// by thousands with a thin space when it has five digits or more.
func formatTick(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	if len(ip) >= 5 {
		var b strings.Builder
		for i, r := range ip {
			if i > 0 && (len(ip)-i)%3 == 0 {
				b.WriteString("\u2009")
			}
			b.WriteRune(r)
		}
		ip = b.String()
	}
	if fp != "" {
		ip += "." + fp
	}
	if neg && strings.Trim(s, "0.") != "" {
		return "−" + ip
	}
	return ip
}

// siLabel formats a log-axis tick compactly with an SI prefix: 1000 → 1k,
// 2·10⁶ → 2M, 0.5 → 0.5, 1e-3 → 1m.
func siLabel(v float64) string {
	prefixes := []struct {
		s string
		x float64
	}{{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}}
	for _, p := range prefixes {
		if math.Abs(v) >= p.x*(1-1e-9) {
			return strconv.FormatFloat(v/p.x, 'g', 3, 64) + p.s
		}
	}
	if v != 0 && math.Abs(v) < 1e-2 {
		if math.Abs(v) >= 1e-3*(1-1e-9) {
			return strconv.FormatFloat(v*1e3, 'g', 3, 64) + "m"
		}
		return strconv.FormatFloat(v*1e6, 'g', 3, 64) + "µ"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// logTicks labels 1, 2 and 5 times each power of ten when the axis spans
// less than two decades (gonum's LogTicks would label one value or none
// there) and every power of ten otherwise, with SI-prefixed labels (siLabel).
func logTicks() plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		if !(lo > 0 && hi > lo) {
			return nil
		}
		dense := math.Log10(hi/lo) < 2
		var ts []plot.Tick
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			p := math.Pow(10, e)
			for m := 1; m <= 9; m++ {
				v := float64(m) * p
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 || (dense && (m == 2 || m == 5)) {
					t.Label = siLabel(v)
				}
				ts = append(ts, t)
			}
		}
		return ts
	})
}
