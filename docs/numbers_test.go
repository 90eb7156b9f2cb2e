package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis/profile"
)

// text is a page with its runs of white space made single spaces, so that
// a phrase matches across the page's line breaks.
func text(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// peerRange is matvis's GPU time per integration on the H200 for the
// preset in column col (0: prodslice, 1: dev), from docs/peer-h200.md's
// canonical table ("| GPU time per integration, s | **a – b** | **c – d** |").
func peerRange(t *testing.T, col int) (lo, hi float64) {
	t.Helper()
	re := regexp.MustCompile(`\| GPU time per integration, s \| \*\*([0-9.]+) – ([0-9.]+)\*\* \| \*\*([0-9.]+) – ([0-9.]+)\*\* \|`)
	m := re.FindStringSubmatch(text(t, "docs/peer-h200.md"))
	if m == nil {
		t.Fatal("docs/peer-h200.md: no GPU time per integration row")
	}
	lo, err1 := strconv.ParseFloat(m[1+2*col], 64)
	hi, err2 := strconv.ParseFloat(m[2+2*col], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("docs/peer-h200.md: %q", m[0])
	}
	return lo, hi
}

// gpuStageSum is a committed GPU profile's GPU time per integration.
func gpuStageSum(t *testing.T, rep *profile.Report) float64 {
	t.Helper()
	if rep.Derived.GPUStageSumPerIntegration == nil {
		t.Fatal("no gpu_stage_sum_per_integration in a GPU profile")
	}
	return *rep.Derived.GPUStageSumPerIntegration
}

// claim is a phrase a page must hold, computed from a committed file.
type claim struct {
	page, phrase, source string
}

// TestQuotedNumbers: the numbers the README and the guides quote are the
// committed profiles' and docs/peer-h200.md's, formatted as the pages
// write them, and the numbers they replaced are gone. When a profile is
// re-measured this fails until the pages quote the new values.
func TestQuotedNumbers(t *testing.T) {
	prod := readProfile(t, "bench/profiles/gpu-prodslice.json")
	dev := readProfile(t, "bench/profiles/gpu-dev.json")
	pLo, pHi := peerRange(t, 0)
	dLo, dHi := peerRange(t, 1)
	prodGPU, devGPU := gpuStageSum(t, prod), gpuStageSum(t, dev)
	steady := prod.Derived.SteadyWallPerIntegration
	season, err := profile.EstimateSeason(prod, profile.Season{NAnt: 350, NSrc: 1_000_000, NFreq: 1024, NTimes: 4000},
		profile.SeasonOptions{TaskTime: 4 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// matvis's range over the same integrations, in days.
	days := func(s float64) float64 { return s * float64(season.Integrations()) / 86400 }
	ds := prod.Derived.FloorDatasheet
	if ds == nil || prod.Derived.FloorMeasured == nil {
		t.Fatal("the H200 prodslice profile has no floors")
	}
	in := prod.Integrations
	first := prod.PerIntegration[0].Wall
	beamGrid := prod.Memory.Plan.Term("beam_grid")
	cpuProd := readProfile(t, "bench/profiles/cpu-prodslice.json")
	gb := func(b int64) float64 { return float64(b) / 1e9 }
	dm := prod.Memory.Device
	if dm == nil {
		t.Fatal("the H200 prodslice profile has no device memory")
	}
	share, least := gridShares(t, cpuProd)
	res := text(t, "bench/RESULTS.md")
	resident := func(row string) (wall, gpu float64) {
		t.Helper()
		m := regexp.MustCompile(regexp.QuoteMeta("| "+row+" | ") + `([0-9.]+) / ([0-9.]+) ms \| \*\*`).FindStringSubmatch(res)
		if m == nil {
			t.Fatalf("bench/RESULTS.md: no device-resident row %q", row)
		}
		wall, _ = strconv.ParseFloat(m[1], 64)
		gpu, _ = strconv.ParseFloat(m[2], 64)
		return wall, gpu
	}
	chWall, chGPU := resident("prodslice 32 × 2")
	stWall, stGPU := resident("prodslice 1 × 32, `--stokes`")
	claims := []claim{
		{"docs/performance.md", fmt.Sprintf("is %.3g ms for prodslice over 32 channels × 2 times and %.3g ms for a full-Stokes sky", chWall, stWall), "channels"},
		{"README.md", fmt.Sprintf("| prodslice 32 × 2 | 395 ms | %.3g ms | %.3g ms |", chWall, chGPU), "resident table"},
		{"README.md", fmt.Sprintf("| prodslice, full Stokes (pyuvsim's rotation and basis), 1 × 32 | 76.2 ms | %.3g ms | %.3g ms |", stWall, stGPU), "resident table"},
		{"docs/performance.md", fmt.Sprintf("it is %.1f %% of the total with one chunk of all 10⁶ sources", share[1]), "memory curve"},
		{"docs/performance.md", fmt.Sprintf("to %.1f %% at %d chunks of %s sources, where the total is least (%.3f GB)", least.share, least.nchunks, thousands(int64(least.perChunk)), least.total/1e9), "memory curve"},
		{"docs/performance.md", fmt.Sprintf("falls again (%.1f %% at 1000 chunks)", share[1000]), "memory curve"},
		{"README.md", fmt.Sprintf("| model total at %d chunks (of which raw beam grids) | **%.3f GB** (%.3f GB) |", prod.Memory.Plan.NChunks, gb(prod.Memory.Plan.Total), gb(beamGrid)), "memory table"},
		{"README.md", fmt.Sprintf("its own allocations %.3f GB; bench/profiles/gpu-prodslice.json, `memory.device`) | %.3f GB |", gb(dm.AllocatedPeakBytes), gb(dm.UsedPeakBytes)), "memory table"},
		{"README.md", fmt.Sprintf("CPU accounting %.3f GB; bench/profiles/cpu-prodslice.json; process max RSS 1.40 GB, bench/RESULTS.md) | %.3f GB |", gb(cpuProd.Memory.HostTotalBytes), gb(cpuProd.Memory.MeasuredPeakHeapBytes)), "memory table"},
		{"README.md", fmt.Sprintf("| %.3f–%.3f s | %.3g ms | %.1f–%.1f× faster |", pLo, pHi, prodGPU*1e3, pLo/prodGPU, pHi/prodGPU), "prodslice row"},
		{"README.md", fmt.Sprintf("| %.3g–%.3g ms | %.3g ms | %.1f–%.1f× faster |", dLo*1e3, dHi*1e3, devGPU*1e3, dLo/devGPU, dHi/devGPU), "dev row"},
		{"README.md", fmt.Sprintf("%.3g ms steady wall per integration, %.0f %% of its GPU time the Gram product", steady*1e3, 100*season.MatProdShare), "figure caption"},
		{"README.md", fmt.Sprintf("is %.3g ms at prodslice: the steady wall of %.3g ms per integration reaches %.0f %% of the attainable speed", ds.PerIntegration*1e3, steady*1e3, 100*ds.FractionAchieved), "floor"},
		{"docs/scale.md", fmt.Sprintf("(%.1f GPU-hours at 350 antennas", season.DeviceHours), "season"},
		{"docs/scale.md", fmt.Sprintf("| 350 antennas | %.3g ms | %.1f (", season.PerIntegration*1e3, season.DeviceHours), "season table"},
		{"docs/scale.md", fmt.Sprintf("at %.2f ms per integration", steady*1e3), "season profile"},
		{"docs/scale.md", fmt.Sprintf("%.0f–%.0f days for matvis (the same %s integrations at its %.3f–%.3f s", days(pLo), days(pHi),
			thousands(season.Integrations()), pLo, pHi), "matvis season"},
		{"docs/performance.md", fmt.Sprintf("at 350 antennas is %.1f GPU-hours, %d array tasks of at most 4 hours", season.DeviceHours, season.Tasks), "season"},
		{"docs/performance.md", fmt.Sprintf("takes %.3g ms of GPU time per integration", prodGPU*1e3), "gomatvis vs matvis"},
		{"docs/performance.md", fmt.Sprintf("%.1f–%.1f× less", pLo/prodGPU, pHi/prodGPU), "ratio"},
		{"docs/performance.md", fmt.Sprintf("is %.3f–%.3f s (its own CUDA events", pLo, pHi), "matvis"},
		{"docs/performance.md", fmt.Sprintf("the first integration's wall is %.3g ms", first*1e3), "first integration"},
		{"docs/performance.md", fmt.Sprintf("the mean is %.3g ms, the median %.3g ms, the standard deviation %.2g ms", in.Mean*1e3, in.Median*1e3, in.Std*1e3), "mean, median, std"},
		{"docs/performance.md", fmt.Sprintf("is large (%.0f ms) beside the steady %.3g ms", prod.Derived.RunWallPerIntegration*1e3, steady*1e3), "run wall"},
		{"docs/performance.md", fmt.Sprintf("the GPU was busy %.0f %% of this short run's wall", 100**prod.Derived.GPUBusyFraction), "busy"},
		{"docs/performance.md", fmt.Sprintf("%.3f GB at prodslice", float64(beamGrid)/1e9), "beam grid"},
		{"docs/performance.md", "at about half the datasheet's split-FP16 rate", "matprod fraction"},
	}
	// "about half": the product's fraction of its datasheet floor.
	for _, s := range ds.Stages {
		if s.Stage == "matprod" && (s.Fraction < 0.4 || s.Fraction > 0.6) {
			t.Errorf("the guide says the product runs at about half its datasheet rate; the profile says %.0f %%", 100*s.Fraction)
		}
	}
	for _, c := range claims {
		if !strings.Contains(text(t, c.page), c.phrase) {
			t.Errorf("%s (%s) does not say %q", c.page, c.source, c.phrase)
		}
	}
	// The numbers these replaced contradicted the profiles.
	for _, gone := range []claim{
		{"README.md", "26 ms per integration", "figure caption"},
		{"README.md", "three quarters of it the Gram product", "figure caption"},
		{"docs/scale.md", "weeks of one H200", "intro"},
	} {
		if strings.Contains(text(t, gone.page), gone.phrase) {
			t.Errorf("%s (%s) still says %q", gone.page, gone.source, gone.phrase)
		}
	}
}

// thousands writes n in groups of three digits separated by spaces
// ("4 096 000"), as the pages do.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// curvePoint is the memory curve's point of least total.
type curvePoint struct {
	nchunks, perChunk int
	total, share      float64
}

// gridShares is the raw beam grids' share (%) of the memory model's total
// at each chunk count of rep's curve, and the point of least total.
func gridShares(t *testing.T, rep *profile.Report) (map[int]float64, curvePoint) {
	t.Helper()
	out := map[int]float64{}
	var least curvePoint
	for _, p := range rep.Memory.Curve {
		var total, grid float64
		for _, term := range p.Terms {
			total += float64(term.Bytes)
			if term.Name == "beam_grid" {
				grid = float64(term.Bytes)
			}
		}
		out[p.NChunks] = 100 * grid / total
		if least.total == 0 || total < least.total {
			least = curvePoint{p.NChunks, p.SourcesPerChunk, total, 100 * grid / total}
		}
	}
	if len(out) == 0 {
		t.Fatal("no memory curve")
	}
	return out, least
}
