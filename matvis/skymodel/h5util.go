package skymodel

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/scigolib/hdf5"
)

// h5file indexes the datasets of an open HDF5 file by path, and reports
// problems as ParseErrors naming the file and dataset.
type h5file struct {
	name   string
	size   int64
	sets   map[string]*hdf5.Dataset
	groups map[string]bool
}

func indexH5(f *hdf5.File, name string, size int64) *h5file {
	h := &h5file{name: name, size: size, sets: map[string]*hdf5.Dataset{}, groups: map[string]bool{}}
	f.Walk(func(path string, o hdf5.Object) {
		switch v := o.(type) {
		case *hdf5.Dataset:
			h.sets[strings.TrimSuffix(path, "/")] = v
		case *hdf5.Group:
			h.groups[strings.TrimSuffix(path, "/")] = true
		}
	})
	return h
}

func (h *h5file) errf(field, value string, format string, args ...any) error {
	return &ParseError{File: h.name, Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

func (h *h5file) has(path string) bool { _, ok := h.sets[path]; return ok }

var (
	dimsRe     = regexp.MustCompile(`(\d+)D array \[([0-9 x]+)\]`)
	typeSizeRe = regexp.MustCompile(`\(size=(\d+) bytes\)`)
)

// info parses a dataset's description: its dimensions (nil for a scalar)
// and the size of one element in bytes.
func (h *h5file) info(path string) (dims []uint64, elem uint64, err error) {
	d, ok := h.sets[path]
	if !ok {
		return nil, 0, h.errf(path, "", "dataset missing")
	}
	info, err := d.Info()
	if err != nil {
		return nil, 0, h.errf(path, "", "%w", err)
	}
	m := typeSizeRe.FindStringSubmatch(info)
	if m == nil {
		return nil, 0, h.errf(path, info, "cannot read the element size")
	}
	if elem, err = strconv.ParseUint(m[1], 10, 64); err != nil {
		return nil, 0, h.errf(path, info, "bad element size: %w", err)
	}
	if strings.Contains(info, "scalar") {
		return nil, elem, nil
	}
	md := dimsRe.FindStringSubmatch(info)
	if md == nil {
		return nil, 0, h.errf(path, info, "cannot read the dataset's shape")
	}
	for _, f := range strings.FieldsFunc(md[2], func(r rune) bool { return r == ' ' || r == 'x' }) {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, 0, h.errf(path, info, "bad dimension: %w", err)
		}
		dims = append(dims, v)
	}
	return dims, elem, nil
}

// shape returns a dataset's dimensions (nil for a scalar).
func (h *h5file) shape(path string) ([]uint64, error) {
	dims, _, err := h.info(path)
	return dims, err
}

// checkedShape returns a dataset's dimensions after refusing one whose
// declared bytes cannot fit in the file (allowing for deflate's ~1032:1
// best-case ratio), before the library allocates them.
func (h *h5file) checkedShape(path string) ([]uint64, error) {
	dims, elem, err := h.info(path)
	if err != nil {
		return nil, err
	}
	n := max(elem, 1)
	for _, d := range dims {
		if d != 0 && n > math.MaxInt64/d {
			return nil, h.errf(path, fmt.Sprint(dims), "dataset too large")
		}
		n *= d
	}
	if n > uint64(h.size)*1100+4096 {
		return nil, h.errf(path, fmt.Sprint(dims), "declares %d bytes, more than a %d-byte file can hold", n, h.size)
	}
	return dims, nil
}

// floats reads a numeric dataset of exactly want elements (want < 0: any).
func (h *h5file) floats(path string, want int) ([]float64, error) {
	dims, err := h.checkedShape(path)
	if err != nil {
		return nil, err
	}
	v, err := h.sets[path].Read()
	if err != nil {
		return nil, h.errf(path, "", "not a numeric dataset: %w", err)
	}
	if want >= 0 && len(v) != want {
		return nil, h.errf(path, fmt.Sprint(dims), "has %d values, want %d", len(v), want)
	}
	return v, nil
}

// scalarInt reads an integer scalar (or one-element) dataset.
func (h *h5file) scalarInt(path string) (int, error) {
	v, err := h.floats(path, 1)
	if err != nil {
		return 0, err
	}
	x := v[0]
	if x != math.Trunc(x) || x < 0 || x > 1<<40 {
		return 0, h.errf(path, fmt.Sprint(x), "not a non-negative integer")
	}
	return int(x), nil
}

// strs reads a string dataset.
func (h *h5file) strs(path string) ([]string, error) {
	d, ok := h.sets[path]
	if !ok {
		return nil, h.errf(path, "", "dataset missing")
	}
	if _, err := h.checkedShape(path); err != nil {
		return nil, err
	}
	s, err := d.ReadStrings()
	if err != nil {
		return nil, h.errf(path, "", "not a string dataset: %w", err)
	}
	return s, nil
}

// str reads a scalar string dataset.
func (h *h5file) str(path string) (string, error) {
	s, err := h.strs(path)
	if err != nil {
		return "", err
	}
	if len(s) != 1 {
		return "", h.errf(path, "", "want one string, found %d", len(s))
	}
	return strings.TrimRight(s[0], "\x00 "), nil
}

// attrString reads a string attribute; ok is false when it is absent.
func (h *h5file) attrString(path, attr string) (string, bool, error) {
	d, ok := h.sets[path]
	if !ok {
		return "", false, h.errf(path, "", "dataset missing")
	}
	names, err := d.ListAttributes()
	if err != nil {
		return "", false, h.errf(path, "", "attributes: %w", err)
	}
	found := false
	for _, n := range names {
		found = found || n == attr
	}
	if !found {
		return "", false, nil
	}
	v, err := d.ReadAttribute(attr)
	if err != nil {
		return "", true, h.errf(path+" attribute "+attr, "", "%w", err)
	}
	switch s := v.(type) {
	case string:
		return s, true, nil
	case []string:
		if len(s) == 1 {
			return s[0], true, nil
		}
	case []byte:
		return string(s), true, nil
	}
	return "", true, h.errf(path+" attribute "+attr, fmt.Sprint(v), "not a string")
}

// scaledFloats reads a dataset and applies its "unit" attribute, which
// must be one of the given units (the first is the default when absent).
func (h *h5file) scaledFloats(path string, want int, units map[string]float64, def string) ([]float64, error) {
	v, err := h.floats(path, want)
	if err != nil {
		return nil, err
	}
	u, ok, err := h.attrString(path, "unit")
	if err != nil {
		return nil, err
	}
	if !ok {
		u = def
	}
	scale, known := units[strings.TrimSpace(u)]
	if !known {
		return nil, h.errf(path+" attribute unit", u, "unsupported unit")
	}
	if scale != 1 {
		for i := range v {
			v[i] *= scale
		}
	}
	return v, nil
}

var (
	freqUnits  = map[string]float64{"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}
	angleUnits = map[string]float64{"rad": 1, "deg": math.Pi / 180}
)

// errNotSkyH5 reports a file without pyradiosky's /Header group.
var errNotSkyH5 = errors.New("not a SkyH5 file: no /Header group")
