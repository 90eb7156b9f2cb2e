package output_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/profile"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
	"github.com/gomatvis/gomatvis/npy"
	"github.com/gomatvis/gomatvis/uvh5"
)

// randomRun draws a small random simulation in pyuvsim's conventions (so
// that every format can hold it): 2–15 antennas (up to 120 baselines, over fillRows' tile of 64), 1–5 channels, 1–5 times.
func randomRun(t *testing.T, rng *rand.Rand, precision int, polarized bool) (*matvis.Simulation, *matvis.Observation) {
	t.Helper()
	sh := backendtest.Shape{NAnt: 2 + rng.IntN(14), NSrc: 40, NFreq: 1 + rng.IntN(5), NTime: 1 + rng.IntN(5)}
	c := backendtest.Random(t, rng, sh, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: precision, Polarized: polarized})
	for ti := range sh.NTime {
		c.Times = append(c.Times, 2459845.25+float64(ti)*0.001)
	}
	obs := matvis.DefaultObservation(sh.NAnt, c.Options)
	if err := obs.Validate(sh.NAnt, sh.NTime, sh.NFreq); err != nil {
		t.Fatal(err)
	}
	obs.UseConventions(&c)
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim, obs
}

// format is one output format: how to open its streamed writer, and the
// twin that writes a whole Result the plain way.
type format struct {
	ext   string
	open  func(path string, sim *matvis.Simulation, obs *matvis.Observation) (output.BlockWriter, error)
	whole func(path string, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result) error
}

func formats() []format {
	return []format{
		{".npy", func(p string, sim *matvis.Simulation, _ *matvis.Observation) (output.BlockWriter, error) {
			return output.NewNPY(p, sim, "", nil)
		}, func(p string, _ *matvis.Simulation, _ *matvis.Observation, res *matvis.Result) error {
			return npy.WriteFileAtomic(p, res.Shape, res.Data())
		}},
		{".uvh5", func(p string, sim *matvis.Simulation, obs *matvis.Observation) (output.BlockWriter, error) {
			return output.NewUVH5(p, sim, obs)
		}, wholeUVH5},
		{".uvfits", func(p string, sim *matvis.Simulation, obs *matvis.Observation) (output.BlockWriter, error) {
			return output.NewUVFITS(p, sim, obs)
		}, func(p string, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result) error {
			// UVFITS's header needs uvdata's; the whole result goes in as one block.
			w, err := uvdata.CreateUVFITS(p, sim, obs)
			if err != nil {
				return err
			}
			if err := w.WriteTimes(0, res); err != nil {
				w.Abort()
				return err
			}
			return w.Close()
		}},
	}
}

// wholeUVH5 is the plain twin of the streamed UVH5: every row laid out
// from Result.At and written in one uvh5.WriteFile.
func wholeUVH5(path string, sim *matvis.Simulation, obs *matvis.Observation, res *matvis.Result) error {
	h, err := uvdata.Header(sim, obs)
	if err != nil {
		return err
	}
	var vis []complex128
	for ti := range sim.NTime() {
		for k := range obs.Baselines {
			for fi := range sim.NFreq() {
				for _, p := range obs.Pols {
					a, b := matvis.PolIndex(p, sim.Options.Polarized)
					vis = append(vis, res.At(fi, ti, k, a, b))
				}
			}
		}
	}
	return uvh5.WriteFile(path, h, vis)
}

// poisoning runs its backend on storage first filled with NaN: the
// buffers Run reuses from block to block must be written (or cleared)
// wherever a block's output lies.
type poisoning struct{ matvis.Backend }

func (p poisoning) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	r := matvis.NewResult(sim) // the same storage the backend's NewResult gets
	for i := range r.Vis128 {
		r.Vis128[i] = cmplx.NaN()
	}
	for i := range r.Vis64 {
		r.Vis64[i] = complex64(cmplx.NaN())
	}
	return p.Backend.Run(ctx, sim)
}

