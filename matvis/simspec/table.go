package simspec

import (
	"bytes"
	"encoding/json"
)

// Table is a per-source, per-frequency table (flux_jy, stokes_q_jy, …)
// held as one row-major slice: the value of source i at channel k is
// Values()[i*nfreq+k]. A spec writes it either as rows, one array per
// source ([[1, 2], [3, 4]]), or flat, row-major, nsrc·nfreq numbers
// ([1, 2, 3, 4]); both forms decode into the same single slice, so a
// table of millions of sources costs one allocation, not one per source.
//
// The zero Table is "not given" (a field left out or null).
type Table struct {
	values []float64
	form   tableForm
	// rows is the number of rows of the rows form.
	rows int
	// lens holds each row's length when the rows form's rows differ in
	// length (a table Validate refuses); nil when they are all alike.
	lens []int
}

// tableForm is how a Table was written.
type tableForm uint8

const (
	formNone tableForm = iota // not given
	formRows                  // one array per source
	formFlat                  // one row-major array
)

// TableRows returns a table in the rows form; the values are copied into
// one slice.
func TableRows(rows [][]float64) Table {
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	t := Table{values: make([]float64, 0, n), form: formRows, rows: len(rows)}
	for i, r := range rows {
		t.values = append(t.values, r...)
		if t.lens == nil && len(r) != len(rows[0]) {
			t.lens = make([]int, i, len(rows))
			for k := range i {
				t.lens[k] = len(rows[k])
			}
		}
		if t.lens != nil {
			t.lens = append(t.lens, len(r))
		}
	}
	return t
}

// TableFlat returns a table in the flat form, holding values (not a copy):
// values[i*nfreq+k] is source i at channel k.
func TableFlat(values []float64) Table {
	if values == nil {
		values = []float64{}
	}
	return Table{values: values, form: formFlat}
}

// Given reports whether the table was given (not left out or null).
func (t Table) Given() bool { return t.form != formNone }

// Flat reports whether the table was given in the flat form.
func (t Table) Flat() bool { return t.form == formFlat }

// Values returns the table's values, row-major (the rows form's rows one
// after the other). Once Validate accepted the spec, there are nsrc·nfreq.
func (t Table) Values() []float64 { return t.values }

// empty reports whether the table holds no row and no value.
func (t Table) empty() bool { return len(t.values) == 0 && t.rows == 0 }

// rowLen is the length of row i of the rows form.
func (t Table) rowLen(i int) int {
	if t.lens != nil {
		return t.lens[i]
	}
	return len(t.values) / t.rows
}

// Rows returns the table as rows (views into Values, not copies): the
// rows form's rows as written, or the flat form cut every ncol values (a
// last short row holds what is left; ncol < 1 gives one row).
func (t Table) Rows(ncol int) [][]float64 {
	switch {
	case t.form == formNone:
		return nil
	case t.form == formFlat && ncol < 1:
		return [][]float64{t.values}
	}
	nrows := t.rows
	if t.form == formFlat {
		nrows = (len(t.values) + ncol - 1) / ncol
	}
	out := make([][]float64, nrows)
	off := 0
	for i := range out {
		n := ncol
		if t.form == formRows {
			n = t.rowLen(i)
		}
		n = min(n, len(t.values)-off)
		out[i] = t.values[off : off+n : off+n]
		off += n
	}
	return out
}

// MarshalJSON writes the table in the form it was given.
func (t Table) MarshalJSON() ([]byte, error) {
	switch t.form {
	case formFlat:
		return json.Marshal(t.values)
	case formRows:
		return json.Marshal(t.Rows(0))
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads either form: rows when the document is an array of
// arrays (or nulls), flat when it is an array of numbers. It is the plain
// encoding/json reading of a table; Decode's own reader must agree with it.
func (t *Table) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var rows [][]float64
	errRows := json.Unmarshal(b, &rows)
	if errRows == nil {
		*t = TableRows(rows)
		return nil
	}
	var flat []float64
	errFlat := json.Unmarshal(b, &flat)
	if errFlat == nil {
		*t = TableFlat(flat)
		return nil
	}
	// Report the error of the form the first value asked for.
	if firstIsArray(b) {
		return errRows
	}
	return errFlat
}

// firstIsArray reports whether the first element of the JSON array b that
// is not null is itself an array.
func firstIsArray(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("[")), " \t\r\n")
	for bytes.HasPrefix(b, []byte("null")) {
		b = bytes.TrimLeft(b[4:], " \t\r\n,")
	}
	return len(b) > 0 && b[0] == '['
}
