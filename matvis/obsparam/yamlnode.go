package obsparam

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"gopkg.in/yaml.v3"
)

// MaxFileBytes bounds every file Read opens (obsparam YAML, telescope
// config YAML, layout CSV), so a stray huge or endless file fails fast.
const MaxFileBytes = 64 << 20

// readBounded reads a regular file of at most MaxFileBytes; what names the
// file's role in messages ("obsparam file", "layout file", ...).
func readBounded(path, what string) ([]byte, error) {
	// inputfile.Open refuses a FIFO or device without blocking on it.
	f, size, err := inputfile.Open(path)
	switch {
	case errors.Is(err, inputfile.ErrNotRegular):
		return nil, &Error{File: path, Msg: "the " + what + " is not a regular file", Err: err}
	case err != nil:
		return nil, &Error{File: path, Msg: "cannot open the " + what, Err: err}
	}
	defer f.Close()
	if size > MaxFileBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the %s is %d bytes, over the %d-byte limit", what, size, MaxFileBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read the " + what, Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the %s grew past the %d-byte limit while being read", what, MaxFileBytes)}
	}
	return data, nil
}

// yfile is one parsed YAML file; name is the path used in messages.
type yfile struct {
	name string
	root *yaml.Node
}

// parseYAML parses data as a single YAML document whose top level is a
// mapping. yaml.v3 is not expected to panic, but a configuration reader must
// never take the process down, so a panic becomes an error.
func parseYAML(name string, data []byte) (yf *yfile, err error) {
	defer func() {
		if r := recover(); r != nil {
			yf, err = nil, &Error{File: name, Msg: fmt.Sprintf("malformed YAML (the parser failed: %v)", r)}
		}
	}()
	// yaml.v3 refuses bytes that are not UTF-8 without saying where
	// ("invalid leading UTF-8 octet"); a UTF-16 file (with its BOM) it reads.
	if !bytes.HasPrefix(data, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		if err := checkUTF8(name, strings.Split(string(data), "\n"), "YAML is UTF-8, and its names are written to UVH5 as UTF-8"); err != nil {
			return nil, err
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "the file is empty: expected a YAML mapping"}
		}
		return nil, &Error{File: name, Line: yamlErrLine(err), Msg: "malformed YAML", Err: err}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &Error{File: name, Line: extra.Line, Msg: "more than one YAML document (a '---' separator?): expected a single mapping"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, &Error{File: name, Msg: "the file is empty: expected a YAML mapping"}
		}
		root = root.Content[0]
	}
	yf = &yfile{name: name}
	root = deref(root)
	if root.Kind != yaml.MappingNode {
		return nil, yf.errf(root, "", "the top level must be a mapping of keys to values, found %s", kindName(root))
	}
	yf.root = root
	return yf, nil
}

// yamlLineRE finds the line yaml.v3 puts in its syntax errors.
var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlErrLine is the line of a yaml.v3 syntax error, or 0.
func yamlErrLine(err error) int {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// kindName describes a node for messages.
func kindName(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("the string %q", shorten(n.Value))
		case "!!int", "!!float":
			return "the number " + shorten(n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		}
		return fmt.Sprintf("%s %s", n.Tag, shorten(n.Value))
	}
	return "an unsupported YAML node"
}

// valueText is how a node's value is quoted in messages.
func valueText(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" {
			return strconv.Quote(shorten(n.Value))
		}
		return shorten(n.Value)
	case yaml.SequenceNode:
		return fmt.Sprintf("[list of %d]", len(n.Content))
	}
	return ""
}

// errf builds an *Error at node n for the key path field.
func (y *yfile) errf(n *yaml.Node, field, format string, args ...any) *Error {
	e := &Error{File: y.name, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
		e.Value = valueText(n)
	}
	return e
}

// keyErrf builds an *Error about a key: at the key's line, quoting the
// value given for it.
func (y *yfile) keyErrf(e entry, field, format string, args ...any) *Error {
	err := y.errf(e.value, field, format, args...)
	if e.keyN != nil {
		err.Line = e.keyN.Line
	}
	return err
}

// warnf formats a warning that names the file and line.
func (y *yfile) warnf(n *yaml.Node, field, format string, args ...any) string {
	loc := y.name
	if n != nil && n.Line > 0 {
		loc = fmt.Sprintf("%s:%d", y.name, n.Line)
	}
	if field != "" {
		loc += ": " + field
	}
	return loc + ": " + fmt.Sprintf(format, args...)
}

// entry is one key: value pair of a mapping.
type entry struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
}