// blockSizes are the BlockBytes of the cases: one integration (channel
// splits), a random part of a time, one time, a random number of times,
// everything.
func blockSizes(rng *rand.Rand, sim *matvis.Simulation) map[string]int64 {
	per := output.IntegrationBytes(sim)
	nf, nt := int64(sim.NFreq()), int64(sim.NTime())
	return map[string]int64{
		"one integration": per,
		"part of a time":  per * (1 + rng.Int64N(nf)),
		"one time":        per * nf,
		"some times":      per * nf * (1 + rng.Int64N(nt)),
		"everything":      per * nf * nt,
	}
}

// TestStreamedEqualsWhole: for every format, precision and feed mode, a
// run streamed in blocks of every shape writes the bytes that the whole
// Result written the plain way gives, on fresh random simulations.
func TestStreamedEqualsWhole(t *testing.T) {
	rng := backendtest.NewRNG(t, 1)
	for _, prec := range []int{1, 2} {
		for _, pol := range []bool{false, true} {
			sim, obs := randomRun(t, rng, prec, pol)
			whole, err := cpu.New().Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range formats() {
				dir := t.TempDir()
				want := filepath.Join(dir, "whole"+f.ext)
				if err := f.whole(want, sim, obs, whole); err != nil {
					t.Fatal(err)
				}
				wantBytes, err := os.ReadFile(want)
				if err != nil {
					t.Fatal(err)
				}
				for name, bb := range blockSizes(rng, sim) {
					name := fmt.Sprintf("%s fp%d pol=%v %s (%d×%d)", f.ext, 32*prec, pol, name, sim.NFreq(), sim.NTime())
					got := filepath.Join(dir, "streamed"+f.ext)
					// A stale file at the path must be replaced whole.
					if err := os.WriteFile(got, bytes.Repeat([]byte{0xff}, len(wantBytes)+100), 0o644); err != nil {
						t.Fatal(err)
					}
					w, err := f.open(got, sim, obs)
					if err != nil {
						t.Fatal(err)
					}
					sum, err := output.Run(context.Background(), poisoning{cpu.New()}, sim, w, output.Options{BlockBytes: bb})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if n := len(output.Plan(sim.NFreq(), sim.NTime(), output.IntegrationBytes(sim), bb)); sum.Blocks != n {
						t.Errorf("%s: %d blocks, the plan has %d", name, sum.Blocks, n)
					}
					// The writer was given every integration once.
					if want := output.IntegrationBytes(sim) * int64(sim.NFreq()*sim.NTime()); sum.Written != want || sum.Writing <= 0 {
						t.Errorf("%s: the writer wrote %d bytes in %v, want %d bytes in some time", name, sum.Written, sum.Writing, want)
					}
					b, err := os.ReadFile(got)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(b, wantBytes) {
						t.Errorf("%s: the streamed file (%d B) differs from the whole result's (%d B)", name, len(b), len(wantBytes))
					}
				}
			}
		}
	}
}

// cancelling runs its backend with the run's context cancelled once the
// run has finished after integrations in all.
type cancelling struct {
	matvis.Backend
	cancel context.CancelFunc
	after  int
	n      int
}

func (c *cancelling) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	if c.n >= c.after {
		c.cancel()
	}
	inner := sim.Options.Progress
	sim.Options.Progress = func(p matvis.Progress) {
		c.n++
		if c.n >= c.after {
			c.cancel()
		}
		if inner != nil {
			inner(p)
		}
	}
	return c.Backend.Run(ctx, sim)
}

