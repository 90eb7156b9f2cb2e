package h5read

import (
	"fmt"
	"sort"
)

// Header messages for attributes (IV.A.2.m, IV.A.2.v).
const (
	msgAttribute     = 0x0C
	msgAttributeInfo = 0x15
)

// Attribute returns the attribute name of the object (group or dataset) at
// path, as a Dataset whose Read methods decode its value. A missing
// attribute is an error wrapping ErrNotFound.
func (f *File) Attribute(path, name string) (*Dataset, error) {
	o, err := f.lookup(path)
	if err != nil {
		return nil, err
	}
	return f.attribute(o.path, o.msgs, name)
}

// Attributes returns the sorted names of the attributes of the object at
// path.
func (f *File) Attributes(path string) ([]string, error) {
	o, err := f.lookup(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range o.msgs {
		if m.typ != msgAttribute {
			continue
		}
		name, _, err := splitAttribute(m)
		if err != nil {
			return nil, pathErr(o.path, "attribute message: %w", err)
		}
		names = append(names, name)
	}
	if err := compactAttributes(o.msgs); err != nil {
		return nil, pathErr(o.path, "%w", err)
	}
	sort.Strings(names)
	return names, nil
}

// Attribute returns the dataset's attribute name (see File.Attribute).
func (d *Dataset) Attribute(name string) (*Dataset, error) {
	return d.f.attribute(d.Path, d.msgs, name)
}

// attribute finds and decodes the attribute name among an object's
// messages.
func (f *File) attribute(path string, msgs []hmsg, name string) (*Dataset, error) {
	apath := path + " attribute " + name
	for _, m := range msgs {
		if m.typ != msgAttribute {
			continue
		}
		n, parts, err := splitAttribute(m)
		if err != nil {
			return nil, pathErr(path, "attribute message: %w", err)
		}
		if n != name {
			continue
		}
		a := &Dataset{Path: apath, f: f, class: layoutCompact}
		if err := a.parseAttribute(parts); err != nil {
			return nil, pathErr(apath, "%w", err)
		}
		return a, nil
	}
	if err := compactAttributes(msgs); err != nil {
		return nil, pathErr(path, "%w", err)
	}
	return nil, pathErr(apath, "%w", ErrNotFound)
}

// attrParts are the encoded pieces of an attribute message.
type attrParts struct {
	dtype, space, data []byte
}

// splitAttribute decodes the framing of an Attribute message (IV.A.2.m):
// version, reserved or flags, name size, datatype size, dataspace size
// (2 bytes each), for version 3 the name's character set, then the name
// (with its null), datatype and dataspace — each padded to 8 bytes in
// version 1 — and the data.
func splitAttribute(m hmsg) (string, attrParts, error) {
	var p attrParts
	if m.flags&0x02 != 0 {
		return "", p, fmt.Errorf("shared attribute messages: %w", ErrUnsupported)
	}
	r := &rd{b: m.data}
	version, flags := r.u8(), r.u8()
	nameSize, typeSize, spaceSize := int(r.u16()), int(r.u16()), int(r.u16())
	pad := 1
	switch version {
	case 1:
		pad = 8
	case 2:
	case 3:
		r.skip(1)
	default:
		return "", p, fmt.Errorf("version %d", version)
	}
	if version > 1 && flags&3 != 0 {
		return "", p, fmt.Errorf("shared attribute datatypes or dataspaces: %w", ErrUnsupported)
	}
	padded := func(n int) []byte { b := r.take(n); r.skip((pad - n%pad) % pad); return b }
	name := padded(nameSize)
	p.dtype, p.space = padded(typeSize), padded(spaceSize)
	if r.err != nil {
		return "", p, r.err
	}
	p.data = r.b[r.off:]
	if nameSize == 0 || name[nameSize-1] != 0 {
		return "", p, fmt.Errorf("attribute name not null-terminated")
	}
	return string(name[:nameSize-1]), p, nil
}

// parseAttribute decodes an attribute's datatype, dataspace and value,
// which is stored in the message like a compact dataset's data.
func (d *Dataset) parseAttribute(p attrParts) error {
	var err error
	if d.Type, err = parseDatatype(p.dtype); err != nil {
		return fmt.Errorf("datatype: %w", err)
	}
	if err = d.parseSpace(p.space); err != nil {
		return fmt.Errorf("dataspace: %w", err)
	}
	if d.n > int64(len(p.data))/int64(d.Type.Size) {
		return fmt.Errorf("%d elements of %d bytes in %d bytes of data", d.n, d.Type.Size, len(p.data))
	}
	d.compact = p.data
	return nil
}

// compactAttributes rejects objects whose attributes live in a fractal
// heap (dense storage), which this reader does not implement. Attribute
// Info message (IV.A.2.v): version, flags, [max creation index (2)],
// fractal heap address, ...
func compactAttributes(msgs []hmsg) error {
	m, ok := find(msgs, msgAttributeInfo)
	if !ok {
		return nil
	}
	r := &rd{b: m.data}
	r.skip(1)
	if r.u8()&1 != 0 {
		r.skip(2)
	}
	heap := r.u64()
	if r.err != nil {
		return fmt.Errorf("attribute info message: %w", r.err)
	}
	if heap != undef {
		return fmt.Errorf("dense attribute storage (an object of many attributes written with h5py's libver='latest'): %w", ErrUnsupported)
	}
	return nil
}
