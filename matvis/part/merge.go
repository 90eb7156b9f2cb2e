package part

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/shard"
	"github.com/gomatvis/gomatvis/npy"
	"github.com/gomatvis/gomatvis/uvh5"
)

// Set is the checked parts of one run, sorted by shard.
type Set struct {
	Parts []*File
	// Notes are remarks the merge should print (e.g. parts computed with
	// different backends or chunk counts: equal to rounding, not bit for bit).
	Notes []string
}

// Close closes every part.
func (s *Set) Close() {
	for _, p := range s.Parts {
		p.Close()
	}
}

// OpenSet opens the parts of one run and checks, before any data are read,
// that they come from the same configuration (config hash, grid, output,
// shard count), that none is doubled or missing, and that each holds its
// shard's block. Errors name the files.
func OpenSet(paths []string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("merge: no parts")
	}
	s := &Set{}
	for _, p := range paths {
		f, err := Open(p)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("merge: %w", err)
		}
		s.Parts = append(s.Parts, f)
	}
	if err := s.check(); err != nil {
		s.Close()
		return nil, fmt.Errorf("merge: %w", err)
	}
	return s, nil
}

// check is OpenSet's consistency check.
func (s *Set) check() error {
	first := &s.Parts[0].Meta
	for _, p := range s.Parts[1:] {
		m := &p.Meta
		switch {
		case m.ConfigHash != first.ConfigHash:
			return fmt.Errorf("%s has config hash %s, %s has %s: the parts come from different configurations", p.Path, m.ConfigHash[:16], s.Parts[0].Path, first.ConfigHash[:16])
		case m.N != first.N:
			return fmt.Errorf("%s is shard %d/%d, %s is of %d shards", p.Path, m.Shard, m.N, s.Parts[0].Path, first.N)
		case m.NFreq != first.NFreq || m.NTime != first.NTime || m.Output != first.Output || m.Precision != first.Precision || !sameInner(m.Shape, first.Shape):
			return fmt.Errorf("%s (%d freqs × %d times, %s, precision %d, shape %v) does not match %s (%d × %d, %s, precision %d, shape %v)",
				p.Path, m.NFreq, m.NTime, m.Output, m.Precision, m.Shape, s.Parts[0].Path, first.NFreq, first.NTime, first.Output, first.Precision, first.Shape)
		}
		if err := sameRun(m, first); err != nil {
			return fmt.Errorf("%s does not describe the run as %s does: %w", p.Path, s.Parts[0].Path, err)
		}
	}
	sort.SliceStable(s.Parts, func(i, j int) bool { return s.Parts[i].Meta.Shard < s.Parts[j].Meta.Shard })
	var missing []string
	byShard := map[int]string{}
	for _, p := range s.Parts {
		if prev, ok := byShard[p.Meta.Shard]; ok {
			return fmt.Errorf("shard %d/%d given twice: %s and %s", p.Meta.Shard, first.N, prev, p.Path)
		}
		byShard[p.Meta.Shard] = p.Path
	}
	for i := range first.N {
		if _, ok := byShard[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d of %d shards missing: %s (rerun them, e.g. sbatch --array=%s array.sbatch; resubmitting the whole array recomputes only these)",
			len(missing), first.N, strings.Join(missing, ","), strings.Join(missing, ","))
	}
	blocks, err := shard.Split(first.NFreq, first.NTime, first.N)
	if err != nil {
		return err
	}
	for _, p := range s.Parts {
		if p.Meta.Block != blocks[p.Meta.Shard] {
			return fmt.Errorf("%s: shard %d/%d holds %v, the split gives %v", p.Path, p.Meta.Shard, first.N, p.Meta.Block, blocks[p.Meta.Shard])
		}
	}
	if err := first.checkLayout(); err != nil {
		return fmt.Errorf("%s: %w", s.Parts[0].Path, err)
	}
	s.notes()
	return nil
}

// checkLayout checks that a UVH5 part's layout describes its grid and
// shape (a merge indexes the one by the other).
func (m *Meta) checkLayout() error {
	l := m.UVH5
	if m.Output != OutputUVH5 {
		return nil
	}
	switch {
	case len(l.Freqs) != m.NFreq || len(l.Times) != m.NTime:
		return fmt.Errorf("layout of %d freqs × %d times for a grid of %d × %d", len(l.Freqs), len(l.Times), m.NFreq, m.NTime)
	case len(l.Baselines) != m.Shape[2]:
		return fmt.Errorf("layout of %d baselines for %d pairs", len(l.Baselines), m.Shape[2])
	case l.Polarized != (len(m.Shape) == 5) || l.Precision != m.Precision:
		return fmt.Errorf("layout (polarized %v, precision %d) for shape %v of precision %d", l.Polarized, l.Precision, m.Shape, m.Precision)
	}
	return nil
}

