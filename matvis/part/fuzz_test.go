package part

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadPart: any bytes given as a part are refused with an error or
// read consistently, never a panic or an allocation beyond the file.
func FuzzReadPart(f *testing.F) {
	dir := f.TempDir()
	full := grid(2, 3, 2)
	for i, p := range writeParts(f, dir, full, 2, hashA) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if i == 0 {
			f.Add(b[:len(b)/2])
		}
	}
	f.Add([]byte(Magic + "\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	// Format 2, which runs stream: whole, cut, and a bare trailer.
	p2 := filepath.Join(dir, "p2")
	w, err := Create(p2, full.Shape, 2)
	if err == nil {
		err = w.WriteAt(0, full.Vis128)
	}
	if err == nil {
		err = w.Close(Meta{ConfigHash: hashA, N: 1, NFreq: 2, NTime: 3, Block: blockAll(2, 3), Output: OutputNpy, NpyMeta: npyMetaOf(full)})
	}
	b2, err2 := os.ReadFile(p2)
	if err != nil || err2 != nil {
		f.Fatal(err, err2)
	}
	f.Add(b2)
	f.Add(b2[:len(b2)-trailerLen])
	f.Add([]byte(Magic2 + "{}\x02\x00\x00\x00\x00\x00\x00\x00" + Magic2))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), int64(len(data)), "fuzz")
		if err != nil {
			return
		}
		res, err := file.Data(context.Background())
		if err != nil {
			return
		}
		if int64(len(res.Vis64)*8+len(res.Vis128)*16) != file.Meta.DataBytes || len(res.Done) != file.Meta.Block.Size() {
			t.Fatalf("data of %d+%d values for %d bytes, block %v", len(res.Vis64), len(res.Vis128), file.Meta.DataBytes, file.Meta.Block)
		}
		if err := file.Verify(context.Background()); err != nil {
			t.Fatalf("Data read the part but Verify refuses it: %v", err)
		}
	})
}
