package skymodel

import (
	"fmt"

	"github.com/gomatvis/gomatvis/internal/membudget"
)

// skyTerms are what reading a sky of hd's shape holds: the arrays of the
// sky read (its Stokes, 4 × Nfreqs × Ncomponents float64, positions,
// names of a string header and nameBytes each, per-component spectra) and
// as much again for the reading, which holds each dataset's stored bytes
// beside its decoded values and whose garbage the collector lets grow to
// the live heap's size before collecting (GOGC=100): a 2·10⁷-component
// sky of 1.3 GB of arrays peaked at 2.64 GB RSS. They are known from the
// header alone, so that a small compressed file declaring a huge sky is
// refused before any block is inflated.
func skyTerms(hd skyh5Header, nameBytes int64) []membudget.Term {
	n, nf := int64(hd.n), int64(hd.nf)
	terms := []membudget.Term{
		{Name: "stokes", Size: fmt.Sprintf("4 × %d channels × %d components × 8 B", nf, n), Bytes: membudget.Mul(4, nf, n, 8)},
		{Name: "positions", Size: fmt.Sprintf("2 × %d components × 8 B", n), Bytes: membudget.Mul(2, n, 8)},
	}
	if hd.healpix {
		terms = append(terms, membudget.Term{Name: "pixel indices", Size: fmt.Sprintf("%d pixels × 8 B", n), Bytes: membudget.Mul(n, 8)})
	} else {
		terms = append(terms, membudget.Term{Name: "names", Size: fmt.Sprintf("%d names × %d B", n, 16+nameBytes), Bytes: membudget.Mul(n, 16+nameBytes)})
	}
	if hd.spec == SpectralIndex {
		terms = append(terms, membudget.Term{Name: "spectral indices and reference frequencies", Size: fmt.Sprintf("2 × %d components × 8 B", n), Bytes: membudget.Mul(2, n, 8)})
	}
	arrays := int64(0)
	for _, t := range terms {
		arrays = membudget.Add(arrays, t.Bytes)
	}
	return append(terms, membudget.Term{Name: "reading", Size: "the stored bytes and the collector's headroom: as much again", Bytes: arrays})
}

// checkSkySize refuses a sky whose arrays (skyTerms) exceed the budget of
// maxMemory (0: the machine's, internal/membudget), before reading them.
func (h *h5file) checkSkySize(hd skyh5Header, maxMemory int64) error {
	nameBytes := int64(0)
	if !hd.healpix && h.has("/Header/name") {
		if d, err := h.f.Dataset("/Header/name"); err == nil {
			nameBytes = int64(d.Type.Size)
		}
	}
	err := membudget.System().Check(maxMemory, "the sky ("+fmt.Sprint(hd.n)+" components × "+fmt.Sprint(hd.nf)+" channels, from /Header)",
		"write a catalog of fewer components or channels (min/max flux cuts apply only after reading)", skyTerms(hd, nameBytes)...)
	if err != nil {
		return &ParseError{File: h.name, Err: err}
	}
	return nil
}
