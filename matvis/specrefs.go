package matvis

import (
	"fmt"
	"math"
	"path/filepath"

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

// specSources sets c's sources: the spec's inline arrays (a flux table),
// or its catalog read and selected (a Spectrum evaluated per channel).
func specSources(s *simspec.Spec, c *Config) error {
	if s.Sources.Catalog == nil {
		c.RA, c.Dec = s.Sources.RARad, s.Sources.DecRad
		c.Flux = make([]float64, 0, s.NSrc()*len(s.FreqsHz))
		for _, row := range s.Sources.FluxJy {
			c.Flux = append(c.Flux, row...)
		}
		return nil
	}
	sky, err := specCatalog(s)
	if err != nil {
		return err
	}
	if sky.Polarized() {
		return fmt.Errorf("matvis: sources.catalog %s: the sky has Stokes Q, U or V; polarized skies are not simulated yet (only Stokes I)", s.Sources.Catalog.Path)
	}
	c.RA, c.Dec, c.Sky = sky.RA(), sky.Dec(), sky
	return nil
}

// specCatalog reads the spec's catalog and applies its selection.
func specCatalog(s *simspec.Spec) (*skymodel.Sky, error) {
	cat := s.Sources.Catalog
	sky, err := skymodel.ReadFileOptions(specPath(s, cat.Path), skymodel.ReadOptions{Filetype: cat.Filetype})
	if err != nil {
		return nil, fmt.Errorf("matvis: sources.catalog: %w", err)
	}
	if cat.MinFluxJy == nil && cat.MaxFluxJy == nil && !cat.NonNegative {
		return sky, nil
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if cat.MinFluxJy != nil {
		lo = *cat.MinFluxJy
	}
	if cat.MaxFluxJy != nil {
		hi = *cat.MaxFluxJy
	}
	if sky, err = sky.Select(lo, hi, cat.NonNegative); err != nil {
		return nil, fmt.Errorf("matvis: sources.catalog %s: selection: %w", cat.Path, err)
	}
	return sky, nil
}

// specAntennas sets c's antennas (and, from a layout, their beams).
func specAntennas(s *simspec.Spec, c *Config) error {
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
