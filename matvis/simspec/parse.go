package simspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
)

// parser reads a spec document in one pass over its bytes, straight into
// a Spec, checking its keys on the way (spelled exactly, none repeated).
// Number arrays (ra_rad, flux_jy, …) are read into their slices directly,
// sized once from a count of their commas, so a spec of millions of
// sources is read without a copy per value.
//
// It accepts exactly what encoding/json accepts into a Spec (TestTwin and
// FuzzDecode hold it to that). Its errors carry only a byte offset: line
// and column are worked out for the one error reported, and malformed
// JSON or a value of the wrong type is described by encoding/json's own
// reading of the document (explain), so the messages are those users
// know.
type parser struct {
	data []byte
	pos  int
	// typeErr is the first value of the wrong type. Reading goes on past
	// it, as encoding/json's does, so that a misspelt key further on is
	// still the error reported, as when the keys were checked first.
	typeErr *parseError
	// fields caches each struct type's keys.
	fields map[reflect.Type]map[string]int
	// workers is the number of cores a number array of parallelMin bytes
	// or more is read on.
	workers, parallelMin int
	pow10                fastfloat.Powers
	// guard runs the parallel readers' reads of data (see guardFunc).
	guard guardFunc
}

// guardFunc runs a function that reads the document's bytes, and is run
// by every goroutine but the caller's that does (inputfile.Mapping.Guard
// for a mapped file, which covers the goroutine it runs on only).
type guardFunc func(read func() error) error

func unguarded(read func() error) error { return read() }

// parseError is malformed JSON (syntax) or a value of the wrong type at
// byte offset off.
type parseError struct {
	off    int
	msg    string
	syntax bool
	// notUTF8: a string's raw bytes are not UTF-8, which encoding/json
	// reads as U+FFFD; refused, so that no name is changed silently.
	notUTF8 bool
}

func (e *parseError) Error() string { return e.msg }

// maxDepth is encoding/json's limit on nesting, kept so that the two
// readers agree.
const maxDepth = 10000

var (
	tableType  = reflect.TypeFor[Table]()
	floatsType = reflect.TypeFor[[]float64]()
	intsType   = reflect.TypeFor[[]int]()
)

// parseSpec reads the document data (one JSON object, no byte-order mark)
// into s, arrays of 1 MiB or more on all cores.
func parseSpec(data []byte, s *Spec) error {
	return parseSpecGuarded(data, s, unguarded)
}

// parseSpecGuarded is parseSpec with the parallel readers' reads of data
// run inside guard.
func parseSpecGuarded(data []byte, s *Spec, guard guardFunc) error {
	return parseSpecOn(data, s, runtime.GOMAXPROCS(0), 1<<20, guard)
}

// parseSpecOn is parseSpec reading number arrays of parallelMin bytes or
// more on workers cores (tests use small arrays to reach that path), each
// core's reads inside guard.
func parseSpecOn(data []byte, s *Spec, workers, parallelMin int, guard guardFunc) error {
	p := &parser{data: data, fields: map[reflect.Type]map[string]int{}, workers: workers, parallelMin: parallelMin, pow10: fastfloat.PowersOfTen(), guard: guard}
	if err := p.value(reflect.ValueOf(s).Elem(), nil); err != nil {
		return err
	}
	if p.typeErr != nil {
		return p.typeErr
	}
	if p.skipSpace() < len(p.data) {
		return errTrailing
	}
	return nil
}

// errTrailing is anything but white space after the spec's object.
var errTrailing = fmt.Errorf("trailing data after the JSON object")

// keyPath names where an object is, for key errors: "beams[2]",
// "sources.catalog"; nil is the spec itself. It is formatted only when a
// key is wrong.
type keyPath struct {
	up  *keyPath
	key string // "" for an element of an array
	idx int
}

func (k *keyPath) String() string {
	switch {
	case k == nil:
		return ""
	case k.key == "":
		return fmt.Sprintf("%s[%d]", k.up, k.idx)
	case k.up == nil:
		return k.key
	}
	return k.up.String() + "." + k.key
}

// skipSpace moves past JSON white space and returns the position.
func (p *parser) skipSpace() int {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return p.pos
		}
	}
	return p.pos
}

// peek returns the next byte that is not white space.
func (p *parser) peek() (byte, error) {
	if p.skipSpace() >= len(p.data) {
		return 0, p.syntaxErr("unexpected end of JSON input")
	}
	return p.data[p.pos], nil
}

func (p *parser) syntaxErr(format string, a ...any) *parseError {
	return &parseError{off: p.pos, msg: fmt.Sprintf(format, a...), syntax: true}
}

// mismatch records a value of the wrong type for want (the first one
// only) and skips it.
func (p *parser) mismatch(want reflect.Type) error {
	if p.typeErr == nil {
		p.typeErr = &parseError{off: p.pos, msg: fmt.Sprintf("cannot read %q into %s", p.data[p.pos:min(p.pos+20, len(p.data))], want)}
	}
	return p.skip(0)
}

