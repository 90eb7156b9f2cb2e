package plots

// words are the legend texts of the pipeline's stages and matvis's
// memory terms: what each is in words a radio astronomer knows, with the
// name summary.json and matvis use in parentheses.
var words = map[string]string{
	// Stages.
	"coords":                     "source positions (coords)",
	"beam":                       "beam values (beam)",
	"tau_z":                      "phases and Z (tau_z)",
	"matprod":                    "V = Z Zᴴ, Gram product (matprod)",
	"transfer":                   "host ↔ device copies (transfer)",
	"beam+tau_z":                 "beam, phases, Z: one kernel (beam+tau_z)",
	"beam+tau_z (fused)":         "beam, phases, Z: one kernel (beam+tau_z)",
	"beam+tau_z+matprod (fused)": "beam to V: one kernel (beam+tau_z+matprod)",
	"other (untimed)":            "untimed (other)",
	// The transform backends' roofline stages (matvis/profile).
	"strengths+spread": "source strengths spread onto the uv grid (strengths+spread)",
	"fft+interp":       "uv grid FFT, interpolated to the baselines (fft+interp)",
	// Memory terms (matvis's names, matvis.MemoryConfig.Terms).
	"antpos":      "antenna positions (antpos)",
	"flux":        "source fluxes (flux)",
	"beam_grid":   "raw beam grids (beam_grid)",
	"crd_eq":      "directions, equatorial (crd_eq)",
	"eq2top":      "rotation matrix (eq2top)",
	"crd_top":     "directions, topocentric (crd_top)",
	"crd_chunk":   "chunk's directions (crd_chunk)",
	"flux_chunk":  "chunk's fluxes (flux_chunk)",
	"exptau":      "phase factors exp(iτ) (exptau)",
	"beam_interp": "beam values (beam_interp)",
	"zmat":        "Z matrix (zmat)",
	"vis":         "visibilities (vis)",
}

// Words is the legend text of a stage or memory term: its description in
// words with the name in parentheses, or the name itself when unknown.
func Words(name string) string {
	if w, ok := words[name]; ok {
		return w
	}
	return name
}
