package simspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// checkDocument strips a UTF-8 byte-order mark and checks that the
// document is one JSON object whose keys are all spec fields, spelled
// exactly (encoding/json would also take "PRECISION" for "precision") and
// none repeated (encoding/json would keep the last).
func checkDocument(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkIsObject(data); err != nil {
		return nil, err
	}
	w := keyWalker{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	var ke *keyError
	if err := w.value(reflect.TypeFor[Spec](), ""); errors.As(err, &ke) {
		return nil, ke
	}
	// Other errors are malformed JSON, which the decoder reports.
	return data, nil
}

// checkIsObject refuses documents that are not a JSON object, naming what
// they are instead.
func checkIsObject(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return errors.New("the file starts with a UTF-16 byte-order mark: JSON specs must be UTF-8 (save it as UTF-8)")
	}
	i := 0
	for i < len(data) && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
		i++
	}
	if i == len(data) {
		return errors.New("the document is empty: the spec must be a JSON object")
	}
	var got string
	switch c := data[i]; {
	case c == '{':
		return nil
	case c == '[':
		got = "an array"
	case c == '"':
		got = "a string"
	case c == '-' || (c >= '0' && c <= '9'):
		got = "a number"
	case c == 't' || c == 'f':
		got = "a boolean"
	case c == 'n':
		got = "null"
	default:
		return nil // not JSON at all: the decoder's syntax error says where
	}
	return fmt.Errorf("the spec must be a JSON object, got %s", got)
}

// keyError is a misspelt, unknown or repeated key.
type keyError struct {
	msg string
}

func (e *keyError) Error() string { return e.msg }

// keyWalker follows a JSON document along the Go type it decodes into.
type keyWalker struct {
	dec  *json.Decoder
	data []byte
}

// value walks one JSON value that decodes into t; path names it.
func (w *keyWalker) value(t reflect.Type, path string) error {
	if !hasStruct(t) {
		// No keys to check inside: skip the value in one step (flux_jy may
		// hold millions of numbers, which Token would box one by one).
		var raw json.RawMessage
		return w.dec.Decode(&raw)
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case d == '{' && t.Kind() == reflect.Struct:
		return w.object(t, path)
	case d == '[' && t.Kind() == reflect.Slice:
		for i := 0; w.dec.More(); i++ {
			if err := w.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err := w.dec.Token()
		return err
	}
	return w.skip() // a type mismatch, which the decoder reports
}

// object walks the members of an object that decodes into the struct t.
func (w *keyWalker) object(t reflect.Type, path string) error {
	fields := jsonFields(t)
	where := path
	if where == "" {
		where = "the spec"
	}
	seen := map[string]int{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		line, _ := lineCol(w.data, w.dec.InputOffset())
		if first, dup := seen[key]; dup {
			return &keyError{fmt.Sprintf("duplicate key %q at line %d in %s (first at line %d): each key may appear once", key, line, where, first)}
		}
		seen[key] = line
		ft, ok := fields[key]
		if !ok {
			return w.badKey(key, line, where, fields)
		}
		if err := w.value(ft, joinPath(path, key)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// badKey describes a key that names no field of the object.
func (w *keyWalker) badKey(key string, line int, where string, fields map[string]reflect.Type) error {
	names := make([]string, 0, len(fields))
	for n := range fields {
		if strings.EqualFold(n, key) {
			return &keyError{fmt.Sprintf("key %q at line %d in %s: keys are case-sensitive, want %q", key, line, where, n)}
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return &keyError{fmt.Sprintf("unknown key %q at line %d in %s; the keys are %s", key, line, where, strings.Join(names, ", "))}
}

// skip consumes the rest of a value whose opening delimiter was just read,
// without recursion however deep it nests.
func (w *keyWalker) skip() error {
	for depth := 1; depth > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// hasStruct reports whether values of t can hold a JSON object with keys
// to check.
func hasStruct(t reflect.Type) bool {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
		case reflect.Struct:
			return true
		default:
			return false
		}
	}
}

// jsonFields maps the JSON names of a struct's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
