package simspec

import (
	"bytes"
	"sync"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
)

// A large number array (ra_rad, a flux table of millions of sources) is
// read on several cores: its bytes are cut into one piece per core at
// commas between values (or between rows), each piece's values are
// counted by its commas, and each core converts its piece's numbers into
// its own part of the one result slice. This is the fast path of plain
// arrays only: numbers, and for a table rows of numbers all of one
// length. Anything else (null, an empty or short row, a string, a number
// out of range, malformed JSON) makes it give up, and the array is read
// again by the sequential reader, whose results and errors are the
// reference (TestParallelTwin holds the two to the same results).

// splitArray is the array's text between its brackets, rows or numbers.
type splitArray struct {
	text   []byte
	nested bool
	pow10  fastfloat.Powers
	// guard runs each core's reads of text (a mapped file's pages fault
	// on the goroutine that reads them); nil reads unguarded.
	guard guardFunc
}

// pieces cuts the array's text into at most n pieces of about equal size,
// each ending just before a comma between two values (nested: between two
// rows), and returns where each starts, with len(text) last.
func (a splitArray) pieces(n int) []int {
	starts := []int{0}
	for k := 1; k < n; k++ {
		i := max(k*len(a.text)/n, starts[len(starts)-1])
		j := a.nextBoundary(i)
		if j < 0 {
			break
		}
		if j > starts[len(starts)-1] {
			starts = append(starts, j)
		}
	}
	return append(starts, len(a.text))
}

// nextBoundary returns the position of the first comma at or after i that
// separates two values (nested: that follows a row's ']'), or -1.
func (a splitArray) nextBoundary(i int) int {
	for {
		c := bytes.IndexByte(a.text[i:], ',')
		if c < 0 {
			return -1
		}
		c += i
		if !a.nested || bytes.HasSuffix(bytes.TrimRight(a.text[:c], " \t\r\n"), []byte("]")) {
			return c
		}
		i = c + 1
	}
}

// readParallel reads the numbers of the array on up to workers cores; ok
// is false when the array is not plain (see above). rowLen is the length
// of every row of a nested array.
func (a splitArray) readParallel(workers int) (values []float64, rowLen int, ok bool) {
	starts := a.pieces(workers)
	n := len(starts) - 1
	offs := make([]int, n+1)
	for k := range n {
		piece := a.text[starts[k]:starts[k+1]]
		if k > 0 {
			piece = piece[1:] // the comma the piece starts at
		}
		offs[k+1] = offs[k] + bytes.Count(piece, []byte{','}) + 1
	}
	if offs[n] > len(a.text)/2+1 {
		return nil, 0, false // not numbers: a value and its comma take 2 bytes at least
	}
	values = make([]float64, offs[n])
	lens := make([]int, n)
	good := make([]bool, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			piece := a.text[starts[k]:starts[k+1]]
			if k > 0 {
				piece = piece[1:]
			}
			r := plainReader{text: piece, out: values[offs[k]:offs[k+1]], nested: a.nested, pow10: a.pow10}
			// A read that faulted (the file shrank) leaves good[k] false:
			// the sequential reader reads the array again on the caller's
			// goroutine, inside the caller's guard, which reports it.
			_ = a.guarded(func() error {
				good[k] = r.read()
				lens[k] = r.rowLen
				return nil
			})
		})
	}
	wg.Wait()
	for k := range n {
		if !good[k] || lens[k] != lens[0] {
			return nil, 0, false
		}
	}
	return values, lens[0], true
}

// guarded runs read inside the array's guard, if it has one.
func (a splitArray) guarded(read func() error) error {
	if a.guard == nil {
		return read()
	}
	return a.guard(read)
}

// plainReader reads one piece of a plain array into out, which has room
// for exactly its values.
type plainReader struct {
	text   []byte
	pos    int
	out    []float64
	n      int
	nested bool
	// rowLen is the length of the piece's rows, all alike (nested).
	rowLen int
	pow10  fastfloat.Powers
}

// read reads the piece and reports whether it was plain and filled out.
func (r *plainReader) read() bool {
	for {
		ok := false
		if r.nested {
			ok = r.row()
		} else {
			ok = r.number()
		}
		if !ok {
			return false
		}
		if !r.expect(',') {
			return r.pos == len(r.text) && r.n == len(r.out)
		}
	}
}

// row reads one row of numbers, which must have the piece's row length.
func (r *plainReader) row() bool {
	if !r.expect('[') {
		return false
	}
	start := r.n
	for {
		if !r.number() {
			return false
		}
		if r.expect(']') {
			break
		}
		if !r.expect(',') {
			return false
		}
	}
	n := r.n - start
	if r.rowLen == 0 {
		r.rowLen = n
	}
	return n == r.rowLen
}

// expect moves past white space and the byte c, if c is next.
func (r *plainReader) expect(c byte) bool {
	for r.pos < len(r.text) && isSpace(r.text[r.pos]) {
		r.pos++
	}
	if r.pos < len(r.text) && r.text[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// number reads one JSON number into the next place of out.
func (r *plainReader) number() bool {
	for r.pos < len(r.text) && isSpace(r.text[r.pos]) {
		r.pos++
	}
	v, end, err := scanFloat(r.text, r.pos, r.pow10)
	if end < 0 || err != nil || r.n >= len(r.out) {
		return false
	}
	r.out[r.n] = v
	r.n++
	r.pos = end
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
