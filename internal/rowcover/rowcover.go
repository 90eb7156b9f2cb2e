// Package rowcover records which parts of a file's rows a streaming
// writer has filled — whole rows, or channel ranges of a range of rows —
// so that its Close can refuse a file with data never written (the UVH5
// and UVFITS writers, whose rows are baseline-times of every channel).
package rowcover

import (
	"fmt"
	"sort"
)

// Rows is the cover of nrows rows of nchan channels each.
type Rows struct {
	nrows, nchan int
	whole        []span // rows written whole, sorted, merged
	// pieces holds the channels written of a rows range not yet whole,
	// by the range: the channel pieces of one range are joined, and the
	// range counts as whole once they cover every channel.
	pieces map[span][]span
}

// span is a half-open range.
type span struct{ lo, hi int }

// New is the empty cover of nrows rows of nchan channels.
func New(nrows, nchan int) *Rows {
	return &Rows{nrows: nrows, nchan: nchan, pieces: map[span][]span{}}
}

// Mark records channels [f0, f1) of rows [lo, hi) as written.
func (r *Rows) Mark(lo, hi, f0, f1 int) {
	if lo >= hi || f0 >= f1 {
		return
	}
	if f0 <= 0 && f1 >= r.nchan {
		r.whole = merge(r.whole, span{lo, hi})
		return
	}
	k := span{lo, hi}
	p := merge(r.pieces[k], span{f0, f1})
	if len(p) == 1 && p[0].lo <= 0 && p[0].hi >= r.nchan {
		delete(r.pieces, k)
		r.whole = merge(r.whole, k)
		return
	}
	r.pieces[k] = p
}

// merge adds s to the sorted, merged list l.
func merge(l []span, s span) []span {
	l = append(l, s)
	sort.Slice(l, func(a, b int) bool { return l[a].lo < l[b].lo })
	out := l[:1]
	for _, x := range l[1:] {
		last := &out[len(out)-1]
		if x.lo <= last.hi {
			last.hi = max(last.hi, x.hi)
		} else {
			out = append(out, x)
		}
	}
	return out
}

// Missing describes the first rows not written whole ("[lo, hi)"), or
// is "" when every row is.
func (r *Rows) Missing() string {
	next := 0
	for _, s := range r.whole {
		if s.lo > next {
			return fmt.Sprintf("[%d, %d)", next, s.lo)
		}
		next = s.hi
	}
	if next < r.nrows {
		return fmt.Sprintf("[%d, %d)", next, r.nrows)
	}
	return ""
}