// TestCancelKeepsFinished: a run cancelled after k integrations (k from 0
// to all but one), for every format, keeps exactly the integrations the
// backend finished, equal to the whole run's, the others NaN (npy) or
// flagged (UVH5), says so, and writes nothing at the output's own path;
// with nothing finished it writes no file.
func TestCancelKeepsFinished(t *testing.T) {
	rng := backendtest.NewRNG(t, 2)
	sim, obs := randomRun(t, rng, 2, false)
	for sim.NFreq()*sim.NTime() < 4 {
		sim, obs = randomRun(t, rng, 2, false)
	}
	whole, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	total := sim.NFreq() * sim.NTime()
	per := output.IntegrationBytes(sim)
	for _, f := range formats()[:2] {
		for _, after := range []int{0, 1, total / 2, total - 1} {
			for _, bb := range []int64{per, per * int64(sim.NFreq())} {
				name := fmt.Sprintf("%s after %d of %d, blocks of %d B", f.ext, after, total, bb)
				dir := t.TempDir()
				path := filepath.Join(dir, "v"+f.ext)
				w, err := f.open(path, sim, obs)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				be := &cancelling{Backend: cpu.New(), cancel: cancel, after: after}
				// What the backend finishes before it sees the cancellation
				// is its own: the partial file is checked against the whole
				// run, and what Kept says against the file.
				sum, err := output.Run(ctx, be, sim, w, output.Options{BlockBytes: bb})
				cancel()
				if !errors.Is(err, context.Canceled) || sum.Kept == nil {
					t.Fatalf("%s: err %v, kept %v; want context.Canceled and what was kept", name, err, sum.Kept)
				}
				if _, err := os.Stat(path); err == nil {
					t.Fatalf("%s: a cancelled run wrote %s", name, path)
				}
				checkPartial(t, name, f.ext, sim, obs, whole, *sum.Kept, output.PartialPath(path))
			}
		}
	}
}

