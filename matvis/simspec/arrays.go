package simspec

import (
	"bytes"
	"reflect"
)

// The spec's number arrays: ra_rad, dec_rad, freqs_hz, times_jd, the rows
// of antennas_enu_m, beam_idx, and the tables flux_jy and stokes_*_jy,
// read straight into their slices, sized once.

// floats reads a JSON array of numbers (or null) straight into dst.
func (p *parser) floats(dst *[]float64) error {
	if open, err := p.openArray(floatsType); !open {
		if err == nil {
			*dst = nil
		}
		return err
	}
	if values, _, ok := p.parallel(false); ok {
		*dst = values
		return nil
	}
	out, err := p.appendFloats(make([]float64, 0, p.countHint(false)))
	*dst = out
	return err
}

// appendFloats reads the numbers of an array whose '[' was read, through
// its ']', appending them to out; null is 0 (as encoding/json leaves it).
func (p *parser) appendFloats(out []float64) ([]float64, error) {
	err := p.elements(func(int) error {
		v, err := p.floatElem()
		out = append(out, v)
		return err
	})
	return out, err
}

// openArray reads the '[' that starts an array value and reports true, or
// reads a null and reports false; any other value is refused as not of
// type t.
func (p *parser) openArray(t reflect.Type) (bool, error) {
	c, err := p.peek()
	switch {
	case err != nil:
		return false, err
	case c == 'n':
		return false, p.literal("null")
	case c != '[':
		return false, p.mismatch(t)
	}
	p.pos++
	return true, nil
}

// floatElem reads one element of a number array.
func (p *parser) floatElem() (float64, error) {
	c, err := p.peek()
	switch {
	case err != nil:
		return 0, err
	case isNumberStart(c):
		return p.float()
	case c == 'n':
		return 0, p.literal("null")
	}
	return 0, p.mismatch(reflect.TypeFor[float64]())
}

// ints reads a JSON array of integers (or null) into dst.
func (p *parser) ints(dst *[]int) error {
	if open, err := p.openArray(intsType); !open {
		if err == nil {
			*dst = nil
		}
		return err
	}
	out := make([]int, 0, p.countHint(false))
	err := p.elements(func(int) error {
		c, err := p.peek()
		n := 0
		switch {
		case err != nil:
		case isNumberStart(c):
			n, err = p.int()
		case c == 'n':
			err = p.literal("null")
		default:
			err = p.mismatch(reflect.TypeFor[int]())
		}
		out = append(out, n)
		return err
	})
	*dst = out
	return err
}

// arrayEnd returns where the array whose '[' was just read closes (its
// ']'), looking no further than its first closing bracket (nested: the
// first "]]", else the first ']' not followed by a comma), or -1. It is
// exact for arrays of numbers (nested: of rows of numbers written
// compactly); for others it may be wrong, and its users (countHint,
// parallel) only guess from it or check.
func (p *parser) arrayEnd(nested bool) int {
	rest := p.data[p.pos:]
	if nested && compactRows(rest) {
		// A table as json writers give it without indenting closes its
		// rows with "]," and itself with "]]": one search finds that end,
		// where looking at each row's close took 15 ns a row on one core
		// before the parallel read began. A table written otherwise
		// ("] ]") whose end this overshoots, into a later "]]", makes
		// parallel's readers refuse it (they take only rows separated by
		// commas), and the array is read sequentially, as it is when no
		// "]]" is found.
		if e := bytes.Index(rest, []byte("]]")); e >= 0 {
			return p.pos + e + 1
		}
	}
	end := bytes.IndexByte(rest, ']')
	for nested && end >= 0 {
		next := end + 1
		for next < len(rest) && isSpace(rest[next]) {
			next++
		}
		if next >= len(rest) || rest[next] != ',' {
			if next >= len(rest) || rest[next] != ']' {
				return -1
			}
			return p.pos + next
		}
		i := bytes.IndexByte(rest[next:], ']')
		if i < 0 {
			return -1
		}
		end = next + i
	}
	if end < 0 {
		return -1
	}
	return p.pos + end
}

