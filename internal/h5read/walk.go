package h5read

import "sort"

// maxWalkObjects bounds the objects Walk visits.
const maxWalkObjects = 1 << 16

// Walk calls visit for every group and dataset below the root, depth first
// in name order, with its path and whether it is a group. An object linked
// from several groups is visited once, at the first path reached, so
// cyclic links cannot make it loop. Objects that are neither groups nor
// datasets (committed datatypes) are skipped. A visit error stops the walk
// and is returned.
func (f *File) Walk(visit func(path string, group bool) error) error {
	root, err := f.object("/", f.root)
	if err != nil {
		return err
	}
	w := &walker{f: f, visit: visit, seen: map[uint64]bool{f.root: true}}
	return w.group(root)
}

// walker is the state of one Walk.
type walker struct {
	f     *File
	visit func(string, bool) error
	seen  map[uint64]bool
}

// group visits the members of the group o and descends into subgroups.
func (w *walker) group(o *object) error {
	links, err := w.f.links(o)
	if err != nil {
		return err
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
			if err := w.group(child); err != nil {
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