// checkPartial reads a partial file back: every integration is the whole
// run's (finished) or NaN / flagged (not), and Kept counts the finished.
func checkPartial(t *testing.T, name, ext string, sim *matvis.Simulation, obs *matvis.Observation, whole *matvis.Result, kept output.Kept, path string) {
	t.Helper()
	if kept.Integrations == 0 {
		if kept.Path != "" || kept.String() != "nothing finished: no file written" {
			t.Errorf("%s: nothing kept, but %+v (%q)", name, kept, kept.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: nothing kept, but %s exists", name, path)
		}
		return
	}
	if kept.Path != path {
		t.Fatalf("%s: kept at %q, want %q", name, kept.Path, path)
	}
	nf, nt, nbl := sim.NFreq(), sim.NTime(), len(obs.Baselines)
	finished := 0
	switch ext {
	case ".npy":
		a, err := npy.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for fi := range nf {
			for ti := range nt {
				i := whole.Index(fi, ti, 0, 0, 0)
				got := a.Complex128[i : i+nbl]
				if cmplx.IsNaN(got[0]) {
					for _, v := range got {
						if !cmplx.IsNaN(v) {
							t.Fatalf("%s: integration (%d, %d) partly NaN", name, fi, ti)
						}
					}
					continue
				}
				finished++
				if !slicesEqual(got, whole.Vis128[i:i+nbl]) {
					t.Fatalf("%s: integration (%d, %d) differs from the whole run's", name, fi, ti)
				}
			}
		}
	case ".uvh5":
		u, err := uvh5.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for ti := range nt {
			for fi := range nf {
				flagged := u.Flags[(ti*nbl)*nf+fi]
				for k := range nbl {
					i := (ti*nbl+k)*nf + fi
					if u.Flags[i] != flagged || (u.Nsamples[i] == 0) != flagged {
						t.Fatalf("%s: integration (%d, %d) partly flagged", name, fi, ti)
					}
					if !flagged && u.Vis[i] != whole.At(fi, ti, k, 0, 0) {
						t.Fatalf("%s: integration (%d, %d) baseline %d differs from the whole run's", name, fi, ti, k)
					}
				}
				if !flagged {
					finished++
				}
			}
		}
	}
	if kept.Integrations != finished || kept.TotalIntegrations != nf*nt {
		t.Errorf("%s: kept says %d of %d integrations, the file holds %d of %d", name, kept.Integrations, kept.TotalIntegrations, finished, nf*nt)
	}
}

func slicesEqual(a, b []complex128) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// failing is a BlockWriter whose WriteBlock fails from the nth block on,
// after its file was partly written.
type failing struct {
	output.BlockWriter
	n int
}

var errDisk = errors.New("disk full (injected)")

func (f *failing) WriteBlock(b matvis.Block, res *matvis.Result) error {
	if f.n--; f.n < 0 {
		return errDisk
	}
	return f.BlockWriter.WriteBlock(b, res)
}

// TestWriterErrorAborts: a writer that fails in any block ends the run
// with its error and leaves no file, partial or temporary, for every format.
func TestWriterErrorAborts(t *testing.T) {
	rng := backendtest.NewRNG(t, 3)
	sim, obs := randomRun(t, rng, 1, true)
	per := output.IntegrationBytes(sim)
	nblocks := len(output.Plan(sim.NFreq(), sim.NTime(), per, per))
	for _, f := range formats() {
		for _, n := range []int{0, nblocks / 2, nblocks - 1} {
			dir := t.TempDir()
			w, err := f.open(filepath.Join(dir, "v"+f.ext), sim, obs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = output.Run(context.Background(), cpu.New(), sim, &failing{w, n}, output.Options{BlockBytes: per})
			if !errors.Is(err, errDisk) {
				t.Errorf("%s failing at block %d: %v, want the writer's error", f.ext, n, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%s failing at block %d: left %v", f.ext, n, left)
			}
		}
	}
}

// TestPlan: the blocks cover the grid once, time-major, each within the
// budget (but for one integration over it), as even as the split allows;
// the expected splits are worked out by hand.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		nf, nt       int
		per, max     int64
		blocks       int
		first        matvis.Block
		largestBytes int64
	}{
		// 256 channels × 4 times of 983 kB (350 antennas, fp64) in 128 MiB:
		// 136 integrations fit, a time does not: two ranges of 128 channels.
		{256, 4, 982800, 128 << 20, 8, matvis.Block{F0: 0, F1: 128, T0: 0, T1: 1}, 128 * 982800},
		// A time of 5 channels at 4 B is 20 B: three fit in 60 B, and 7
		// times split evenly into 3 blocks are 2, 2 and 3 times.
		{5, 7, 4, 60, 3, matvis.Block{F0: 0, F1: 5, T0: 0, T1: 2}, 60},
		// Five fit in 100 B: 2 blocks, of 3 and 4 times.
		{5, 7, 4, 100, 2, matvis.Block{F0: 0, F1: 5, T0: 0, T1: 3}, 80},
		// Everything fits.
		{3, 2, 10, 1000, 1, matvis.Block{F0: 0, F1: 3, T0: 0, T1: 2}, 60},
		// 10 channels, 3 fit: 4 ranges of 2, 3, 2 and 3 channels per time.
		{10, 2, 1, 3, 8, matvis.Block{F0: 0, F1: 2, T0: 0, T1: 1}, 3},
		// One integration over the budget is a block of its own.
		{2, 2, 50, 10, 4, matvis.Block{F0: 0, F1: 1, T0: 0, T1: 1}, 50},
	} {
		blocks := output.Plan(c.nf, c.nt, c.per, c.max)
		name := fmt.Sprintf("%d×%d of %d B in %d B", c.nf, c.nt, c.per, c.max)
		if len(blocks) != c.blocks || blocks[0] != c.first {
			t.Errorf("%s: %d blocks, first %v; want %d, %v", name, len(blocks), blocks[0], c.blocks, c.first)
		}
		seen := make([]int, c.nf*c.nt)
		lastT := 0
		var largest int64
		for _, b := range blocks {
			bytes := int64(b.Size()) * c.per
			largest = max(largest, bytes)
			if bytes > c.max && b.Size() > 1 {
				t.Errorf("%s: %v holds %d B", name, b, bytes)
			}
			if b.T0 < lastT {
				t.Errorf("%s: %v after time %d: not time-major", name, b, lastT)
			}
			lastT = b.T0
			for f := b.F0; f < b.F1; f++ {
				for tt := b.T0; tt < b.T1; tt++ {
					seen[f*c.nt+tt]++
				}
			}
		}
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("%s: integration %d in %d blocks", name, i, n)
			}
		}
		if largest != c.largestBytes {
			t.Errorf("%s: largest block %d B, want %d", name, largest, c.largestBytes)
		}
	}
}

