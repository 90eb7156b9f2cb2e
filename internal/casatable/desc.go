package casatable

import (
	"fmt"
	"math"
	"strings"
)

// DataType is casacore's DataType enum value of a column's elements or a
// keyword's value (casa/Utilities/DataType.h).
type DataType int32

// The element types a column may have here, with casacore's numbers.
const (
	Bool    DataType = 0
	Int     DataType = 5
	Float   DataType = 7
	Double  DataType = 8
	Complex DataType = 9
	String  DataType = 11

	tpTable       DataType = 12
	tpArrayUInt   DataType = 19
	tpArrayString DataType = 24
	tpRecord      DataType = 25
)

// typeName is the 8-character name casacore's ValType gives a type, which
// column description class names carry ("ScalarColumnDesc<Int     ").
func (t DataType) typeName() string {
	switch t {
	case Bool:
		return "Bool    "
	case Int:
		return "Int     "
	case Float:
		return "float   "
	case Double:
		return "double  "
	case Complex:
		return "Complex "
	case String:
		return "String  "
	}
	return ""
}

// size is the bytes one element takes in the storage manager's file; 0
// for strings, whose size varies.
func (t DataType) size() int {
	switch t {
	case Bool:
		return 1
	case Int, Float:
		return 4
	case Double, Complex:
		return 8
	}
	return 0
}

// Column describes one column: its element type and, for an array
// column, the fixed shape of every cell in casacore's order (the first
// axis varies fastest: a visibility cell is [ncorr, nchan]).
type Column struct {
	Name, Comment string
	Type          DataType
	Shape         []int // nil: a scalar column
	Keywords      Record
	// Tiled stores the (array) column in a TiledColumnStMan of its own,
	// whose data file has 64-bit offsets, instead of in the table's
	// StManAipsIO file, which holds at most 4 GiB.
	Tiled bool
}

// nelem is the number of elements of one cell.
func (c Column) nelem() int {
	n := 1
	for _, s := range c.Shape {
		n *= s
	}
	return n
}

// Record is a casacore keyword set: named fields in order. Values are
// float64, int32, string, []string, []uint32, Record or SubTable.
type Record struct {
	fields []field
}

type field struct {
	name  string
	value any
}

// SubTable is a keyword that refers to a table in a directory of the
// table's own directory (the MeasurementSet's "Table: ..." keywords).
type SubTable string

// Set appends a field (or replaces one of the same name) and returns the
// record, so that sets chain.
func (r Record) Set(name string, v any) Record {
	out := Record{fields: append([]field(nil), r.fields...)}
	for i := range out.fields {
		if out.fields[i].name == name {
			out.fields[i].value = v
			return out
		}
	}
	out.fields = append(out.fields, field{name, v})
	return out
}

// Len is the number of fields.
func (r Record) Len() int { return len(r.fields) }

// putRecord writes r as a TableRecord (TableRecordRep::putRecord): its
// description, the record type (1: variable) and the values. A
// sub-record is described with no fields and written whole, as
// python-casacore writes the MEASINFO records.
func (e *enc) putRecord(r Record) error {
	e.start("TableRecord", 1)
	e.start("RecordDesc", 2)
	e.i32(int32(len(r.fields)))
	for _, f := range r.fields {
		e.str(f.name)
		switch v := f.value.(type) {
		case float64:
			e.i32(int32(Double))
		case int32:
			e.i32(int32(Int))
		case string:
			e.i32(int32(String))
		case []string:
			e.i32(int32(tpArrayString))
			e.iposition([]int{-1})
		case []uint32:
			e.i32(int32(tpArrayUInt))
			e.iposition([]int{-1})
		case Record:
			e.i32(int32(tpRecord))
			e.start("RecordDesc", 2)
			e.i32(0)
			e.end()
		case SubTable:
			e.i32(int32(tpTable))
			e.str("") // the subtable's description name
		default:
			return fmt.Errorf("casatable: keyword %q has a value of type %T, which has no casacore encoding here", f.name, v)
		}
		e.str("") // comment
	}
	e.end()
	e.i32(1) // RecordInterface::Variable
	for _, f := range r.fields {
		switch v := f.value.(type) {
		case float64:
			e.f64(v)
		case int32:
			e.i32(v)
		case string:
			e.str(v)
		case []string:
			e.start("Array<String>", 3)
			e.u32(1)
			e.u32(uint32(len(v)))
			e.u32(uint32(len(v)))
			for _, s := range v {
				e.str(s)
			}
			e.end()
		case []uint32:
			e.start("Array<uInt>", 3)
			e.u32(1)
			e.u32(uint32(len(v)))
			e.u32(uint32(len(v)))
			for _, x := range v {
				e.u32(x)
			}
			e.end()
		case Record:
			if err := e.putRecord(v); err != nil {
				return err
			}
		case SubTable:
			e.str("././" + string(v))
		}
	}
	e.end()
	return nil
}

