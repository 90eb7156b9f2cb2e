package obsparam

import (
	"fmt"
	"strings"
)

// Error is one problem found while reading a configuration: the file, the
// line (0 when unknown), the key path (for example "freq.Nfreqs") and the
// offending value, with what is wrong. Err, when set, is the underlying
// cause (for example an *os.PathError).
type Error struct {
	File  string
	Line  int
	Field string
	Value string
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("obsparam: ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		if e.Value != "" {
			b.WriteString(" = ")
			b.WriteString(e.Value)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// shorten bounds a value quoted in a message, so a huge input does not make
// a huge error.
func shorten(s string) string {
	const max = 80
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > max {
		return s[:max-3] + "..."
	}
	return s
}
