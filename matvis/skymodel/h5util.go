package skymodel

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gomatvis/gomatvis/internal/h5read"
)

// h5file indexes the groups and datasets of an open HDF5 file by path, and
// reports problems as ParseErrors naming the file and dataset.
type h5file struct {
	name   string
	f      *h5read.File
	sets   map[string]bool
	groups map[string]bool
}

// indexH5 walks the file's objects (each once) and records which paths are
// groups and which datasets.
func indexH5(f *h5read.File, name string) (*h5file, error) {
	h := &h5file{name: name, f: f, sets: map[string]bool{}, groups: map[string]bool{"/": true}}
	err := f.Walk(func(path string, group bool) error {
		if group {
			h.groups[path] = true
		} else {
			h.sets[path] = true
		}
		return nil
	})
	switch {
	case errors.Is(err, h5read.ErrUnsupported):
		// A valid file, in a form this reader lacks: say so, not "malformed".
		return nil, &ParseError{File: name, Err: fmt.Errorf("an HDF5 structure gomatvis does not read: %w; write the file with h5py's default settings (libver 'earliest', as pyradiosky does)", err)}
	case err != nil:
		return nil, &ParseError{File: name, Err: fmt.Errorf("malformed HDF5 file: %w", err)}
	}
	return h, nil
}

func (h *h5file) errf(field, value string, format string, args ...any) error {
	return &ParseError{File: h.name, Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

// fail wraps an h5read error about field as a ParseError, without naming
// the field twice.
func (h *h5file) fail(field, value, what string, err error) error {
	var pe *h5read.PathError
	if errors.As(err, &pe) && pe.Path == field {
		err = pe.Err
	}
	if what != "" {
		return h.errf(field, value, "%s: %w", what, err)
	}
	return h.errf(field, value, "%w", err)
}

// has reports whether path is a dataset, or a soft or external link in
// its place (which dataset then refuses: an optional dataset given as a
// link must not read as absent).
func (h *h5file) has(path string) bool {
	if h.sets[path] {
		return true
	}
	_, link := h.f.Link(path)
	return link
}

// dataset opens the dataset at path.
func (h *h5file) dataset(path string) (*h5read.Dataset, error) {
	if !h.sets[path] {
		if desc, ok := h.f.Link(path); ok {
			return nil, h.errf(path, "", "%s: %w", desc, h5read.ErrLinkNotFollowed)
		}
		return nil, h.errf(path, "", "dataset missing")
	}
	d, err := h.f.Dataset(path)
	if err != nil {
		return nil, h.fail(path, "", "", err)
	}
	return d, nil
}

// shape returns a dataset's dimensions (nil for a scalar).
func (h *h5file) shape(path string) ([]int, error) {
	d, err := h.dataset(path)
	if err != nil {
		return nil, err
	}
	return d.Shape, nil
}

// numbers reads an integer or floating-point dataset or attribute as
// float64.
func numbers(d *h5read.Dataset) ([]float64, error) {
	switch d.Type.Class {
	case h5read.ClassFloat:
		return d.Float64s()
	case h5read.ClassFixed:
		ints, err := d.Int64s()
		if err != nil {
			return nil, err
		}
		v := make([]float64, len(ints))
		for i, x := range ints {
			v[i] = float64(x)
		}
		return v, nil
	}
	return nil, fmt.Errorf("%s is not a number type", d.Type)
}

// floats reads a numeric dataset of exactly want elements (want < 0: any).
func (h *h5file) floats(path string, want int) ([]float64, error) {
	d, err := h.dataset(path)
	if err != nil {
		return nil, err
	}
	v, err := numbers(d)
	if err != nil {
		return nil, h.fail(path, "", "not a numeric dataset", err)
	}
	if want >= 0 && len(v) != want {
		return nil, h.errf(path, fmt.Sprint(d.Shape), "has %d values, want %d", len(v), want)
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

// strs reads a string dataset (fixed or variable length).
func (h *h5file) strs(path string) ([]string, error) {
	d, err := h.dataset(path)
	if err != nil {
		return nil, err
	}
	s, err := d.Strings()
	if err != nil {
		return nil, h.fail(path, "", "not a string dataset", err)
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
	field := path + " attribute " + attr
	if !h.sets[path] {
		return "", false, h.errf(path, "", "dataset missing")
	}
	a, err := h.f.Attribute(path, attr)
	if errors.Is(err, h5read.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", true, h.fail(field, "", "", err)
	}
	s, err := a.Strings()
	if err != nil {
		return "", true, h.fail(field, a.Type.String(), "not a string", err)
	}
	if len(s) != 1 {
		return "", true, h.errf(field, "", "want one string, found %d", len(s))
	}
	return s[0], true, nil
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
