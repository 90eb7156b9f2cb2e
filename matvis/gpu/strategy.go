// The Gram-product strategy: forced, cached on disk or measured.

package gpu

import (
	"fmt"
	"strings"

	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/choicecache"
	"github.com/gomatvis/gomatvis/matvis"
)

// describeMatProd fills in the matrix product as the run does it. The
// device has no per-pair product: it forms the whole M×M Gram product
// (cuBLAS or the fused kernel), or with the tensor-core product only the
// tiles that hold the output pairs (restrictTiles), and vis_out extracts
// the pairs, so Options.MatProd pairs gives the pairs' visibilities
// computed that way, which is said here rather than ignored silently.
func (r *run) describeMatProd(g *matvis.GramImpl) {
	if r.nu != nil && r.nu.used {
		// The transform computes exactly the output pairs.
		g.MatProd = r.sim.Options.MatProd
		return
	}
	g.MatProd = matvis.MatProdHerk
	if r.sim.Options.MatProd == matvis.MatProdPairs {
		g.MatProd, g.ExtractedPairs = matvis.MatProdPairs, len(r.sim.Pairs)
	}
	if !r.fused && r.tilesComputed < r.tilesTotal {
		g.TilesComputed, g.TilesTotal = r.tilesComputed, r.tilesTotal
	}
}

// restrictTiles limits the tensor-core product to the tiles that hold
// the output pairs' entries (every feed combination): a baseline subset
// costs the tiles it touches.
func (r *run) restrictTiles() error {
	if !r.st.SplitZ() {
		return nil
	}
	var entries [][2]int
	for _, p := range r.sim.Pairs {
		for f1 := 0; f1 < r.nf; f1++ {
			for f2 := 0; f2 < r.nf; f2++ {
				entries = append(entries, [2]int{p[0]*r.nf + f1, p[1]*r.nf + f2})
			}
		}
	}
	var err error
	if r.tilesComputed, r.tilesTotal, err = r.g.Restrict(r.M, entries); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

func (r *run) chooseStrategy() error {
	prec := r.sim.Options.Precision
	if r.opt.Strategy != "" {
		r.st = r.opt.Strategy
		if prec == 2 && !r.st.Double() {
			return fmt.Errorf("gpu: strategy %s is single precision; precision 2 needs a complex128 one", r.st)
		}
		r.res.Stats.MatProdImpl = matvis.GramImpl{Strategy: strategyName(r.st), Why: "forced"}
		return nil
	}
	// Expected K per chunk: about half the sky is above the horizon.
	k := r.nf * max(1, (r.nsrc/2+r.nchunk-1)/r.nchunk)
	info := r.c.Info()
	ver, _ := r.blas.Version()
	bucket := (k + 4095) / 4096 * 4096
	// The candidates are part of the key: a choice cached before a new
	// strategy existed is not a choice among the new ones.
	key := fmt.Sprintf("%s|drv%d|cublas%d|p%d|M%d|K%d|%v", info.Name, info.DriverVersion, ver, prec, r.M, bucket, gram.Candidates(prec))
	cache := strategyCachePath()
	if !r.opt.NoStrategyCache {
		unlock, ok := r.lockChoice(cache, key)
		defer unlock()
		if !ok {
			r.st = fixedStrategy(prec)
			r.res.Stats.MatProdImpl = matvis.GramImpl{Strategy: strategyName(r.st), Why: r.waitedTooLong(cache)}
			return nil
		}
		if st, ok := readStrategyCache(cache, key); ok {
			r.st = st
			r.res.Stats.MatProdImpl = matvis.GramImpl{Strategy: strategyName(st), Why: fmt.Sprintf("cached choice for M=%d K≈%d", r.M, bucket)}
			return nil
		}
	}
	r.mem.ScratchBytes = int64(bucket)*int64(r.M)*16 + int64(r.M)*int64(r.M)*16 // gram.Choose's Z and C
	st, res, err := r.g.Choose(gram.Candidates(prec), r.M, bucket)
	if err != nil {
		return fmt.Errorf("gpu: choosing the Gram strategy: %w", err)
	}
	r.st = st
	var parts []string
	for _, x := range res {
		if x.Err != nil {
			parts = append(parts, fmt.Sprintf("%s failed", x.Strategy))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.3f ms", x.Strategy, x.Ms))
		}
	}
	r.res.Stats.MatProdImpl = matvis.GramImpl{Strategy: strategyName(st), Why: fmt.Sprintf("measured at M=%d K=%d: %s", r.M, bucket, strings.Join(parts, ", "))}
	if !r.opt.NoStrategyCache {
		writeStrategyCache(cache, key, st)
	}
	return nil
}

// TensorCoreName and TensorCoreWgmmaName are Stats.MatProdImpl.Strategy
// for the split-FP16 tensor-core products (gram.TCF16 on mma.sync,
// gram.TCF16WG on Hopper's wgmma); the cuBLAS strategies are "cuBLAS " +
// their name.
const (
	TensorCoreName      = "tensor-core split-FP16 (tc-f16)"
	TensorCoreWgmmaName = "tensor-core split-FP16 on wgmma (tc-f16-wg)"
)

func strategyName(st gram.Strategy) string {
	switch st {
	case gram.TCF16:
		return TensorCoreName
	case gram.TCF16WG:
		return TensorCoreWgmmaName
	}
	return "cuBLAS " + string(st)
}

func strategyCachePath() string { return choicecache.Path("gram-strategies.json") }

func readStrategyCache(path, key string) (gram.Strategy, bool) {
	st, ok := choicecache.Get[string](path, key)
	return gram.Strategy(st), ok && st != ""
}

// writeStrategyCache records a choice (choicecache: a failure only means
// measuring again next time).
func writeStrategyCache(path, key string, st gram.Strategy) {
	choicecache.Put(path, key, string(st))
}

// fusedCacheKey names a fused-path decision on disk: the device, its
// driver and the decision's shape.
func (r *run) fusedCacheKey(k fusedKey) string {
	info := r.c.Info()
	return fmt.Sprintf("%s|drv%d|p1=%v|pol=%v|stacked=%v|M%d|buf%d|beams%d|%s", info.Name, info.DriverVersion, k.p1, k.pol, k.stacked, k.m, k.bufSrc, k.nbeam, k.strategy)
}

func fusedCachePath() string { return choicecache.Path("fused-choices.json") }

// cachedFused is a fused-path (or transform-path) decision as the cache
// file holds it.
type cachedFused struct {
	Fused bool   `json:"fused"`
	Why   string `json:"why"`
}

func readFusedCache(path, key string) (fusedDecision, bool) {
	c, ok := choicecache.Get[cachedFused](path, key)
	return fusedDecision{fused: c.Fused, why: c.Why}, ok && c.Why != ""
}

// writeFusedCache records a decision (choicecache: a failure only means
// measuring again next time).
func writeFusedCache(path, key string, d fusedDecision) {
	choicecache.Put(path, key, cachedFused{Fused: d.fused, Why: d.why})
}
