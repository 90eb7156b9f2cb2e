package simspec

import "math"

// catalogTypes are the catalog filetypes a spec may name.
var catalogTypes = map[string]bool{"": true, "skyh5": true, "text": true, "gleam": true, "vot": true, "stokes_tsv": true}

// validateCatalog checks a catalog reference; the file itself is read
// when the spec becomes a simulation.
func validateCatalog(c *Catalog, bad func(string, any, string, ...any), finite func(string, float64) bool) {
	if c.Path == "" {
		bad("sources.catalog.path", c.Path, "a catalog needs a path")
	}
	if !catalogTypes[c.Filetype] {
		bad("sources.catalog.filetype", c.Filetype, "want skyh5, text, gleam, vot or stokes_tsv (or nothing: by extension)")
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if c.MinFluxJy != nil && finite("sources.catalog.min_flux_jy", *c.MinFluxJy) {
		lo = *c.MinFluxJy
	}
	if c.MaxFluxJy != nil && finite("sources.catalog.max_flux_jy", *c.MaxFluxJy) {
		hi = *c.MaxFluxJy
	}
	if lo > hi {
		bad("sources.catalog.min_flux_jy", lo, "above max_flux_jy (%v): the selection would be empty", hi)
	}
}
