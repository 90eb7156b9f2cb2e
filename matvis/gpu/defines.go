package gpu

import "fmt"

// Constants vis.cu shares with this package. They are defined here only
// and reach the kernels as -D macros (sharedDefines); vis.cu refuses to
// compile without them.
const (
	// Layout of a time's parameter block (PAR_*): the row-major ENU
	// matrix, then the BCRS-step constants of an astro.BCRSRotation.
	parEH, parEM, parV, parBM1, parBPN, parSRS = 9, 12, 13, 16, 17, 26
	parN                                       = 27

	// sortItems is the sources per block of the sort kernels
	// (SORT_ITEMS).
	sortItems = 1024

	// fusedFootBytes is the size of gram_foot's per-source footprint
	// (FUSED_FOOT_BYTES, checked against sizeof(FusedFoot)).
	fusedFootBytes = 17 * 4

	// Block sizes: threadsCoords (THREADS_COORDS, WARPS_COORDS warps) for
	// enu_all, horizon_*, key_*, gram_foot, vis_out and gram_reduce;
	// threadsScan (THREADS_SCAN) for scan_blocks, one block;
	// threadsBeamTau (THREADS_BTZ) for beam_tau_z.
	threadsCoords  = 256
	threadsScan    = 1024
	threadsBeamTau = 128

	// compactMaxRounds (COMPACT_MAX_ROUNDS) bounds horizon_compact's
	// rounds of threadsCoords sources per block (its shared counts); a
	// sky that needs more is compacted in three launches.
	compactMaxRounds = 64
)

// sharedDefines are the NVRTC options that give vis.cu the constants
// above, the kernel shapes of tuning.go (sort bins, gram_fused's warps and
// buffers), the analytic beam kinds (KIND_*) and the descriptors' layout
// (BEAM_DESC_*, GEOM_DESC_*: descriptors.go): each is defined in Go
// only, and the kernels refuse to compile without it. The run's own
// choices (types, FG_MT, FG_TS, FG_STACKED, FG_NBP, FG_F16) are added by
// compile.
func sharedDefines() []string {
	defs := []struct {
		name string
		v    int
	}{
		{"PAR_EH", parEH}, {"PAR_EM", parEM}, {"PAR_V", parV}, {"PAR_BM1", parBM1}, {"PAR_BPN", parBPN}, {"PAR_SRS", parSRS}, {"PAR_N", parN},
		{"SORT_ITEMS", sortItems}, {"FUSED_FOOT_BYTES", fusedFootBytes},
		{"THREADS_COORDS", threadsCoords}, {"WARPS_COORDS", threadsCoords / 32}, {"THREADS_SCAN", threadsScan}, {"THREADS_BTZ", threadsBeamTau},
		{"COMPACT_MAX_ROUNDS", compactMaxRounds},
		{"NBAND", sortBands}, {"NAZBIN", sortAzBins},
		{"FG_NP", fusedProducerWarps}, {"FG_NC", fusedConsumerWarps}, {"FG_NBUF", fusedBuffers},
	}
	defs = append(defs, kindDefines()...)
	defs = append(defs, descriptorDefines()...)
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = fmt.Sprintf("-D%s=%d", d.name, d.v)
	}
	return out
}