// notes records differences that make parts equal to rounding only.
func (s *Set) notes() {
	kinds := map[string]bool{}
	for _, p := range s.Parts {
		kinds[fmt.Sprintf("%s (%s, %d chunk(s))", p.Meta.Backend, p.Meta.MatProd, p.Meta.NChunks)] = true
	}
	if len(kinds) > 1 {
		var ks []string
		for k := range kinds {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		s.Notes = append(s.Notes, "the parts were computed in different ways ("+strings.Join(ks, "; ")+"): the merged file equals an unsharded run to rounding, not bit for bit")
	}
}

func sameInner(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 2; i < len(a); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Meta is the run's description (the first part's metadata).
func (s *Set) Meta() *Meta { return &s.Parts[0].Meta }

// WriteUVH5 writes the merged UVH5 file to out, one time block at a time:
// the parts of a block of times (one part, or the channel blocks of one
// time) are read one after another into that block's rows, which are then
// written; at most one part and one block of rows are in memory. A
// cancelled ctx stops it, leaving nothing at out.
func (s *Set) WriteUVH5(ctx context.Context, out string) error {
	m := s.Meta()
	if m.Output != OutputUVH5 {
		return fmt.Errorf("merge: the parts were made for %s output, not uvh5 (rerun with the output's format)", m.Output)
	}
	hdr, err := m.UVH5.Header()
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	w, err := uvh5.Create(out, hdr)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if err := s.fillUVH5(ctx, w); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// fillUVH5 writes every time block's rows.
func (s *Set) fillUVH5(ctx context.Context, w *uvh5.Writer) error {
	l := s.Meta().UVH5
	nbl, nf, np := len(l.Baselines), len(l.Freqs), len(l.Pols)
	for i := 0; i < len(s.Parts); {
		b := s.Parts[i].Meta.Block
		j := i
		for j < len(s.Parts) && s.Parts[j].Meta.Block.T0 == b.T0 {
			j++
		}
		rows := make([]complex128, b.NTime()*nbl*nf*np)
		for _, p := range s.Parts[i:j] {
			res, err := p.Data(ctx)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			pb := p.Meta.Block
			for t := range pb.NTime() {
				for k := range nbl {
					for f := range pb.NFreq() {
						for pi, pol := range l.Pols {
							a, c := matvis.PolIndex(pol, l.Polarized)
							rows[((t*nbl+k)*nf+pb.F0+f)*np+pi] = res.At(f, t, k, a, c)
						}
					}
				}
			}
		}
		if err := w.WriteBlock(b.T0*nbl, rows, nil, nil); err != nil {
			return fmt.Errorf("merge: times [%d, %d): %w", b.T0, b.T1, err)
		}
		i = j
	}
	return nil
}

// WriteNpy writes the merged (nfreq, ntimes, npairs[, 2, 2]) array to out
// and the run's metadata to metaPath, atomically: each part's slabs are
// written in place, so one part is in memory at a time. A cancelled ctx
// stops it, leaving nothing at out or metaPath.
func (s *Set) WriteNpy(ctx context.Context, out, metaPath string) error {
	m := s.Meta()
	if m.Output != OutputNpy {
		return fmt.Errorf("merge: the parts were made for %s output, not npy (rerun with the output's format)", m.Output)
	}
	shape := append([]int{m.NFreq, m.NTime}, m.Shape[2:]...)
	fill := func(w io.Writer) error {
		wa, ok := w.(io.WriterAt)
		if !ok {
			return errors.New("merge: the output cannot be written in place")
		}
		dt := npy.Complex128
		if m.Precision == 1 {
			dt = npy.Complex64
		}
		hdr := npy.Header(shape, dt)
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		return s.fillNpy(ctx, wa, int64(len(hdr)), shape)
	}
	files := []atomicfile.File{{Path: out, Fill: fill}}
	if len(m.NpyMeta) > 0 {
		files = append(files, atomicfile.File{Path: metaPath, Fill: func(w io.Writer) error {
			_, err := w.Write(append(append([]byte(nil), m.NpyMeta...), '\n'))
			return err
		}})
	}
	return atomicfile.WriteGroup(files...)
}

// fillNpy writes every part's slabs (one per channel: its times) at their
// offsets after the header.
func (s *Set) fillNpy(ctx context.Context, w io.WriterAt, off int64, shape []int) error {
	inner := int64(1)
	for _, d := range shape[2:] {
		inner *= int64(d)
	}
	elem := s.Meta().ElemBytes()
	for _, p := range s.Parts {
		res, err := p.Data(ctx)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		b := p.Meta.Block
		slab := int64(b.NTime()) * inner
		for f := range b.NFreq() {
			at := off + ((int64(b.F0+f)*int64(shape[1]))+int64(b.T0))*inner*elem
			lo, hi := int64(f)*slab, int64(f+1)*slab
			var data any
			if res.Precision == 1 {
				data = res.Vis64[lo:hi]
			} else {
				data = res.Vis128[lo:hi]
			}
			if err := writeAt(w, at, data); err != nil {
				return fmt.Errorf("merge: %s: %w", p.Path, err)
			}
		}
	}
	return nil
}

// writeAt encodes data little-endian at offset at.
func writeAt(w io.WriterAt, at int64, data any) error {
	buf := make([]byte, 0, binary.Size(data))
	buf, err := binary.Append(buf, binary.LittleEndian, data)
	if err != nil {
		return err
	}
	_, err = w.WriteAt(buf, at)
	return err
}
