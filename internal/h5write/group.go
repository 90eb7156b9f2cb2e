package h5write

import (
	"fmt"
	"strings"
)

// Group is an HDF5 group being written.
type Group struct {
	f     *File
	path  string
	links []link
	names map[string]bool
}

// link is one named member of a group: a group or a dataset.
type link struct {
	name  string
	group *Group
	ds    *Dataset
}

func newGroup(f *File, path string) *Group {
	return &Group{f: f, path: path, names: map[string]bool{}}
}

// Path returns the group's absolute path.
func (g *Group) Path() string { return g.path }

func (g *Group) child(name string) string {
	if g.path == "/" {
		return "/" + name
	}
	return g.path + "/" + name
}

// claim checks that name can be added to g.
func (g *Group) claim(name string) error {
	if g.f.closed {
		return ErrClosed
	}
	switch {
	case name == "" || name == "." || strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("h5write: invalid link name %q in %s", name, g.path)
	case len(name) > 65535:
		return fmt.Errorf("h5write: link name of %d bytes in %s is too long", len(name), g.path)
	case g.names[name]:
		return fmt.Errorf("h5write: %s already exists", g.child(name))
	}
	g.names[name] = true
	return nil
}

// Group creates the subgroup name.
func (g *Group) Group(name string) (*Group, error) {
	if err := g.claim(name); err != nil {
		return nil, err
	}
	sub := newGroup(g.f, g.child(name))
	g.links = append(g.links, link{name: name, group: sub})
	return sub, nil
}

// Dataset creates a contiguous dataset of type t and the given shape (no
// dimensions: a scalar) and allocates its storage. Fill it with WriteAt.
func (g *Group) Dataset(name string, t Datatype, shape ...int) (*Dataset, error) {
	if !t.valid() {
		return nil, fmt.Errorf("h5write: %s: invalid datatype", g.child(name))
	}
	n, err := elements(shape)
	if err != nil {
		return nil, fmt.Errorf("h5write: %s: %w", g.child(name), err)
	}
	if n > (1<<62)/int64(t.size) {
		return nil, fmt.Errorf("h5write: %s: %d elements of %d bytes is too large", g.child(name), n, t.size)
	}
	if err := g.claim(name); err != nil {
		return nil, err
	}
	d := &Dataset{f: g.f, path: g.child(name), t: t, shape: append([]int(nil), shape...), n: n, addr: undef}
	if n > 0 {
		if d.addr, err = g.f.allocate(n * int64(t.size)); err != nil {
			return nil, fmt.Errorf("h5write: %s: %w", d.path, err)
		}
	}
	g.links = append(g.links, link{name: name, ds: d})
	return d, nil
}

// Empty creates a dataset with a null dataspace (no elements), what h5py
// writes for h5py.Empty and pyuvdata for None values.
func (g *Group) Empty(name string, t Datatype) error {
	if !t.valid() {
		return fmt.Errorf("h5write: %s: invalid datatype", g.child(name))
	}
	if err := g.claim(name); err != nil {
		return err
	}
	d := &Dataset{f: g.f, path: g.child(name), t: t, null: true, addr: undef}
	g.links = append(g.links, link{name: name, ds: d})
	return nil
}

// Array creates a dataset holding data (a slice of a supported Go type;
// see Dataset.WriteAt) with the given shape, or 1-d if shape is omitted.
func (g *Group) Array(name string, data any, shape ...int) error {
	t, n, err := typeOf(data)
	if err != nil {
		return fmt.Errorf("h5write: %s: %w", g.child(name), err)
	}
	if len(shape) == 0 {
		shape = []int{n}
	}
	return g.create(name, t, data, shape)
}

// Scalar creates a scalar dataset holding v: int32, int64, uint64, float32,
// float64, bool, complex64 or complex128.
func (g *Group) Scalar(name string, v any) error {
	var data any
	switch x := v.(type) {
	case int32:
		data = []int32{x}
	case int64:
		data = []int64{x}
	case uint64:
		data = []uint64{x}
	case float32:
		data = []float32{x}
	case float64:
		data = []float64{x}
	case bool:
		data = []bool{x}
	case complex64:
		data = []complex64{x}
	case complex128:
		data = []complex128{x}
	default:
		return fmt.Errorf("h5write: %s: unsupported scalar type %T", g.child(name), v)
	}
	t, _, err := typeOf(data)
	if err != nil {
		return err
	}
	return g.create(name, t, data, nil)
}

// String creates a scalar fixed-length string dataset holding s, null-padded,
// of length len(s) (at least 1), as h5py writes np.bytes_(s).
func (g *Group) String(name, s string) error {
	t, err := FixedString(max(len(s), 1))
	if err != nil {
		return fmt.Errorf("h5write: %s: %w", g.child(name), err)
	}
	return g.create(name, t, []string{s}, nil)
}

// Strings creates a 1-d fixed-length string dataset holding s, each element
// null-padded to the longest string's length, as h5py writes a numpy "S"
// array.
func (g *Group) Strings(name string, s []string) error {
	width := 1
	for _, x := range s {
		width = max(width, len(x))
	}
	t, err := FixedString(width)
	if err != nil {
		return fmt.Errorf("h5write: %s: %w", g.child(name), err)
	}
	return g.create(name, t, s, []int{len(s)})
}

func (g *Group) create(name string, t Datatype, data any, shape []int) error {
	d, err := g.Dataset(name, t, shape...)
	if err != nil {
		return err
	}
	if int64(lenOf(data)) != d.n {
		return fmt.Errorf("h5write: %s: %d values for shape %v", d.path, lenOf(data), shape)
	}
	return d.WriteAt(0, data)
}

// elements returns the number of elements of shape, checking for negative
// dimensions and overflow.
func elements(shape []int) (int64, error) {
	if len(shape) > 32 {
		return 0, fmt.Errorf("rank %d exceeds HDF5's 32", len(shape))
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d > 0 && n > (1<<62)/int64(d) {
			return 0, fmt.Errorf("shape %v too large", shape)
		}
		n *= int64(d)
	}
	return n, nil
}
