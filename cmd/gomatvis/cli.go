package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// Conventions shared by every command's flags:
//
//   - coordinate methods are named erfa, astropy or precomputed (matvis's
//     class names CoordinateRotationERFA and CoordinateRotationAstropy are
//     accepted too), by --coord-method in every command;
//   - a boolean flag NAME is set by --NAME and cleared by --NAME=false,
//     --NAME false or --no-NAME;
//   - --help on a command prints its usage line and every flag.

// coordMethods maps each accepted spelling (lower case) to the spec's
// name of the method.
var coordMethods = map[string]string{
	"erfa": simspec.CoordERFA, strings.ToLower(simspec.CoordERFA): simspec.CoordERFA,
	"astropy": simspec.CoordAstropy, strings.ToLower(simspec.CoordAstropy): simspec.CoordAstropy,
	"precomputed": simspec.CoordPrecomputed,
}

// coordHelp is the help text of --coord-method.
const coordHelp = "coordinate `method`: erfa, astropy or precomputed (matvis's names CoordinateRotationERFA, CoordinateRotationAstropy also accepted)"

// normalizeCoordMethod returns the spec's name for a coordinate method
// given in any accepted spelling ("" stays "": the spec's own).
func normalizeCoordMethod(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if m, ok := coordMethods[strings.ToLower(s)]; ok {
		return m, nil
	}
	return "", fmt.Errorf("coord method %q: want erfa, astropy or precomputed", s)
}

// coordFlag is a --coord-method value: it accepts every spelling and holds
// the spec's name.
type coordFlag struct{ method string }

// String implements flag.Value: the documented (short) spelling.
func (c *coordFlag) String() string {
	if c == nil {
		return ""
	}
	switch c.method {
	case simspec.CoordERFA:
		return "erfa"
	case simspec.CoordAstropy:
		return "astropy"
	}
	return c.method
}

// Set implements flag.Value.
func (c *coordFlag) Set(s string) error {
	m, err := normalizeCoordMethod(s)
	if err != nil {
		return err
	}
	c.method = m
	return nil
}

// optionalFloat is a float flag that may be left unset (its default is
// then someone else's, so none is printed in the help).
type optionalFloat struct {
	v   float64
	set bool
}

// String implements flag.Value.
func (o *optionalFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Set implements flag.Value.
func (o *optionalFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	o.v, o.set = v, true
	return nil
}

// badFlagError is a flag the flag package refused (flagError: one line,
// with a suggestion and a pointer to --help rather than the whole usage):
// the exit status is 2, as for errUsage.
type badFlagError struct{ error }

// isBoolFlag reports whether fs defines name as a boolean flag.
func isBoolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// normalizeBoolArgs rewrites the boolean spellings Go's flag package does
// not read: "--NAME false" (a separate true/false word) and "--no-NAME"
// become "--NAME=false" (and "--NAME true" becomes "--NAME=true").
func normalizeBoolArgs(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		dashes := "--"
		name, isFlag := strings.CutPrefix(a, "--")
		if !isFlag {
			name, isFlag = strings.CutPrefix(a, "-")
			dashes = "-"
		}
		switch {
		case !isFlag || strings.Contains(name, "="):
		case isBoolFlag(fs, name) && i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false"):
			a = dashes + name + "=" + args[i+1]
			i++
		case strings.HasPrefix(name, "no-") && fs.Lookup(name) == nil && isBoolFlag(fs, name[3:]):
			a = dashes + name[3:] + "=false"
		}
		out = append(out, a)
	}
	return out
}

// setUsage makes fs's help print the command's usage line, its flags and
// the shared conventions.
func setUsage(fs *flag.FlagSet) {
	fs.Usage = func() {
		w := fs.Output()
		for _, c := range commands() {
			if c.name == fs.Name() {
				fmt.Fprintf(w, "usage: gomatvis %s\n\nflags:\n", c.usage)
			}
		}
		fs.PrintDefaults()
		printConventions(w)
	}
}

// printConventions states the flag conventions under a command's flags.
func printConventions(w io.Writer) {
	fmt.Fprintln(w, "\nFlags take one or two dashes. A boolean flag NAME is set by --NAME and cleared by --NAME=false, --NAME false or --no-NAME.")
}
