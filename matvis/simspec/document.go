package simspec

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

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

// badKey describes a key that names no field of the object.
func badKey(key string, line int, where string, fields map[string]int) error {
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
