package obsparam

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Tolerances of pyuvdata's UVData parameters, used for the consistency and
// even-spacing checks: 1 mHz for frequencies and widths, 1 ms for times and
// integration times.
const (
	freqTolHz  = 1e-3
	timeTolDay = 1e-3 / (60.0 * 60.0 * 24.0)
)

// Days per second as pyuvsim computes it ((1/24) * (1/60**2)), so that
// integration times convert back and forth bit for bit as in pyuvsim.
const (
	daysPerHour = 1 / 24.0
	hoursPerSec = 1 / (60.0 * 60.0)
	daysPerSec  = daysPerHour * hoursPerSec
)

var freqNames = axisNames{
	array: "freq_array", delta: "channel_width", start: "start_freq",
	end: "end_freq", n: "Nfreqs", length: "bandwidth",
}

// parseFreq reads the freq section into channel centres and widths (Hz).
func (r *reader) parseFreq(sec *yaml.Node) error {
	es, err := r.obs.entries(sec, "freq")
	if err != nil {
		return err
	}
	var in axisInput
	for _, e := range es {
		field := "freq." + e.key
		switch e.key {
		case "freq_array":
			in.array, _, err = r.obs.numOrList(e.value, field)
			in.hasArray = true
		case "channel_width":
			in.delta, in.deltaScalar, err = r.obs.numOrList(e.value, field)
			in.hasDelta = true
		case "start_freq":
			in.start, err = r.obs.num(e.value, field)
			in.hasStart = true
		case "end_freq":
			in.end, err = r.obs.num(e.value, field)
			in.hasEnd = true
		case "Nfreqs":
			in.n, err = r.obs.num(e.value, field)
			in.hasN = true
		case "bandwidth":
			in.length, err = r.obs.num(e.value, field)
			in.hasLength = true
		case "Nspws":
			r.warn(r.obs.warnf(e.keyN, field, "ignored: pyuvsim always makes one spectral window"))
		default:
			err = r.obs.keyErrf(e, field, "unknown key in the freq section (pyuvsim stops with a KeyError too); the keys are freq_array, channel_width, start_freq, end_freq, Nfreqs, bandwidth")
		}
		if err != nil {
			return err
		}
	}
	res, err := buildAxis(in, freqNames, freqTolHz)
	if err != nil {
		return r.obs.errf(sec, "freq", "%v", err)
	}
	for i, f := range res.values {
		if !(f > 0) {
			return r.obs.errf(sec, "freq", "frequency %d is %s Hz: frequencies must be positive", i, fmtG(f))
		}
	}
	if res.values[0] < 1e6 {
		r.warn(r.obs.warnf(sec, "freq", "the lowest frequency is %s Hz, below 1 MHz: frequencies are in Hz (was MHz meant?)", fmtG(res.values[0])))
	}
	r.cfg.Freqs, r.cfg.ChannelWidth = res.values, res.deltas
	return nil
}

var timeNames = axisNames{
	array: "time_array", delta: "integration_time", start: "start_time",
	end: "end_time", n: "Ntimes", length: "duration",
}

// timeKeys holds the time section's values as given, before time_offset.
type timeKeys struct {
	in              axisInput
	offset          float64
	hasOffset       bool
	hours, days     float64
	hasHours        bool
	hasDays         bool
	offsetN, hoursN *yaml.Node
}

// parseTime reads the time section into integration centres (JD) and
// integration times (s).
func (r *reader) parseTime(sec *yaml.Node) error {
	tk, err := r.readTimeKeys(sec)
	if err != nil {
		return err
	}
	in := &tk.in
	r.applyTimeOffset(tk)
	switch {
	case tk.hasDays && tk.hasHours:
		r.warn(r.obs.warnf(tk.hoursN, "time.duration_hours", "both duration_hours and duration_days are specified, using duration_days"))
		in.length, in.hasLength, in.lengthName, in.lengthScale = tk.days, true, "duration_days", 1
	case tk.hasDays:
		in.length, in.hasLength, in.lengthName, in.lengthScale = tk.days, true, "duration_days", 1
	case tk.hasHours:
		in.length, in.hasLength, in.lengthName, in.lengthScale = tk.hours*daysPerHour, true, "duration_hours", daysPerHour
	}
	if err := r.checkJDs(sec, in); err != nil {
		return err
	}
	grid126, is126 := pyuvsim126Times(tk)
	for i := range in.delta {
		in.delta[i] *= daysPerSec
	}
	in.deltaUnit = daysPerSec
	res, err := buildAxis(*in, timeNames, timeTolDay)
	if err != nil {
		return r.obs.errf(sec, "time", "%v", err)
	}
	if is126 && len(grid126) == len(res.values) {
		// The keys agree with pyuvsim 1.4's derivation (buildAxis checked
		// them); the centres are the ones pyuvsim 1.2.6, which made the
		// reference files, computes.
		res.values = grid126
	}
	for i, t := range res.values {
		if msg := implausibleJD(t); msg != "" {
			return r.obs.errf(sec, "time", "time %d is %s: %s", i, fmtG(t), msg)
		}
	}
	r.cfg.TimesJD = res.values
	r.cfg.IntegrationTime = make([]float64, len(res.deltas))
	for i, d := range res.deltas {
		r.cfg.IntegrationTime[i] = d / daysPerSec
	}
	return nil
}

