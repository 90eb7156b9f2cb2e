package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/gpu"
)

// The CLI's own messages: a refused flag says what was wrong and what
// was meant first (the full usage is one --help away, not 45 lines
// burying the one that matters), a size takes the units people type, a
// missing GPU points to the fallback, a --topo of another sky names the
// file, and an interrupt ends with a line that does not read as a
// failure.

// parseQuietly parses args into fs without the flag package's printing:
// an error is returned alone (the caller prints it, with suggestFlag's
// hint), and --help prints the command's usage as before.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		usage()
	}
	return err
}

// flagError is the refusal of a flag the flag package could not parse:
// its message, a "did you mean" for a mistyped name and where the flags
// are listed.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := invalidValueRe.FindStringSubmatch(msg); m != nil {
		// The flag package's "invalid value "x" for flag -name: parse
		// error", in the CLI's spelling of flags and with a cause.
		why := m[4]
		switch {
		case why == "parse error" && m[1] != "":
			why = "want true or false"
		case why == "parse error":
			why = "not a number"
		}
		msg = fmt.Sprintf("--%s %s: %s", m[3], m[2], why)
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		// In the CLI's spelling, as in the usage and the hint: --backnd,
		// not the flag package's -backnd.
		if s := suggestFlag(fs, name); s != "" {
			msg = fmt.Sprintf("unknown flag --%s; did you mean --%s?", name, s)
		} else {
			msg = fmt.Sprintf("unknown flag --%s", name)
		}
	}
	return badFlagError{fmt.Errorf("%s (gomatvis %s --help lists the flags)", msg, fs.Name())}
}

// invalidValueRe matches the flag package's refusal of a flag's value.
var invalidValueRe = regexp.MustCompile(`^invalid (boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-(\S+): (.*)$`)

// suggestFlag is the defined flag nearest to name by edit distance ("" when
// none is near enough to be what was meant: at most a third of its
// letters, and two, differ).
func suggestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimPrefix(name, "-") // ---backend
	if before, _, ok := strings.Cut(name, "="); ok {
		name = before
	}
	best, bestD := "", math.MaxInt
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if bestD > 2 || bestD > max(1, len(best)/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (by bytes: names are ASCII): insertions, deletions, substitutions and
// swaps of two neighbours ("mrege" is one from "merge") count one each.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j-1]+cost, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// unknownCommand is the refusal of a command name, with the nearest
// command when one is near enough to be what was meant.
func unknownCommand(name string, cmds []command) string {
	best, bestD := "", math.MaxInt
	for _, c := range cmds {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	if bestD > 2 || bestD > max(1, len(best)/3) {
		return fmt.Sprintf("gomatvis: unknown command %q", name)
	}
	return fmt.Sprintf("gomatvis: unknown command %q; did you mean %s?", name, best)
}

// byteSizeHelp says which spellings a size flag takes.
const byteSizeHelp = "an integer, 2e9, or with a unit: kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. 1GB or 512MiB"

// byteUnits are the units a size may carry, by their lower-case spelling.
var byteUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// parseByteSize reads a number of bytes: 2000000000, 2e9, 1GB, 1.5GiB,
// 512 MiB. A bare K, M, G or T is refused as ambiguous. An integer
// count is exact (no float64 rounding above 2⁵³).
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.LastIndexFunc(t, func(r rune) bool { return r >= '0' && r <= '9' || r == '.' }) + 1
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := byteUnits[unit]
	if !ok {
		if len(unit) == 1 && strings.Contains("kmgt", unit) {
			return 0, fmt.Errorf("the unit %q is ambiguous: write %s%sB (powers of 1000) or %s%siB (powers of 1024)", t[i:], num, strings.ToUpper(unit), num, strings.ToUpper(unit))
		}
		return 0, fmt.Errorf("want %s", byteSizeHelp)
	}
	errNegative := errors.New("want a positive number of bytes")
	errLarge := errors.New("too large: want at most 2⁶³−1 bytes")
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, errNegative
		case n > math.MaxInt64/mult:
			return 0, errLarge
		}
		return n * mult, nil
	}
	v, err := strconv.ParseFloat(num, 64)
	if errors.Is(err, strconv.ErrRange) {
		v, err = math.Inf(1), nil // refused below as too large
	}
	if err != nil {
		return 0, fmt.Errorf("want %s", byteSizeHelp)
	}
	b := v * float64(mult)
	switch {
	case b < 0:
		return 0, errNegative
	case b >= math.MaxInt64:
		return 0, errLarge
	case b != math.Trunc(b):
		return 0, fmt.Errorf("%g bytes: want a whole number of bytes", b)
	}
	return int64(b), nil
}

// byteSize is a flag.Value holding a number of bytes (parseByteSize).
type byteSize struct{ v *int64 }

// byteSizeFlag defines a size flag on fs: usage is followed by the
// spellings it takes.
func byteSizeFlag(fs *flag.FlagSet, name string, usage string) *int64 {
	v := new(int64)
	fs.Var(byteSize{v}, name, usage+"; "+byteSizeHelp)
	return v
}

// String implements flag.Value.
func (b byteSize) String() string {
	if b.v == nil || *b.v == 0 {
		return ""
	}
	return strconv.FormatInt(*b.v, 10)
}

// Set implements flag.Value.
func (b byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b.v = n
	return nil
}

// gpuOpenError points a --backend gpu that found no GPU (gpu.ErrNoDevice)
// to the backends that run without one; other errors are returned as
// they are.
func gpuOpenError(err error) error {
	if !errors.Is(err, gpu.ErrNoDevice) {
		return err
	}
	return fmt.Errorf("%w; --backend auto runs on the GPU when one opens and on the CPU otherwise (--backend cpu: the CPU always)", err)
}

// topoError names the --topo file when its vectors are not of the run's
// sky or times (matvis names only the counts).
func topoError(path string, err error) error {
	var ce *matvis.CoordsMismatchError
	if path == "" || !errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("--topo %s: %w: its ENU vectors are of another sky or times; write this run's with gomatvis topo SPEC.json -o TOPO.npy, or drop --topo", path, err)
}

// interruptedLine is the last line of a run stopped by an interrupt: what
// it was doing, without the "context canceled" that reads like a failure
// (what was kept has been said above, by the command that kept it).
func interruptedLine(name string, err error) string {
	msg := err.Error()
	suffix := ": " + context.Canceled.Error()
	if !strings.HasSuffix(msg, suffix) {
		// A failure on the way out (saving the finished work) says so.
		return fmt.Sprintf("gomatvis %s: interrupted: %s", name, msg)
	}
	msg = strings.TrimSuffix(strings.TrimSuffix(msg, suffix), ": stopped")
	return fmt.Sprintf("gomatvis %s: stopped by the interrupt, as asked (%s)", name, msg)
}