// value reads one JSON value into v; at names the object v is in.
func (p *parser) value(v reflect.Value, at *keyPath) error {
	switch v.Type() {
	case tableType:
		return p.table(v.Addr().Interface().(*Table))
	case floatsType:
		return p.floats(v.Addr().Interface().(*[]float64))
	case intsType:
		return p.ints(v.Addr().Interface().(*[]int))
	}
	c, err := p.peek()
	if err != nil {
		return err
	}
	if c == 'n' {
		return p.null(v)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return p.value(v.Elem(), at)
	case reflect.Struct:
		if c != '{' {
			return p.mismatch(v.Type())
		}
		return p.object(v, at)
	case reflect.Slice:
		if c != '[' {
			return p.mismatch(v.Type())
		}
		return p.slice(v, at)
	}
	return p.scalar(v, c)
}

// null reads a null: pointers and slices become nil, as in encoding/json;
// other values keep theirs.
func (p *parser) null(v reflect.Value) error {
	if err := p.literal("null"); err != nil {
		return err
	}
	if k := v.Kind(); k == reflect.Pointer || k == reflect.Slice {
		v.SetZero()
	}
	return nil
}

// literal reads the word (true, false, null) at p.pos.
func (p *parser) literal(word string) error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return p.syntaxErr("invalid literal, want %s", word)
	}
	p.pos += len(word)
	return nil
}

// object reads the members of a JSON object into the struct v.
func (p *parser) object(v reflect.Value, at *keyPath) error {
	fields := p.structFields(v.Type())
	p.pos++ // {
	seen := map[string]int{}
	return p.members(func(key string) error {
		if first, dup := seen[key]; dup {
			return &keyError{fmt.Sprintf("duplicate key %q at line %d in %s (first at line %d): each key may appear once",
				key, p.line(p.pos), where(at), p.line(first))}
		}
		seen[key] = p.pos
		i, ok := fields[key]
		if !ok {
			return badKey(key, p.line(p.pos), where(at), fields)
		}
		if err := p.colon(); err != nil {
			return err
		}
		return p.value(v.Field(i), &keyPath{up: at, key: key})
	})
}

// members reads the members of an object whose '{' was read, through its
// '}', calling member with each key just read (before its colon: a wrong
// key is reported before what follows it, as when keys were checked
// first); member reads the colon and the value.
func (p *parser) members(member func(key string) error) error {
	c, err := p.peek()
	if err != nil || c == '}' {
		p.pos++
		return err
	}
	for {
		if c != '"' {
			return p.syntaxErr("invalid character %q looking for beginning of object key string", c)
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if c, err = p.peek(); err != nil {
			return err
		}
		p.pos++
		switch c {
		case '}':
			return nil
		case ',':
		default:
			return p.syntaxErr("invalid character %q after object key:value pair", c)
		}
		if c, err = p.peek(); err != nil {
			return err
		}
	}
}

// colon reads the colon after an object's key.
func (p *parser) colon() error {
	if c, err := p.peek(); err != nil || c != ':' {
		return p.syntaxErr("invalid character %q after object key", c)
	}
	p.pos++
	return nil
}

// where names the object at in key errors.
func where(at *keyPath) string {
	if at == nil {
		return "the spec"
	}
	return at.String()
}

// line is the line of the byte before offset off (the closing quote of a
// key that ends there).
func (p *parser) line(off int) int {
	line, _ := lineCol(p.data, int64(off))
	return line
}

// structFields maps the JSON names of t's fields to their indices.
func (p *parser) structFields(t reflect.Type) map[string]int {
	if f, ok := p.fields[t]; ok {
		return f
	}
	f := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case !sf.IsExported() || name == "-":
			continue
		case name == "":
			name = sf.Name
		}
		f[name] = i
	}
	p.fields[t] = f
	return f
}

// slice reads a JSON array into the slice v, element by element.
func (p *parser) slice(v reflect.Value, at *keyPath) error {
	p.pos++ // [
	out := reflect.MakeSlice(v.Type(), 0, 0)
	defer func() { v.Set(out) }()
	return p.elements(func(i int) error {
		out = reflect.Append(out, reflect.Zero(v.Type().Elem()))
		return p.value(out.Index(i), &keyPath{up: at, idx: i})
	})
}

// elements reads the elements of an array whose '[' was read, through its
// ']', each by one call of read.
func (p *parser) elements(read func(i int) error) error {
	c, err := p.peek()
	if err != nil || c == ']' {
		p.pos++
		return err
	}
	for i := 0; ; i++ {
		if err := read(i); err != nil {
			return err
		}
		if c, err = p.peek(); err != nil {
			return err
		}
		p.pos++
		switch c {
		case ']':
			return nil
		case ',':
		default:
			return p.syntaxErr("invalid character %q after array element", c)
		}
	}
}