// putColumnDesc writes one ColumnDesc (ColumnDesc::putFile,
// BaseColumnDesc::putFile and the scalar or array putDesc), naming its
// data manager's type and group.
func (e *enc) putColumnDesc(c Column) error {
	dm, group := dmName, dmName
	if c.Tiled {
		dm, group = tsmName, tsmGroup(c)
	}
	e.u32(1)
	kind := "ScalarColumnDesc<"
	if c.Shape != nil {
		kind = "ArrayColumnDesc<"
	}
	e.str(kind + c.Type.typeName())
	e.u32(1)
	e.str(c.Name)
	e.str(c.Comment)
	e.str(dm)    // data manager type
	e.str(group) // data manager group
	e.i32(int32(c.Type))
	if c.Shape == nil {
		e.i32(0) // option
		e.i32(0) // ndim
	} else {
		e.i32(5) // ColumnDesc::Direct | ColumnDesc::FixedShape
		e.i32(int32(len(c.Shape)))
		e.iposition(c.Shape)
	}
	e.i32(0) // maximum string length: none
	if err := e.putRecord(c.Keywords); err != nil {
		return fmt.Errorf("column %s: %w", c.Name, err)
	}
	e.u32(1)
	if c.Shape != nil {
		e.boolean(false) // the unused "has a default" switch
		return nil
	}
	switch c.Type { // the scalar's default value, zero
	case Bool:
		e.boolean(false)
	case Int, Float:
		e.u32(0)
	case Double, Complex:
		e.u64(0)
	case String:
		e.str("")
	}
	return nil
}

// checkColumns rejects descriptions casacore would not open or this
// package cannot store.
func checkColumns(cols []Column) error {
	seen := map[string]bool{}
	for _, c := range cols {
		if c.Name == "" || strings.ContainsAny(c.Name, "/ ") {
			return fmt.Errorf("casatable: column name %q: must be non-empty without '/' or spaces", c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("casatable: column %s is described twice", c.Name)
		}
		seen[c.Name] = true
		if c.Type.typeName() == "" {
			return fmt.Errorf("casatable: column %s has data type %d; use Bool, Int, Float, Double, Complex or String", c.Name, c.Type)
		}
		if c.Tiled && (c.Shape == nil || c.Type == String) {
			return fmt.Errorf("casatable: column %s: only a non-String array column can be tiled", c.Name)
		}
		if c.Shape != nil && len(c.Shape) == 0 {
			return fmt.Errorf("casatable: column %s: an array column needs at least one axis", c.Name)
		}
		cell := int64(1)
		for _, n := range c.Shape {
			if n <= 0 {
				return fmt.Errorf("casatable: column %s has cell shape %v; every axis must be >= 1", c.Name, c.Shape)
			}
			if cell *= int64(n); cell > math.MaxInt32 {
				return fmt.Errorf("casatable: column %s has cell shape %v, over 2^31 values a cell", c.Name, c.Shape)
			}
		}
	}
	return nil
}
