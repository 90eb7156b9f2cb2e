package obsparam

import (
	"gopkg.in/yaml.v3"
)

// Sources are the sky-catalog parameters of the sources section. The
// catalog itself is not read here.
type Sources struct {
	// Catalog is the absolute path of the catalog file.
	Catalog string
	// Filetype is "" (guess from the file) or one of skyh5, gleam, vot,
	// text, fhd.
	Filetype string
	// SpectralType is "" or flat, subband, spectral_index (GLEAM).
	SpectralType string
	// MinFlux and MaxFlux (Jy, Stokes I) are nil when absent.
	MinFlux, MaxFlux *float64
	// NonNegative drops components with negative Stokes I.
	NonNegative bool
	// NonNaN is "", "any" or "all": drop components with NaN Stokes values
	// at any or all frequencies.
	NonNaN string
	// ReadOptions are the other catalog-reading keys pyuvsim passes to
	// pyradiosky (table_name, id_column, ra_column, dec_column,
	// lon_column, lat_column, frame, flux_columns, reference_frequency,
	// freq_array, spectral_index_column), as decoded YAML values.
	ReadOptions map[string]any
}

var catalogFiletypes = map[string]bool{"skyh5": true, "gleam": true, "vot": true, "text": true, "fhd": true}

var spectralTypes = map[string]bool{"flat": true, "subband": true, "spectral_index": true, "full": true}

// catalogReadKeys are the keys pyuvsim hands to SkyModel.from_file.
var catalogReadKeys = map[string]bool{
	"table_name": true, "id_column": true, "ra_column": true, "dec_column": true,
	"lon_column": true, "lat_column": true, "frame": true, "flux_columns": true,
	"reference_frequency": true, "freq_array": true, "spectral_index_column": true,
}

// mockKeys are the mock-catalog keys (refused with catalog: mock).
var mockKeys = map[string]bool{
	"mock_arrangement": true, "time": true, "Nsrcs": true, "zen_ang": true, "save": true,
	"min_alt": true, "array_location": true, "diffuse_model": true, "diffuse_params": true, "map_nside": true,
}

// ignoredByPyuvsim are SkyModel options a user may write that pyuvsim does
// not pass on.
var ignoredByPyuvsim = map[string]bool{
	"run_check": true, "check_extra": true, "run_check_acceptability": true,
	"at_frequencies": true, "freq_interp_kind": true, "atol": true, "nan_handling": true,
}

// parseSources reads the sources section.
func (r *reader) parseSources(sec *yaml.Node) error {
	es, err := r.obs.entries(sec, "sources")
	if err != nil {
		return err
	}
	s := Sources{ReadOptions: map[string]any{}}
	var catN *yaml.Node
	for _, e := range es {
		if e.key == "catalog" {
			catN = e.value
		}
	}
	if catN == nil {
		return r.obs.errf(sec, "sources.catalog", "no catalog defined")
	}
	cat, err := r.obs.str(catN, "sources.catalog")
	if err != nil {
		return err
	}
	if cat == "mock" {
		return r.obs.errf(catN, "sources.catalog", "pyuvsim's mock catalogs are not supported: give a catalog file")
	}
	if s.Catalog, err = r.resolvePath(r.obs, catN, "sources.catalog", cat, r.dir); err != nil {
		return err
	}
	for _, e := range es {
		if err := r.sourceKey(&s, e); err != nil {
			return err
		}
	}
	r.cfg.Sources = s
	return nil
}

func (r *reader) sourceKey(s *Sources, e entry) error {
	field := "sources." + e.key
	var err error
	switch {
	case e.key == "catalog":
	case e.key == "filetype":
		if s.Filetype, err = r.obs.str(e.value, field); err == nil && !catalogFiletypes[s.Filetype] {
			err = r.obs.errf(e.value, field, "must be one of skyh5, gleam, vot, text, fhd")
		}
	case e.key == "spectral_type":
		if s.SpectralType, err = r.obs.str(e.value, field); err == nil && !spectralTypes[s.SpectralType] {
			err = r.obs.errf(e.value, field, "must be one of flat, subband, spectral_index, full")
		}
	case e.key == "min_flux" || e.key == "max_flux":
		var v float64
		if v, err = r.obs.num(e.value, field); err == nil {
			if e.key == "min_flux" {
				s.MinFlux = &v
			} else {
				s.MaxFlux = &v
			}
		}
	case e.key == "non_negative":
		s.NonNegative, err = r.obs.boolean(e.value, field)
	case e.key == "non_nan":
		if s.NonNaN, err = r.obs.str(e.value, field); err == nil && s.NonNaN != "any" && s.NonNaN != "all" {
			err = r.obs.errf(e.value, field, "must be any or all")
		}
	case e.key == "horizon_buffer":
		r.warn(r.obs.warnf(e.keyN, field, "ignored: it only widens pyuvsim's coarse rise/set pre-cut; gomatvis drops sources below the horizon at each time exactly"))
	case catalogReadKeys[e.key]:
		var v any
		if derr := e.value.Decode(&v); derr != nil {
			err = r.obs.errf(e.value, field, "cannot be read: %v", derr)
		}
		s.ReadOptions[e.key] = v
	case mockKeys[e.key]:
		r.warn(r.obs.warnf(e.keyN, field, "ignored: a mock-catalog key, and the catalog is a file"))
	case ignoredByPyuvsim[e.key]:
		r.warn(r.obs.warnf(e.keyN, field, "ignored: pyuvsim does not pass it to pyradiosky either"))
	default:
		r.warn(r.obs.warnf(e.keyN, field, "unknown sources key, ignored (pyuvsim ignores it too)"))
	}
	return err
}
