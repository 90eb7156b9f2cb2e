package h5read

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// manyGroups builds by hand (File Format Specification II.A.1, III.A.1,
// III.B, III.D, IV.A.1.a, IV.A.2.r) a file whose root and n subgroups all
// share one symbol table: a v1 B-tree with one symbol node listing the n
// subgroups. Each subgroup's member list is the whole table again, so a
// walk reads n tables of n entries — quadratic work from a file of ~88n
// bytes.
func manyGroups(n int) []byte {
	const sbSize, hdrSize = 96, 40
	groups := sbSize + hdrSize // first subgroup header
	heap := groups + n*hdrSize
	heapData := heap + 32
	tree := heapData + 8*n
	snod := tree + 24 + 24
	le := binary.LittleEndian
	b := make([]byte, snod+8+40*n)
	copy(b, signature)
	b[13], b[14] = 8, 8                  // sizes of offsets and lengths
	le.PutUint64(b[24:], 0)              // base address
	le.PutUint64(b[40:], uint64(len(b))) // end of file
	le.PutUint64(b[64:], uint64(sbSize)) // root object header
	header := func(at int) {             // v1 object header with one symbol table message
		b[at] = 1
		le.PutUint16(b[at+2:], 1)
		le.PutUint32(b[at+4:], 1)
		le.PutUint32(b[at+8:], 24)
		le.PutUint16(b[at+16:], msgSymbolTable)
		le.PutUint16(b[at+18:], 16)
		le.PutUint64(b[at+24:], uint64(tree))
		le.PutUint64(b[at+32:], uint64(heap))
	}
	header(sbSize)
	for i := range n {
		header(groups + i*hdrSize)
	}
	copy(b[heap:], "HEAP")
	le.PutUint64(b[heap+8:], uint64(8*n))
	le.PutUint64(b[heap+16:], undef)
	le.PutUint64(b[heap+24:], uint64(heapData))
	copy(b[tree:], "TREE")
	le.PutUint16(b[tree+6:], 1) // entries used; type 0, level 0
	le.PutUint64(b[tree+8:], undef)
	le.PutUint64(b[tree+16:], undef)
	le.PutUint64(b[tree+32:], uint64(snod)) // child 0 after key 0
	copy(b[snod:], "SNOD")
	b[snod+4] = 1
	le.PutUint16(b[snod+6:], uint16(n))
	for i := range n {
		copy(b[heapData+8*i:], fmt.Sprintf("g%05d", i))
		e := snod + 8 + 40*i
		le.PutUint64(b[e:], uint64(8*i))
		le.PutUint64(b[e+8:], uint64(groups+i*hdrSize))
	}
	return b
}

// TestWalkSharedTables: a small hand-built file (two subgroups sharing the
// root's table) walks as the bytes say; a large one, whose subgroups all
// share the root's table, is refused once the walk has read several times
// the file's size, quickly and without allocating in proportion to n².
func TestWalkSharedTables(t *testing.T) {
	small := manyGroups(2)
	f, err := Open(bytes.NewReader(small), int64(len(small)))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := f.Walk(func(p string, group bool) error {
		seen = append(seen, fmt.Sprintf("%s:%v", p, group))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "/g00000:true /g00000/g00001:true" {
		t.Errorf("walked %s", got)
	}

	// 100 subgroups walk as a chain /g00000/g00001/...: too deep.
	deep := manyGroups(100)
	f, err = Open(bytes.NewReader(deep), int64(len(deep)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Walk(func(string, bool) error { return nil }); err == nil || !strings.Contains(err.Error(), "nested deeper than 64") {
		t.Errorf("100-deep chain: %v", err)
	}

	// Before the budget, this 264 kB file took 12 s and 1.3 GB.
	big := manyGroups(3000)
	f, err = Open(bytes.NewReader(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err = f.Walk(func(string, bool) error { return nil })
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	t.Logf("%d-byte file: %v, %d MiB allocated, %v", len(big), took, (after.TotalAlloc-before.TotalAlloc)>>20, err)
	if err == nil || !strings.Contains(err.Error(), "bytes of metadata") {
		t.Errorf("error %v, want a refusal naming the metadata read", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("allocated %d MiB", got>>20)
	}
}
