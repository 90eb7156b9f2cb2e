package h5read

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Limits on group structures.
const (
	maxBtreeDepth = 32
	maxBtreeNodes = 1 << 16
)

// object is a parsed object header.
type object struct {
	path string
	addr uint64
	msgs []hmsg
}

// lookup follows path ("/", "/Header/Nblts") from the root group.
func (f *File) lookup(path string) (*object, error) {
	o, err := f.object("/", f.root)
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		if name == "" {
			continue
		}
		links, err := f.links(o)
		if err != nil {
			return nil, err
		}
		addr, ok := links[name]
		if desc, other := f.others[o.addr][name]; !ok && other {
			return nil, pathErr(joinPath(o.path, name), "%s: %w", desc, ErrLinkNotFollowed)
		}
		if !ok {
			return nil, pathErr(joinPath(o.path, name), "%w", ErrNotFound)
		}
		if o, err = f.object(joinPath(o.path, name), addr); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func (f *File) object(path string, addr uint64) (*object, error) {
	msgs, err := f.messages(addr)
	if err != nil {
		return nil, pathErr(path, "%w", err)
	}
	return &object{path: path, addr: addr, msgs: msgs}, nil
}

// ErrUnsupported reports a valid HDF5 structure this reader does not
// implement (the package comment lists them), as against a damaged file.
var ErrUnsupported = errors.New("not supported by this reader")

// ErrNotFound reports a missing group member.
var ErrNotFound = fmt.Errorf("not found")

// ErrLinkNotFollowed reports a group member that is a soft or external
// link: only hard links are followed.
var ErrLinkNotFollowed = fmt.Errorf("soft and external links are not followed: store the object itself in the file (h5py: f[name] = data, not h5py.SoftLink or h5py.ExternalLink)")

// Link describes the soft or external link at path ("an external link to
// sky.h5:/Data/stokes"); ok is false when path is no such link.
func (f *File) Link(path string) (desc string, ok bool) {
	dir, name := "/", strings.TrimPrefix(path, "/")
	if i := strings.LastIndex(path, "/"); i > 0 {
		dir, name = path[:i], path[i+1:]
	}
	o, err := f.lookup(dir)
	if err != nil {
		return "", false
	}
	if _, err := f.links(o); err != nil {
		return "", false
	}
	desc, ok = f.others[o.addr][name]
	return desc, ok
}

// Members returns the sorted names of the members of the group at path.
func (f *File) Members(path string) ([]string, error) {
	o, err := f.lookup(path)
	if err != nil {
		return nil, err
	}
	links, err := f.links(o)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// links returns a group's members and their object header addresses, from
// a symbol table (old-style group) or link messages (new-style, compact).
func (f *File) links(o *object) (map[string]uint64, error) {
	if l, ok := f.groups[o.addr]; ok {
		return l, nil
	}
	l, err := f.readLinks(o)
	if err == nil {
		f.groups[o.addr] = l
	}
	return l, err
}

func (f *File) readLinks(o *object) (map[string]uint64, error) {
	if m, ok := find(o.msgs, msgSymbolTable); ok {
		out, others, err := f.symbolTable(m.data)
		if err != nil {
			return nil, pathErr(o.path, "symbol table: %w", err)
		}
		f.others[o.addr] = others
		return out, nil
	}
	info, hasInfo := find(o.msgs, msgLinkInfo)
	if !hasInfo {
		return nil, pathErr(o.path, "not a group")
	}
	if err := compactOnly(info.data); err != nil {
		return nil, pathErr(o.path, "%w", err)
	}
	out, others := map[string]uint64{}, map[string]string{}
	for _, m := range o.msgs {
		if m.typ != msgLink {
			continue
		}
		name, addr, hard, err := parseLink(m.data)
		if err != nil {
			return nil, pathErr(o.path, "link message: %w", err)
		}
		if hard {
			out[name] = addr
		} else {
			others[name] = describeLink(m.data)
		}
	}
	f.others[o.addr] = others
	return out, nil
}

// compactOnly rejects groups whose links live in a fractal heap (dense
// storage), which this reader does not implement. Link Info message
// (IV.A.2.c): version, flags, [max creation index], fractal heap address.
func compactOnly(b []byte) error {
	r := &rd{b: b}
	r.skip(1)
	if r.u8()&1 != 0 {
		r.skip(8)
	}
	heap := r.u64()
	if r.err != nil {
		return fmt.Errorf("link info message: %w", r.err)
	}
	if heap != undef {
		return fmt.Errorf("dense link storage (a group of many members, or one changed, written with h5py's libver='latest'): %w", ErrUnsupported)
	}
	return nil
}

// describeLink says what a Link message that is not a hard link points
// to: "a soft link to /Data/x", "an external link to f.h5:/Data/x".
func describeLink(b []byte) string {
	r := &rd{b: b}
	r.skip(1)
	flags := r.u8()
	typ := byte(0)
	if flags&0x08 != 0 {
		typ = r.u8()
	}
	if flags&0x04 != 0 {
		r.skip(8)
	}
	if flags&0x10 != 0 {
		r.skip(1)
	}
	r.skip(int(r.uN(1 << (flags & 3))))
	n := int(r.uN(2))
	if r.err != nil || n > r.left() {
		return fmt.Sprintf("a link of type %d", typ)
	}
	v := r.take(n)
	switch typ {
	case 1:
		return fmt.Sprintf("a soft link to %q", v)
	case 64:
		// a version-and-flags byte, then the file and the object path,
		// each NUL-terminated
		if parts := bytes.SplitN(v[min(1, len(v)):], []byte{0}, 3); len(parts) >= 2 {
			return fmt.Sprintf("an external link to %q in %q", parts[1], parts[0])
		}
		return "an external link"
	}
	return fmt.Sprintf("a user-defined link of type %d", typ)
}

// parseLink decodes a Link message (IV.A.2.g) and reports whether it is a
// hard link.
func parseLink(b []byte) (name string, addr uint64, hard bool, err error) {
	r := &rd{b: b}
	if v := r.u8(); v != 1 {
		return "", 0, false, fmt.Errorf("version %d", v)
	}
	flags := r.u8()
	typ := byte(0)
	if flags&0x08 != 0 {
		typ = r.u8()
	}
	if flags&0x04 != 0 {
		r.skip(8)
	}
	if flags&0x10 != 0 {
		r.skip(1)
	}
	n := r.uN(1 << (flags & 3))
	if n > uint64(r.left()) {
		return "", 0, false, errShort
	}
	name = string(r.take(int(n)))
	if typ == 0 {
		addr = r.u64()
	}
	return name, addr, typ == 0, r.err
}

// symbolTable reads an old-style group: Symbol Table message (IV.A.2.r: v1
// B-tree address, local heap address), the B-tree's symbol table nodes
// (III.B "SNOD") and link names from the local heap (III.D "HEAP").
// Soft links it returns apart, described.
func (f *File) symbolTable(b []byte) (map[string]uint64, map[string]string, error) {
	r := &rd{b: b}
	tree, heapAddr := r.u64(), r.u64()
	if r.err != nil {
		return nil, nil, r.err
	}
	heap, err := f.localHeap(heapAddr)
	if err != nil {
		return nil, nil, err
	}
	out, others := map[string]uint64{}, map[string]string{}
	err = f.walkBtree(tree, 0, 8, func(child uint64, _ []byte) error {
		return f.symbolNode(child, heap, out, others)
	})
	return out, others, err
}

// localHeap returns the data segment of the local heap at addr: "HEAP",
// version 0, 3 reserved, data segment size, free list offset, address.
func (f *File) localHeap(addr uint64) ([]byte, error) {
	b, err := f.read(addr, 32)
	if err != nil {
		return nil, fmt.Errorf("local heap: %w", err)
	}
	if string(b[:4]) != "HEAP" {
		return nil, fmt.Errorf("no local heap at %d", addr)
	}
	if b[4] != 0 {
		return nil, fmt.Errorf("local heap at %d: version %d", addr, b[4])
	}
	r := &rd{b: b, off: 8}
	size := r.u64()
	r.skip(8)
	data := r.u64()
	if size > uint64(f.size) {
		return nil, fmt.Errorf("local heap at %d declares %d bytes, more than the %d-byte file holds", addr, size, f.size)
	}
	return f.read(data, int64(size))
}

// symbolNode adds the entries of the symbol table node at addr: "SNOD",
// version 1, reserved, count (2), then 40-byte entries (link name offset,
// object header address, cache type, reserved, scratch pad). An entry of
// cache type 2 is a soft link (its value at the scratch pad's heap
// offset): it goes to others, described.
func (f *File) symbolNode(addr uint64, heap []byte, out map[string]uint64, others map[string]string) error {
	head, err := f.read(addr, 8)
	if err != nil {
		return fmt.Errorf("symbol node: %w", err)
	}
	if string(head[:4]) != "SNOD" {
		return fmt.Errorf("no symbol table node at %d", addr)
	}
	n := int(head[6]) | int(head[7])<<8
	b, err := f.read(addr+8, int64(n)*40)
	if err != nil {
		return fmt.Errorf("symbol node: %w", err)
	}
	r := &rd{b: b}
	for range n {
		off, obj := r.u64(), r.u64()
		cache := r.u32()
		r.skip(4)
		valueOff := r.u32()
		r.skip(12)
		if off >= uint64(len(heap)) {
			return fmt.Errorf("link name offset %d outside the local heap", off)
		}
		hr := &rd{b: heap, off: int(off)}
		name := hr.cstring(1)
		if hr.err != nil {
			return fmt.Errorf("link name at heap offset %d: %w", off, hr.err)
		}
		if cache == 2 {
			others[name] = "a soft link"
			if valueOff < uint32(len(heap)) {
				vr := &rd{b: heap, off: int(valueOff)}
				if v := vr.cstring(1); vr.err == nil {
					others[name] = fmt.Sprintf("a soft link to %q", v)
				}
			}
			continue
		}
		out[name] = obj
	}
	return r.err
}

// walkBtree visits the leaf children of the version 1 B-tree at addr
// (III.A.1): "TREE", node type, level, entries used (2), left and right
// siblings, then keys and child addresses alternating (entries+1 keys of
// keySize bytes). visit gets each leaf child with the key before it.
func (f *File) walkBtree(addr uint64, nodeType byte, keySize int, visit func(child uint64, key []byte) error) error {
	w := &walk{f: f, nodeType: nodeType, keySize: keySize, seen: map[uint64]bool{},
		budget: 4*f.size + 1<<20, visit: visit}
	return w.node(addr, 0)
}

// walk is the state of one B-tree traversal: nodes seen (a tree shares
// none) and a budget of bytes read, so hostile trees cannot loop or make
// the reader re-read the file without end.
type walk struct {
	f        *File
	nodeType byte
	keySize  int
	seen     map[uint64]bool
	budget   int64
	visit    func(uint64, []byte) error
}

func (w *walk) node(addr uint64, depth int) error {
	f, nodeType, keySize := w.f, w.nodeType, w.keySize
	if depth > maxBtreeDepth {
		return fmt.Errorf("B-tree deeper than %d", maxBtreeDepth)
	}
	if w.seen[addr] || len(w.seen) >= maxBtreeNodes {
		return fmt.Errorf("B-tree node at %d revisited or too many nodes", addr)
	}
	w.seen[addr] = true
	head, err := f.read(addr, 24)
	if err != nil {
		return fmt.Errorf("B-tree node: %w", err)
	}
	if string(head[:4]) != "TREE" || head[4] != nodeType {
		return fmt.Errorf("no type-%d B-tree node at %d", nodeType, addr)
	}
	level := int(head[5])
	n := int(head[6]) | int(head[7])<<8
	size := int64(n)*int64(keySize+8) + int64(keySize)
	if w.budget -= size; w.budget < 0 {
		return fmt.Errorf("B-tree larger than the file allows")
	}
	b, err := f.read(addr+24, size)
	if err != nil {
		return fmt.Errorf("B-tree node: %w", err)
	}
	r := &rd{b: b}
	for range n {
		key := r.take(keySize)
		child := r.u64()
		if r.err != nil {
			return r.err
		}
		if level > 0 {
			err = w.node(child, depth+1)
		} else {
			err = w.visit(child, key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
