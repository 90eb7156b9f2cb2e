package h5read

import "sort"

// Limits on Walk: objects visited and group nesting (a chain of nested
// groups would otherwise make paths, and their total size, grow with the
// square of the depth).
const (
	maxWalkObjects = 1 << 16
	maxWalkDepth   = 64
)

// walkBudget is how many bytes of metadata Walk may read from a file of
// size bytes. A walk reads each object header, symbol table and local heap
// once, all distinct regions, so a valid file needs less than its size;
// groups forged to share one large symbol table would make it read the
// table once per group.
func walkBudget(size int64) int64 { return 4*size + 1<<20 }

// Walk calls visit for every group and dataset below the root, depth first
// in name order, with its path and whether it is a group. An object linked
// from several groups is visited once, at the first path reached, so
// cyclic links cannot make it loop; groups nested more than maxWalkDepth
// deep are refused, and the walk stops with an error once it has read more
// metadata than walkBudget allows. Objects that are neither groups nor
// datasets (committed datatypes) are skipped. A visit error stops the walk
// and is returned.
func (f *File) Walk(visit func(path string, group bool) error) error {
	root, err := f.object("/", f.root)
	if err != nil {
		return err
	}
	w := &walker{f: f, visit: visit, seen: map[uint64]bool{f.root: true},
		limit: f.nread + walkBudget(f.size)}
	return w.group(root, 0)
}

// walker is the state of one Walk.
type walker struct {
	f     *File
	visit func(string, bool) error
	seen  map[uint64]bool
	limit int64 // f.nread may not pass it
}

// group visits the members of the group o and descends into subgroups.
func (w *walker) group(o *object, depth int) error {
	if depth >= maxWalkDepth {
		return pathErr(o.path, "groups nested deeper than %d", maxWalkDepth)
	}
	links, err := w.f.links(o)
	if err != nil {
		return err
	}
	if w.f.nread > w.limit {
		return pathErr(o.path, "walking the groups read more than %d bytes of metadata from a %d-byte file", walkBudget(w.f.size), w.f.size)
	}
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		addr := links[name]
		if w.seen[addr] {
			continue
		}
		if len(w.seen) >= maxWalkObjects {
			return pathErr(o.path, "more than %d objects", maxWalkObjects)
		}
		w.seen[addr] = true
		child, err := w.f.object(joinPath(o.path, name), addr)
		if err != nil {
			return err
		}
		isGroup, isDataset := kind(child.msgs)
		if !isGroup && !isDataset {
			continue
		}
		if err := w.visit(child.path, isGroup); err != nil {
			return err
		}
		if isGroup {
			if err := w.group(child, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// kind classifies an object by its header messages: a group has a symbol
// table or link info message, a dataset a dataspace, datatype and layout.
func kind(msgs []hmsg) (group, dataset bool) {
	_, st := find(msgs, msgSymbolTable)
	_, li := find(msgs, msgLinkInfo)
	_, sp := find(msgs, msgDataspace)
	_, dt := find(msgs, msgDatatype)
	_, ly := find(msgs, msgLayout)
	return st || li, !(st || li) && sp && dt && ly
}