// entries lists a mapping's pairs in file order; keys must be scalars and
// unique (PyYAML silently keeps the last of duplicate keys, which hides
// typos, so duplicates are errors here). prefix is the key path of the map.
func (y *yfile) entries(n *yaml.Node, prefix string) ([]entry, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, y.errf(n, prefix, "must be a mapping of keys to values, found %s", kindName(n))
	}
	out := make([]entry, 0, len(n.Content)/2)
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return nil, y.errf(k, prefix, "a key must be a plain value, found %s", kindName(k))
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			return nil, y.errf(k, join(prefix, "<<"), "YAML merge keys are not supported: write the keys out")
		}
		if line, dup := seen[k.Value]; dup {
			return nil, y.errf(k, join(prefix, k.Value), "duplicate key (first at line %d)", line)
		}
		seen[k.Value] = k.Line
		out = append(out, entry{key: k.Value, keyN: k, value: n.Content[i+1]})
	}
	return out, nil
}

// join builds a key path.
func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// isNull reports whether n is an explicit null (or an empty value).
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// num reads a finite number.
func (y *yfile) num(n *yaml.Node, field string) (float64, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, y.errf(n, field, "must be a number, found %s", kindName(n))
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
	default:
		return 0, y.errf(n, field, "must be a number, found %s", kindName(n))
	}
	var f float64
	if err := n.Decode(&f); err != nil {
		v, perr := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if perr != nil {
			return 0, y.errf(n, field, "cannot read the number %q", shorten(n.Value))
		}
		f = v
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, y.errf(n, field, "must be a finite number")
	}
	return f, nil
}

// maxInt bounds integers read from configurations (antenna numbers, counts).
const maxInt = 1 << 31

// integer reads a whole number (3 and 3.0 are both accepted, as Python's
// int() of a float would; 3.5 is not).
func (y *yfile) integer(n *yaml.Node, field string) (int, error) {
	f, err := y.num(n, field)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, y.errf(n, field, "must be a whole number")
	}
	if math.Abs(f) >= maxInt {
		return 0, y.errf(n, field, "is out of range (|value| must be below %d)", int64(maxInt))
	}
	return int(f), nil
}

// str reads a string scalar.
func (y *yfile) str(n *yaml.Node, field string) (string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", y.errf(n, field, "must be a string, found %s", kindName(n))
	}
	return n.Value, nil
}

// text reads any non-null scalar as its text (for names, where PyYAML would
// hand pyuvsim a number that it then prints).
func (y *yfile) text(n *yaml.Node, field string) (string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", y.errf(n, field, "must be a plain value (a string), found %s", kindName(n))
	}
	return n.Value, nil
}

// yaml11Bools are the YAML 1.1 boolean spellings PyYAML (and so pyuvsim)
// accepts; yaml.v3 reads most of them as strings.
var yaml11Bools = map[string]bool{
	"yes": true, "no": false, "on": true, "off": false, "true": true, "false": false,
}

// boolean reads a boolean as pyuvsim's bool(value) would for the values a
// user writes: YAML booleans (including yes/no/on/off) and the integers 0/1.
func (y *yfile) boolean(n *yaml.Node, field string) (bool, error) {
	n = deref(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!bool", "!!str":
			if v, ok := yaml11Bools[strings.ToLower(n.Value)]; ok {
				return v, nil
			}
		case "!!int":
			if n.Value == "0" || n.Value == "1" {
				return n.Value == "1", nil
			}
		}
	}
	return false, y.errf(n, field, "must be true or false, found %s", kindName(n))
}

// seq returns a list's items.
func (y *yfile) seq(n *yaml.Node, field string) ([]*yaml.Node, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, y.errf(n, field, "must be a list, found %s", kindName(n))
	}
	return n.Content, nil
}

// numOrList reads a number or a list of numbers; scalar reports which.
func (y *yfile) numOrList(n *yaml.Node, field string) (vals []float64, scalar bool, err error) {
	d := deref(n)
	if d != nil && d.Kind == yaml.SequenceNode {
		if len(d.Content) == 0 {
			return nil, false, y.errf(d, field, "must not be an empty list")
		}
		vals = make([]float64, len(d.Content))
		for i, c := range d.Content {
			v, err := y.num(c, fmt.Sprintf("%s[%d]", field, i))
			if err != nil {
				return nil, false, err
			}
			vals[i] = v
		}
		return vals, false, nil
	}
	v, err := y.num(n, field)
	if err != nil {
		return nil, false, err
	}
	return []float64{v}, true, nil
}
