package input

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis"
	"math"
	"path/filepath"
	"slices"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/skymodel"
)

// specPath resolves a path of a spec relative to the spec's directory.
func specPath(s *simspec.Spec, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// specSources sets c's sources: the spec's inline arrays (a flux table,
// or a Stokes table when Q, U or V rows are given), or its catalog read
// and selected (a Spectrum evaluated per channel).
func specSources(s *simspec.Spec, maxMemory int64, c *matvis.Config) error {
	if s.Sources.Catalog == nil {
		src := s.Sources
		c.RA, c.Dec = src.RARad, src.DecRad
		if t := newStokesTable(s.FreqsHz, src); t != nil {
			c.Sky = t
			return nil
		}
		// Validate checked the shape: nsrc·nfreq values, row-major, which
		// is Config.Flux's layout; the run reads them in place.
		c.Flux = src.FluxJy.Values()
		return nil
	}
	sky, err := specCatalog(s, maxMemory)
	if err != nil {
		return err
	}
	c.RA, c.Dec, c.Sky = sky.RA(), sky.Dec(), sky
	return nil
}

// stokesTable is a spec's inline full-Stokes sky: values[k] holds Stokes
// k (I, Q, U, V) row-major, [source*nfreq+channel], at the spec's
// frequencies; nil for an absent Q, U or V.
type stokesTable struct {
	freqs  []float64
	values [4][]float64
	pol    bool
}

// newStokesTable returns the spec's inline sky as a Stokes table when it
// gives any non-zero Q, U or V, else nil (a Stokes-I table, today's path).
func newStokesTable(freqs []float64, src simspec.Sources) *stokesTable {
	t := &stokesTable{freqs: freqs}
	for k, tab := range []simspec.Table{src.FluxJy, src.StokesQJy, src.StokesUJy, src.StokesVJy} {
		t.values[k] = tab.Values()
	}
	for _, vals := range t.values[1:] {
		t.pol = t.pol || slices.ContainsFunc(vals, func(v float64) bool { return v != 0 })
	}
	if !t.pol {
		return nil
	}
	return t
}

// StokesAt writes Stokes k at the spec frequency freqHz (exactly one of
// them: the table has no spectral model between its channels).
func (t *stokesTable) StokesAt(freqHz float64, k int, dst []float64) error {
	fi := slices.Index(t.freqs, freqHz)
	if fi < 0 {
		return fmt.Errorf("matvis: the inline Stokes table has no channel at %g Hz", freqHz)
	}
	vals, nfreq := t.values[k], len(t.freqs)
	for s := range dst {
		dst[s] = 0
		if vals != nil { // an absent Q, U or V is zero
			dst[s] = vals[s*nfreq+fi]
		}
	}
	return nil
}

// StokesIAt writes Stokes I at freqHz.
func (t *stokesTable) StokesIAt(freqHz float64, dst []float64) error {
	return t.StokesAt(freqHz, 0, dst)
}

// Polarized reports whether any Q, U or V is non-zero.
func (t *stokesTable) Polarized() bool { return t.pol }

// specCatalog reads the spec's catalog (refused before reading when it
// cannot fit in maxMemory) and applies its selection.
func specCatalog(s *simspec.Spec, maxMemory int64) (*skymodel.Sky, error) {
	cat := s.Sources.Catalog
	sky, err := skymodel.ReadFileOptions(specPath(s, cat.Path), skymodel.ReadOptions{Filetype: cat.Filetype, MaxMemory: maxMemory})
	if err != nil {
		return nil, fmt.Errorf("matvis: sources.catalog: %w", err)
	}
	if sky, err = selectSky(sky, cat.MinFluxJy, cat.MaxFluxJy, cat.NonNegative); err != nil {
		return nil, fmt.Errorf("matvis: sources.catalog %s: selection: %w", cat.Path, err)
	}
	return sky, nil
}

// selectSky applies pyuvsim's min_flux, max_flux (nil: no bound) and
// non_negative cuts, returning sky itself when none is asked for.
func selectSky(sky *skymodel.Sky, minFlux, maxFlux *float64, nonNegative bool) (*skymodel.Sky, error) {
	if minFlux == nil && maxFlux == nil && !nonNegative {
		return sky, nil
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if minFlux != nil {
		lo = *minFlux
	}
	if maxFlux != nil {
		hi = *maxFlux
	}
	return sky.Select(lo, hi, nonNegative)
}

// specAntennas sets c's antennas (and, from a layout, their beams).
func specAntennas(s *simspec.Spec, c *matvis.Config) error {
	if s.LayoutCSV == "" {
		for _, a := range s.AntennasENU {
			c.Antennas = append(c.Antennas, [3]float64{a[0], a[1], a[2]})
		}
		return nil
	}
	ants, err := specLayout(s)
	if err != nil {
		return err
	}
	for _, a := range ants {
		if a.BeamID < 0 || a.BeamID >= len(s.Beams) {
			return fmt.Errorf("matvis: layout_csv %s: antenna %s (number %d) has BeamID %d, but the spec has %d beams", s.LayoutCSV, a.Name, a.Number, a.BeamID, len(s.Beams))
		}
		c.Antennas = append(c.Antennas, a.ENU)
		c.BeamIdx = append(c.BeamIdx, a.BeamID)
	}
	return nil
}

// maxLayoutBytes bounds a layout file.
const maxLayoutBytes = obsparam.MaxFileBytes

// specLayout reads the spec's layout file.
func specLayout(s *simspec.Spec) ([]obsparam.Antenna, error) {
	p := specPath(s, s.LayoutCSV)
	data, err := inputfile.ReadAll(p, maxLayoutBytes)
	if err != nil {
		return nil, fmt.Errorf("matvis: layout_csv: %w", err)
	}
	ants, _, err := obsparam.ParseLayout(p, data)
	if err != nil {
		return nil, fmt.Errorf("matvis: layout_csv: %w", err)
	}
	return ants, nil
}