func (r *reader) readTimeKeys(sec *yaml.Node) (*timeKeys, error) {
	es, err := r.obs.entries(sec, "time")
	if err != nil {
		return nil, err
	}
	tk := &timeKeys{}
	in := &tk.in
	for _, e := range es {
		field := "time." + e.key
		switch e.key {
		case "time_array":
			in.array, _, err = r.obs.numOrList(e.value, field)
			in.hasArray = true
		case "integration_time":
			in.delta, in.deltaScalar, err = r.obs.numOrList(e.value, field)
			in.hasDelta = true
		case "start_time":
			in.start, err = r.obs.num(e.value, field)
			in.hasStart = true
		case "end_time":
			in.end, err = r.obs.num(e.value, field)
			in.hasEnd = true
		case "Ntimes":
			in.n, err = r.obs.num(e.value, field)
			in.hasN = true
		case "duration_hours":
			tk.hours, err = r.obs.num(e.value, field)
			tk.hasHours, tk.hoursN = true, e.keyN
		case "duration_days":
			tk.days, err = r.obs.num(e.value, field)
			tk.hasDays = true
		case "time_offset":
			tk.offset, err = r.obs.num(e.value, field)
			tk.hasOffset, tk.offsetN = true, e.keyN
		default:
			err = r.obs.keyErrf(e, field, "unknown key in the time section (pyuvsim stops with a KeyError too); the keys are time_array, integration_time, start_time, end_time, Ntimes, duration_hours, duration_days, time_offset")
		}
		if err != nil {
			return nil, err
		}
	}
	return tk, nil
}

// applyTimeOffset adds time_offset to the absolute times, unless one of them
// is already larger than the offset (then pyuvsim warns and leaves it).
func (r *reader) applyTimeOffset(tk *timeKeys) {
	if !tk.hasOffset {
		return
	}
	in := &tk.in
	apply := func(has bool, name string, vals []float64) {
		if !has {
			return
		}
		maxv := vals[0]
		for _, v := range vals {
			maxv = max(maxv, v)
		}
		if maxv > tk.offset {
			r.warn(r.obs.warnf(tk.offsetN, "time.time_offset", "time_offset is present, but %s is larger than time_offset, so not adding time_offset to %s", name, name))
			return
		}
		for i := range vals {
			vals[i] += tk.offset
		}
	}
	s, e := []float64{in.start}, []float64{in.end}
	apply(in.hasStart, "start_time", s)
	apply(in.hasEnd, "end_time", e)
	apply(in.hasArray, "time_array", in.array)
	in.start, in.end = s[0], e[0]
}

// checkJDs refuses absolute times given in another unit before they are
// used, so the message names the likely unit.
func (r *reader) checkJDs(sec *yaml.Node, in *axisInput) error {
	check := func(has bool, name string, vals ...float64) error {
		for _, v := range vals {
			if msg := implausibleJD(v); has && msg != "" {
				return r.obs.errf(sec, "time."+name, "%s is %s: %s", name, fmtG(v), msg)
			}
		}
		return nil
	}
	if err := check(in.hasStart, "start_time", in.start); err != nil {
		return err
	}
	if err := check(in.hasEnd, "end_time", in.end); err != nil {
		return err
	}
	return check(in.hasArray, "time_array", in.array...)
}

// implausibleJD explains why t does not look like a Julian date of a radio
// observation (years 1858-2405), or returns "".
func implausibleJD(t float64) string {
	switch {
	case t >= 2.4e6 && t <= 2.6e6:
		return ""
	case t >= 1000 && t <= 3000:
		return "this looks like a year, not a Julian date (times are JD, e.g. 2459845.0)"
	case t >= 15000 && t <= 100000:
		return fmt.Sprintf("this looks like a Modified Julian Date: the JD is MJD + 2400000.5 = %s", fmtG(t+2400000.5))
	case t > 1e8:
		return "this looks like Unix seconds or a GPS time, not a Julian date (times are JD, e.g. 2459845.0)"
	}
	return "this is not a plausible Julian date (expected about 2.4e6 to 2.6e6, e.g. 2459845.0)"
}
