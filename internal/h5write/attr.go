package h5write

import (
	"fmt"
	"strings"
)

// msgAttribute is the Attribute message type (IV.A.2.m).
const msgAttribute = 0x0C

// StringAttr attaches a scalar fixed-length string attribute to the
// dataset, as h5py stores np.bytes_ values: pyradiosky's SkyH5 keeps the
// unit of /Data/stokes and of the positions in a "unit" attribute, which a
// reader needs before it can use the numbers.
func (d *Dataset) StringAttr(name, value string) error {
	if d.f.closed {
		return ErrClosed
	}
	if name == "" || strings.ContainsRune(name, 0) || len(name) > 1<<15 {
		return fmt.Errorf("h5write: %s: invalid attribute name %q", d.path, name)
	}
	// The whole message must fit the header's 2-byte message size.
	if len(name)+len(value) > 1<<15 {
		return fmt.Errorf("h5write: %s attribute %s: %d bytes is too long for a compact attribute", d.path, name, len(name)+len(value))
	}
	for _, a := range d.attrs {
		if a.name == name {
			return fmt.Errorf("h5write: %s: attribute %s already exists", d.path, name)
		}
	}
	t, err := FixedString(max(len(value), 1))
	if err != nil {
		return fmt.Errorf("h5write: %s attribute %s: %w", d.path, name, err)
	}
	data, err := encodeStrings(nil, t.size, []string{value})
	if err != nil {
		return fmt.Errorf("h5write: %s attribute %s: %w", d.path, name, err)
	}
	d.attrs = append(d.attrs, attribute{name: name, t: t, data: data})
	return nil
}

// attribute is one compact attribute of a dataset: a scalar value.
type attribute struct {
	name string
	t    Datatype
	data []byte
}

// message encodes the version 3 Attribute message: version, flags 0,
// the sizes of the name (with its null), datatype and dataspace, the
// name's character set (ASCII), then the three and the value, unpadded.
func (a attribute) message() message {
	dtype := a.t.encode()
	space := dataspaceMsg(nil, false).body
	var e enc
	e.u8(3)
	e.u8(0)
	e.u16(uint16(len(a.name) + 1))
	e.u16(uint16(len(dtype)))
	e.u16(uint16(len(space)))
	e.u8(0)
	e.raw([]byte(a.name))
	e.u8(0)
	e.raw(dtype)
	e.raw(space)
	e.raw(a.data)
	return message{typ: msgAttribute, body: e.b}
}