// scalar reads a string, boolean or number (first byte c) into v.
func (p *parser) scalar(v reflect.Value, c byte) error {
	switch k := v.Kind(); {
	case k == reflect.String && c == '"':
		s, err := p.str()
		v.SetString(s)
		return err
	case k == reflect.Bool && c == 't':
		v.SetBool(true)
		return p.literal("true")
	case k == reflect.Bool && c == 'f':
		v.SetBool(false)
		return p.literal("false")
	case k == reflect.Float64 && isNumberStart(c):
		f, err := p.float()
		v.SetFloat(f)
		return err
	case k == reflect.Int && isNumberStart(c):
		n, err := p.int()
		v.SetInt(int64(n))
		return err
	}
	return p.mismatch(v.Type())
}

// firstNotUTF8 is the offset of the first byte of b that does not begin
// a valid UTF-8 sequence, or −1 when b is UTF-8.
func firstNotUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// str reads the JSON string at p.pos (its opening quote).
func (p *parser) str() (string, error) {
	start, plain := p.pos, true
	for i := start + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			if plain {
				return string(p.data[start+1 : i]), nil
			}
			// Escapes and non-ASCII bytes: encoding/json's own reading,
			// for the same string, but for bytes that are not UTF-8,
			// which it would turn into U+FFFD.
			if bad := firstNotUTF8(p.data[start+1 : i]); bad >= 0 {
				off := start + 1 + bad
				return "", &parseError{off: off, notUTF8: true,
					msg: fmt.Sprintf("the byte 0x%02X in a string is not UTF-8: JSON text is UTF-8 (RFC 8259 §8.1); save the file as UTF-8", p.data[off])}
			}
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				return "", &parseError{off: start, msg: err.Error(), syntax: true}
			}
			return s, nil
		case c == '\\':
			plain = false
			if err := p.escape(i + 1); err != nil {
				return "", err
			}
			i++
			if p.data[i] == 'u' {
				i += 4
			}
		case c < 0x20:
			p.pos = i
			return "", p.syntaxErr("invalid character %q in string literal", c)
		case c >= 0x80:
			plain = false
		}
	}
	p.pos = len(p.data)
	return "", p.syntaxErr("unexpected end of JSON input")
}

// escape checks the escape whose letter is at data[i].
func (p *parser) escape(i int) error {
	if i >= len(p.data) {
		p.pos = i
		return p.syntaxErr("unexpected end of JSON input")
	}
	switch p.data[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return nil
	case 'u':
		if i+4 < len(p.data) && isHex(p.data[i+1]) && isHex(p.data[i+2]) && isHex(p.data[i+3]) && isHex(p.data[i+4]) {
			return nil
		}
	}
	p.pos = i
	return p.syntaxErr("invalid escape in string literal")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// numberEnd returns the end of the JSON number at d[i], or -1 when it is
// not one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(d []byte, i int) int {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	default:
		if i = digits(d, i); i < 0 {
			return -1
		}
	}
	if i < len(d) && d[i] == '.' {
		if i = digits(d, i+1); i < 0 {
			return -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		return digits(d, i)
	}
	return i
}

// digits returns the end of the digits at d[i], or -1 when there is none.
func digits(d []byte, i int) int {
	s := i
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	if i == s {
		return -1
	}
	return i
}

// number returns the bytes of the JSON number at p.pos and moves past it.
func (p *parser) number() ([]byte, error) {
	end := numberEnd(p.data, p.pos)
	if end < 0 {
		return nil, p.syntaxErr("invalid number")
	}
	b := p.data[p.pos:end]
	p.pos = end
	return b, nil
}

// float reads the JSON number at p.pos as a float64; one out of range is a
// value of the wrong type, as in encoding/json.
func (p *parser) float() (float64, error) {
	f, end, err := scanFloat(p.data, p.pos, p.pow10)
	if end < 0 {
		return 0, p.syntaxErr("invalid number")
	}
	if err != nil && p.typeErr == nil {
		p.typeErr = &parseError{off: p.pos, msg: fmt.Sprintf("number %s: %v", p.data[p.pos:end], err)}
	}
	p.pos = end
	return f, nil
}

// int reads the JSON number at p.pos as an int: one with a fraction or an
// exponent, or out of range, is a value of the wrong type.
func (p *parser) int() (int, error) {
	start := p.pos
	b, err := p.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(b), 10, strconv.IntSize)
	if err != nil && p.typeErr == nil {
		p.typeErr = &parseError{off: start, msg: fmt.Sprintf("number %s into an int: %v", b, err)}
	}
	return int(n), nil
}

// skip reads past one JSON value of any kind, checking its syntax; depth
// counts the arrays and objects it is in.
func (p *parser) skip(depth int) error {
	if depth > maxDepth {
		return p.syntaxErr("exceeded max depth")
	}
	c, err := p.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		p.pos++
		return p.skipMembers(depth)
	case c == '[':
		p.pos++
		return p.elements(func(int) error { return p.skip(depth + 1) })
	case c == '"':
		_, err := p.str()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case isNumberStart(c):
		_, err := p.number()
		return err
	}
	return p.syntaxErr("invalid character %q looking for beginning of value", c)
}

// skipMembers reads past the members of an object whose '{' was read.
func (p *parser) skipMembers(depth int) error {
	return p.members(func(string) error {
		if err := p.colon(); err != nil {
			return err
		}
		return p.skip(depth + 1)
	})
}