// compactRows says whether the table whose '[' was just read (rest
// follows it) separates its first two rows without a line break ("], ["
// or "],["): an indented table has no "]]", and searching the rest of
// the document for one cost an indented spec a tenth of its reading.
func compactRows(rest []byte) bool {
	i := bytes.IndexByte(rest, ']')
	if i < 0 || i+1 >= len(rest) || rest[i+1] != ',' {
		return false
	}
	j := bytes.IndexByte(rest[i+1:], '[')
	return j >= 0 && bytes.IndexByte(rest[i+1:i+1+j], '\n') < 0
}

// countHint guesses, for a slice's capacity, how many numbers the array
// whose '[' was just read holds (nested: an array of rows): the commas up
// to arrayEnd, plus one, but never more than one number per two bytes, so
// that a malformed document cannot ask for more memory than a valid one
// of its size.
func (p *parser) countHint(nested bool) int {
	end := p.arrayEnd(nested)
	if end < 0 {
		end = len(p.data)
	}
	text := p.data[p.pos:end]
	return min(bytes.Count(text, []byte{','})+1, len(text)/2+1)
}

// parallel reads the plain array whose '[' was just read on p.workers
// cores when it is large (see splitArray), moving past its ']'; ok is
// false, and nothing read, when it is small or not plain.
func (p *parser) parallel(nested bool) (values []float64, rowLen int, ok bool) {
	if p.workers < 2 {
		return nil, 0, false
	}
	end := p.arrayEnd(nested)
	if end < 0 || end-p.pos < p.parallelMin {
		return nil, 0, false
	}
	a := splitArray{text: p.data[p.pos:end], nested: nested, pow10: p.pow10, guard: p.guard}
	if values, rowLen, ok = a.readParallel(p.workers); ok {
		p.pos = end + 1
	}
	return values, rowLen, ok
}

// table reads flux_jy or a Stokes table in either form (see Table and its
// UnmarshalJSON, whose rules these are): rows when the first element that
// is not null is an array (or all are null), flat when it is a number.
func (p *parser) table(t *Table) error {
	if open, err := p.openArray(tableType); !open {
		return err // null: UnmarshalJSON leaves the table as it is
	}
	nested := firstIsArray(p.data[p.pos-1:])
	if values, rowLen, ok := p.parallel(nested); ok {
		*t = TableFlat(values)
		if nested {
			*t = Table{values: values, form: formRows, rows: len(values) / rowLen}
		}
		return nil
	}
	b := tableBuilder{t: Table{form: formRows}}
	b.t.values = make([]float64, 0, p.countHint(nested))
	err := p.elements(func(int) error { return p.tableElem(&b) })
	*t = b.t
	return err
}

// tableBuilder is a table being read.
type tableBuilder struct {
	t Table
	// decided: an element that is not null fixed the form.
	decided bool
	// first is the length of the first row.
	first int
}

// tableElem reads one element of a table: a row, a number or null.
func (p *parser) tableElem(b *tableBuilder) error {
	c, err := p.peek()
	switch {
	case err != nil:
		return err
	case c == 'n' && b.t.form == formFlat:
		b.t.values = append(b.t.values, 0)
		return p.literal("null")
	case c == 'n':
		b.addRow(0)
		return p.literal("null")
	case c == '[' && (!b.decided || b.t.form == formRows):
		b.decided = true
		p.pos++
		n := len(b.t.values)
		b.t.values, err = p.appendFloats(b.t.values)
		b.addRow(len(b.t.values) - n)
		return err
	case isNumberStart(c) && (!b.decided || b.t.form == formFlat):
		if !b.decided {
			// The leading nulls were numbers (0), not empty rows.
			b.decided = true
			b.t.values = append(b.t.values, make([]float64, b.t.rows)...)
			b.t = Table{values: b.t.values, form: formFlat}
		}
		v, err := p.float()
		b.t.values = append(b.t.values, v)
		return err
	}
	return p.mismatch(tableType)
}

// addRow notes a row of n values of the rows form.
func (b *tableBuilder) addRow(n int) {
	t := &b.t
	switch {
	case t.rows == 0:
		b.first = n
	case t.lens == nil && n != b.first:
		t.lens = make([]int, t.rows, t.rows+1)
		for i := range t.lens {
			t.lens[i] = b.first
		}
	}
	if t.lens != nil {
		t.lens = append(t.lens, n)
	}
	t.rows++
}