// TestKeptString: the messages say exactly what was kept.
func TestKeptString(t *testing.T) {
	for _, c := range []struct {
		k    output.Kept
		want string
	}{
		{output.Kept{}, "nothing finished: no file written"},
		{output.Kept{Integrations: 3, TotalIntegrations: 8, Missing: "a part is kept only whole"},
			"3 of 8 integrations finished, none kept (a part is kept only whole)"},
		{output.Kept{Path: "p.npy", Integrations: 119, TotalIntegrations: 144, Times: 9, TotalTimes: 12, Missing: "unfinished ones are NaN"},
			"119 of 144 integrations finished, saved to p.npy (unfinished ones are NaN)"},
		{output.Kept{Path: "p.uvh5", Integrations: 120, TotalIntegrations: 200, Times: 12, TotalTimes: 20, ByTime: true, Missing: "the others flagged"},
			"12 of 20 times finished, saved to p.uvh5 (the others flagged)"},
		{output.Kept{Path: "p.uvh5", Integrations: 125, TotalIntegrations: 200, Times: 12, TotalTimes: 20, ByTime: true, Missing: "the others flagged"},
			"12 of 20 times finished (125 of 200 integrations), saved to p.uvh5 (the others flagged)"},
	} {
		if got := c.k.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.k, got, c.want)
		}
	}
}

