package skymodel

import (
	"fmt"
	"strings"
)

// ParseError locates a problem in an input file: the file, the 1-based text
// line (0 where lines do not apply), the column, dataset or attribute, and
// the offending value.
type ParseError struct {
	File  string
	Line  int
	Field string
	Value string
	Err   error
}

// Error formats the location and cause as "file:line: field = \"value\": cause".
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	if e.Value != "" {
		v := e.Value
		if len(v) > 80 {
			v = v[:77] + "..."
		}
		fmt.Fprintf(&b, " = %q", v)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// build converts the catalog's Stokes from unit u to Jy (omega is the
// per-component solid angle for per-steradian units) and validates it.
func build(file string, c Components, u fluxUnit, omega float64) (*Sky, error) {
	if err := u.toJy(&c, omega); err != nil {
		return nil, &ParseError{File: file, Err: err}
	}
	s, err := New(c)
	if err != nil {
		return nil, &ParseError{File: file, Err: err}
	}
	s.kelvin = u.kelvinPerChannel(&c)
	return s, nil
}