// TestBuffersSizedFirst: a streamed simulation (New counted no output)
// whose two blocks do not fit its max_memory is refused before anything
// is allocated or computed, with the memory error's numbers, and its
// file discarded.
func TestBuffersSizedFirst(t *testing.T) {
	rng := backendtest.NewRNG(t, 4)
	sh := backendtest.Shape{NAnt: 30, NSrc: 20, NFreq: 3, NTime: 2}
	c := backendtest.Random(t, rng, sh, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: 2, OutputStreamed: true})
	probe, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	// Room for the run's other memory and one integration, not two.
	per := output.IntegrationBytes(probe)
	c.Options.MaxMemory = int64(float64(matvis.Total(probe.HostBytes())+per+per/2) / 0.9)
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatalf("New of a streamed run under its budget: %v", err)
	}
	dir := t.TempDir()
	w, err := output.NewNPY(filepath.Join(dir, "v.npy"), sim, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	be := &cancelling{Backend: cpu.New(), cancel: func() {}, after: 1 << 30}
	_, err = output.Run(context.Background(), be, sim, w, output.Options{BlockBytes: per})
	if !errors.Is(err, matvis.ErrTooLarge) {
		t.Fatalf("two blocks over the budget: %v, want ErrTooLarge", err)
	}
	if be.n != 0 {
		t.Errorf("%d integrations computed before the refusal", be.n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

// sizer is a backend asking for blocks of n bytes.
type sizer struct {
	matvis.Backend
	n int64
}

func (s sizer) BlockBytes() int64 { return s.n }

// TestBlockBudgetFor: a BlockSizer's blocks grow past DefaultBlockBytes
// to what it asks for when the budget leaves three of them, never past
// a third of the budget (two held, one of slack), and never below
// DefaultBlockBytes; other backends get BlockBudget's.
func TestBlockBudgetFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sim, _ := randomRun(t, rng, 1, false)
	cpuBE := cpu.New()
	const mb = 1 << 20
	for _, tc := range []struct {
		name   string
		budget int64 // MaxMemory
		be     matvis.Backend
		want   func(usable int64) int64
	}{
		{"plain backend, room", 64 << 30, cpuBE, func(int64) int64 { return output.DefaultBlockBytes }},
		{"sizer, room", 64 << 30, sizer{cpuBE, 256 * mb}, func(int64) int64 { return 256 * mb }},
		{"sizer below the default", 64 << 30, sizer{cpuBE, 8 * mb}, func(int64) int64 { return output.DefaultBlockBytes }},
		{"sizer, a third of the budget", 600 * mb, sizer{cpuBE, 256 * mb}, func(u int64) int64 { return u / 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := *sim
			s.Options.MaxMemory = tc.budget
			usable := int64(float64(tc.budget) * s.Options.MemoryBuffer)
			for _, term := range s.HostBytes() {
				if term.Name != "output" {
					usable -= term.Bytes
				}
			}
			if got, want := output.BlockBudgetFor(&s, tc.be), tc.want(usable); got != want {
				t.Errorf("budget %d: %d bytes, want %d", tc.budget, got, want)
			}
			if got, want := output.BlockBudgetFor(&s, cpuBE), output.BlockBudget(&s); got != want {
				t.Errorf("plain backend %d, BlockBudget %d", got, want)
			}
		})
	}
}

// TestOpenAsyncEqualsOpen: a writer opened while the first block computes
// (slowly: the open waits 30 ms) writes the bytes of the same run with
// the writer opened first, for every format, in blocks of one
// integration and of the whole run; the npy's sidecar summary is handed
// on.
func TestOpenAsyncEqualsOpen(t *testing.T) {
	rng := backendtest.NewRNG(t, 5)
	sim, obs := randomRun(t, rng, 2, true)
	per := output.IntegrationBytes(sim)
	for _, f := range formats() {
		for _, bb := range []int64{per, per * int64(sim.NFreq()*sim.NTime())} {
			dir := t.TempDir()
			want, got := filepath.Join(dir, "sync"+f.ext), filepath.Join(dir, "async"+f.ext)
			w, err := f.open(want, sim, obs)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := output.Run(context.Background(), cpu.New(), sim, w, output.Options{BlockBytes: bb}); err != nil {
				t.Fatal(err)
			}
			aw := output.OpenAsync(func() (output.BlockWriter, error) {
				time.Sleep(30 * time.Millisecond)
				return f.open(got, sim, obs)
			})
			if _, err := output.Run(context.Background(), poisoning{cpu.New()}, sim, aw, output.Options{BlockBytes: bb}); err != nil {
				t.Fatalf("%s, blocks of %d B: %v", f.ext, bb, err)
			}
			a, errA := os.ReadFile(want)
			b, errB := os.ReadFile(got)
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s, blocks of %d B: opened while computing, %d B (%v); opened first, %d B (%v)", f.ext, bb, len(b), errB, len(a), errA)
			}
		}
	}
}

// TestOpenAsyncFailure: a writer whose open fails ends the run with the
// open's error, the compute stopped (the backend sees its context
// cancelled), and no file left; a cancelled run whose writer never
// opened keeps nothing.
func TestOpenAsyncFailure(t *testing.T) {
	rng := backendtest.NewRNG(t, 6)
	// Nine blocks of one integration: the compute must stop well before
	// the last.
	sim := backendtest.NewSim(t, backendtest.Random(t, rng, backendtest.Shape{NAnt: 3, NSrc: 20, NFreq: 3, NTime: 3},
		backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{}))
	per := output.IntegrationBytes(sim)
	dir := t.TempDir()
	errOpen := errors.New("cannot create the file (injected)")
	aw := output.OpenAsync(func() (output.BlockWriter, error) { return nil, errOpen })
	be := &watching{Backend: cpu.New()}
	_, err := output.Run(context.Background(), be, sim, aw, output.Options{BlockBytes: per})
	if !errors.Is(err, errOpen) {
		t.Fatalf("run: %v, want the open's error", err)
	}
	// The first block, the one computing when the writer failed and the
	// next are expected; 5 leaves room for a descheduled writer.
	if n := be.runs.Load(); n > 5 {
		t.Errorf("%d of 9 blocks computed after the open failed, want the run stopped within a few", n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
	if k, err := aw.ClosePartial(); err != nil || k.Path != "" {
		t.Errorf("ClosePartial of a writer never opened: %+v, %v", k, err)
	}
	if err := aw.Abort(); err != nil {
		t.Errorf("Abort of a writer never opened: %v", err)
	}
}

// watching counts its backend's runs and waits a little in each, so that
// a writer's error can arrive before the run ends.
type watching struct {
	matvis.Backend
	runs atomic.Int32
}

func (w *watching) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	w.runs.Add(1)
	select {
	case <-time.After(20 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return w.Backend.Run(ctx, sim)
}

// recording runs its backend and keeps what each block's run measured,
// in run order (Plan's order of the blocks: Run runs one at a time).
type recording struct {
	matvis.Backend
	blocks []matvis.Stats
}

func (r *recording) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	res, err := r.Backend.Run(ctx, sim)
	if res != nil {
		r.blocks = append(r.blocks, res.Stats)
	}
	return res, err
}

// TestSummaryStatsGridOrder: a run streamed in blocks reports every
// integration's time at its grid index (frequency-major) and every
// chunk labelled with its grid frequency and time, as the blocks' own
// runs measured them; a run of more integrations than the summary keeps
// keeps every Stride-th, and its chunk time is the sum over all.
func TestSummaryStatsGridOrder(t *testing.T) {
	rng := backendtest.NewRNG(t, 7)
	for _, sh := range []backendtest.Shape{
		{NAnt: 3, NSrc: 30, NFreq: 5, NTime: 4},
		{NAnt: 2, NSrc: 2, NFreq: 160, NTime: 120}, // 19 200 integrations: a sample
	} {
		c := backendtest.Random(t, rng, sh, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{})
		sim := backendtest.NewSim(t, c)
		per := output.IntegrationBytes(sim)
		bb := per * int64(1+rng.IntN(sh.NFreq*2))
		be := &recording{Backend: cpu.New()}
		sum, err := output.Run(context.Background(), be, sim, output.NewCollector(sim), output.Options{BlockBytes: bb})
		if err != nil {
			t.Fatal(err)
		}
		nint := sh.NFreq * sh.NTime
		stride := 1
		if sum.Stats.Sampled != nil {
			stride = sum.Stats.Sampled.Stride
		}
		if want := (nint + 16383) / 16384; stride != want {
			t.Fatalf("%d integrations kept every %d-th, want %d", nint, stride, want)
		}
		if len(be.blocks) != sum.Blocks || len(sum.Stats.Integrations) != (nint+stride-1)/stride {
			t.Fatalf("%d blocks run of %d; %d integration times for %d / %d", len(be.blocks), sum.Blocks, len(sum.Stats.Integrations), nint, stride)
		}
		// The blocks in run order are Plan's: place each block's own times.
		plan := output.Plan(sim.NFreq(), sim.NTime(), per, bb)
		want := make([]time.Duration, nint)
		var all time.Duration
		wantChunks := map[[2]int]int{}
		for k, rb := range be.blocks {
			b := plan[k]
			for j, w := range rb.Integrations {
				want[(b.F0+j/b.NTime())*sh.NTime+b.T0+j%b.NTime()] = w
			}
			for _, ch := range rb.Chunks {
				all += ch.Stages.Total()
				wantChunks[[2]int{b.F0 + ch.Freq, b.T0 + ch.Time}]++
			}
		}
		for i, w := range sum.Stats.Integrations {
			if w != want[i*stride] || w <= 0 {
				t.Fatalf("integration %d of the summary (grid %d): %v, the block measured %v", i, i*stride, w, want[i*stride])
			}
		}
		got := map[[2]int]int{}
		var kept time.Duration
		for _, ch := range sum.Stats.Chunks {
			g := ch.Freq*sh.NTime + ch.Time
			if g%stride != 0 || wantChunks[[2]int{ch.Freq, ch.Time}] == 0 {
				t.Fatalf("chunk labelled (%d, %d): not a kept integration's", ch.Freq, ch.Time)
			}
			got[[2]int{ch.Freq, ch.Time}]++
			kept += ch.Stages.Total()
		}
		if len(got) != len(sum.Stats.Integrations) {
			t.Errorf("chunks of %d integrations, %d kept", len(got), len(sum.Stats.Integrations))
		}
		if f := profile.FiguresOf(&sum.Stats, 1, nint); math.Abs(f.ChunkTime-all.Seconds()) > 1e-9 {
			t.Errorf("figures' chunk time %v s, every chunk's %v s (the kept ones' %v s)", f.ChunkTime, all.Seconds(), kept.Seconds())
		}
	}
}

// slowLast is a BlockWriter that takes at least delay over its last
// block's write.
type slowLast struct {
	output.BlockWriter
	left  int
	delay time.Duration
}

func (s *slowLast) WriteBlock(b matvis.Block, res *matvis.Result) error {
	if s.left--; s.left == 0 {
		time.Sleep(s.delay)
	}
	return s.BlockWriter.WriteBlock(b, res)
}

// TestLastWriteCountsAsWaiting: the run waits for the writer to finish
// its last block after the compute ends, and that wait is the writer's
// (WriteWait, which the CLI's phases count as writing), not the
// compute's. Only a lower bound is checked: it holds on a loaded machine.
func TestLastWriteCountsAsWaiting(t *testing.T) {
	rng := backendtest.NewRNG(t, 11)
	sim, _ := randomRun(t, rng, 1, true)
	per := output.IntegrationBytes(sim)
	for _, bb := range []int64{per, 1 << 40} { // many blocks; one
		nblocks := len(output.Plan(sim.NFreq(), sim.NTime(), per, bb))
		const delay = 50 * time.Millisecond
		w := &slowLast{BlockWriter: output.NewCollector(sim), left: nblocks, delay: delay}
		sum, err := output.Run(context.Background(), cpu.New(), sim, w, output.Options{BlockBytes: bb})
		if err != nil {
			t.Fatal(err)
		}
		if sum.WriteWait < delay {
			t.Errorf("%d blocks: waited %v for the writer, whose last block took %v or more", nblocks, sum.WriteWait, delay)
		}
	}
}

// zeroChecking fails a block whose storage is not zero before its
// backend runs (Run hands out buffers zero, as new ones are:
// Simulation.SubsetZeroed), then runs it.
type zeroChecking struct {
	matvis.Backend
	blocks  *int
	storage map[any]bool // the first value's address of each block's storage
}

func (z zeroChecking) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	*z.blocks++
	r := matvis.NewResult(sim) // the storage the backend's NewResult gets
	if len(r.Vis64) > 0 {
		z.storage[&r.Vis64[0]] = true
	}
	if len(r.Vis128) > 0 {
		z.storage[&r.Vis128[0]] = true
	}
	for i, v := range r.Vis64 {
		if v != 0 {
			return nil, fmt.Errorf("block %d: value %d of its buffer is %v before the run, want 0", *z.blocks, i, v)
		}
	}
	for i, v := range r.Vis128 {
		if v != 0 {
			return nil, fmt.Errorf("block %d: value %d of its buffer is %v before the run, want 0", *z.blocks, i, v)
		}
	}
	return z.Backend.Run(ctx, sim)
}

// TestBlockBuffersHandedOutZero: every block of a run, in blocks of
// every shape (from the third on, a buffer the writer cleared; the second
// made ahead), starts from zero storage in one of two buffers, and the streamed npy equals the whole
// result's, on fresh random simulations of both precisions.
func TestBlockBuffersHandedOutZero(t *testing.T) {
	rng := backendtest.NewRNG(t, 1)
	for _, prec := range []int{1, 2} {
		sim, _ := randomRun(t, rng, prec, rng.IntN(2) == 1)
		for sim.NFreq()*sim.NTime() < 3 { // a buffer is reused from the third block on
			sim, _ = randomRun(t, rng, prec, rng.IntN(2) == 1)
		}
		whole, err := cpu.New().Run(context.Background(), sim)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		wantPath := filepath.Join(dir, "whole.npy")
		if err := npy.WriteFileAtomic(wantPath, whole.Shape, whole.Data()); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(wantPath)
		if err != nil {
			t.Fatal(err)
		}
		for name, bb := range blockSizes(rng, sim) {
			name := fmt.Sprintf("fp%d %s (%d×%d)", 32*prec, name, sim.NFreq(), sim.NTime())
			path := filepath.Join(dir, "o.npy")
			w, err := output.NewNPY(path, sim, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			var blocks int
			storage := map[any]bool{}
			sum, err := output.Run(context.Background(), zeroChecking{cpu.New(), &blocks, storage}, sim, w, output.Options{BlockBytes: bb})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if blocks != sum.Blocks {
				t.Errorf("%s: the backend ran %d blocks, the summary says %d", name, blocks, sum.Blocks)
			}
			if len(storage) > 2 {
				t.Errorf("%s: %d blocks computed into %d buffers, want at most 2", name, blocks, len(storage))
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the streamed npy differs from the whole result's", name)
			}
		}
	}
}
