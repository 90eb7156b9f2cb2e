package multi

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// testSim is a small simulation with ERFA-free astropy-method coordinates
// over nt times, so that subsets re-index real per-time coordinates.
func testSim(t *testing.T, nf, nt int, precision int, polarized bool) *matvis.Simulation {
	t.Helper()
	return testSimMethod(t, nf, nt, precision, polarized, astro.MethodAstropy)
}

func testSimMethod(t *testing.T, nf, nt int, precision int, polarized bool, method astro.Method) *matvis.Simulation {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	nsrc, nant := 40, 5
	c := matvis.Config{}
	for a := range nant {
		c.Antennas = append(c.Antennas, [3]float64{float64(a) * 14.6, rng.Float64() * 30, 0})
	}
	for f := range nf {
		c.Freqs = append(c.Freqs, 100e6+float64(f)*1e6)
	}
	for i := range nt {
		c.Times = append(c.Times, 2459845.0+float64(i)*0.01)
	}
	for range nsrc {
		c.RA = append(c.RA, rng.Float64()*6.28)
		c.Dec = append(c.Dec, -0.53+0.6*(rng.Float64()-0.5))
		for range nf {
			c.Flux = append(c.Flux, rng.Float64()*10)
		}
	}
	rot, err := astro.New(astro.Config{Method: method, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}, TimesJD: c.Times}, c.RA, c.Dec)
	if err != nil {
		t.Fatal(err)
	}
	c.Coords = rot
	c.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.3}}
	c.Options = matvis.Options{Precision: precision, Polarized: polarized}
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

func cpus(n int) []matvis.Backend {
	bs := make([]matvis.Backend, n)
	for i := range bs {
		bs[i] = cpu.NewWith(cblas.Best(), 1)
	}
	return bs
}

func TestSubsetCoordinatesBitIdentical(t *testing.T) {
	sim := testSim(t, 3, 9, 2, false)
	sub, err := sim.Subset(matvis.Block{F0: 1, F1: 3, T0: 4, T1: 7})
	if err != nil {
		t.Fatal(err)
	}
	n := sim.NSrc()
	e1, n1, u1 := make([]float64, n), make([]float64, n), make([]float64, n)
	e2, n2, u2 := make([]float64, n), make([]float64, n), make([]float64, n)
	for ti := range 3 {
		if err := sim.Coords.ENU(4+ti, e1, n1, u1); err != nil {
			t.Fatal(err)
		}
		if err := sub.Coords.ENU(ti, e2, n2, u2); err != nil {
			t.Fatal(err)
		}
		for s := range n {
			if e1[s] != e2[s] || n1[s] != n2[s] || u1[s] != u2[s] {
				t.Fatalf("time %d source %d: ENU differs", ti, s)
			}
		}
	}
	if sub.Coords.ENU(3, e2, n2, u2) == nil {
		t.Error("time 3 of a 3-time subset: no error")
	}
	f1, f2 := make([]float64, n), make([]float64, n)
	_ = sim.FluxAt(2, f1)
	_ = sub.FluxAt(1, f2)
	for s := range n {
		if f1[s] != f2[s] {
			t.Fatalf("flux of source %d differs", s)
		}
	}
}

// TestSubsetKeepsERFARotation: a block of an ERFA-method run keeps the
// matrix and BCRS interfaces the GPU uses, shifted to the block's times.
// SubsetInto's result is the block's part of the whole result where that
// part is contiguous (one channel, or all times of its channels), and a
// result of its own otherwise; PutBlock of an in-place result copies
// nothing and marks the block done.
func TestSubsetIntoWritesInPlace(t *testing.T) {
	sim := testSim(t, 3, 6, 1, false)
	whole := matvis.NewResult(sim)
	inner := len(whole.Vis64) / (3 * 6)
	for _, c := range []struct {
		b       matvis.Block
		inPlace bool
	}{
		{matvis.Block{F0: 1, F1: 2, T0: 2, T1: 5}, true},
		{matvis.Block{F0: 0, F1: 2, T0: 0, T1: 6}, true},
		{matvis.Block{F0: 0, F1: 3, T0: 1, T1: 4}, false},
	} {
		sub, err := sim.SubsetInto(c.b, whole)
		if err != nil {
			t.Fatal(err)
		}
		r := matvis.NewResult(sub)
		at := (c.b.F0*6 + c.b.T0) * inner
		if got := &r.Vis64[0] == &whole.Vis64[at]; got != c.inPlace {
			t.Errorf("%v: in place %v, want %v", c.b, got, c.inPlace)
		}
		for i := range r.Vis64 {
			r.Vis64[i] = complex(float32(i+1), 0)
		}
		for i := range r.Done {
			r.Done[i] = true
		}
		if err := whole.PutBlock(c.b, r); err != nil {
			t.Fatal(err)
		}
		for f := c.b.F0; f < c.b.F1; f++ {
			for tt := c.b.T0; tt < c.b.T1; tt++ {
				i := ((f-c.b.F0)*c.b.NTime() + tt - c.b.T0) * inner
				if got := whole.Vis64[(f*6+tt)*inner]; got != complex(float32(i+1), 0) || !whole.Done[f*6+tt] {
					t.Fatalf("%v: integration (%d, %d) holds %v, done %v", c.b, f, tt, got, whole.Done[f*6+tt])
				}
			}
		}
	}
}

func TestSubsetKeepsERFARotation(t *testing.T) {
	sim := testSimMethod(t, 2, 9, 2, false, astro.MethodERFA)
	sub, err := sim.Subset(matvis.Block{F0: 0, F1: 2, T0: 3, T1: 8})
	if err != nil {
		t.Fatal(err)
	}
	full := sim.Coords.(astro.BCRSRotation)
	part, ok := sub.Coords.(astro.BCRSRotation)
	if !ok {
		t.Fatalf("the block's coordinates %T lost astro.BCRSRotation", sub.Coords)
	}
	for ti := range 5 {
		m1, err1 := full.Matrix(3 + ti)
		m2, err2 := part.Matrix(ti)
		p1, _ := full.BCRSParams(3 + ti)
		p2, _ := part.BCRSParams(ti)
		x1, _, _, _ := full.CachedVectors(3 + ti)
		x2, _, _, _ := part.CachedVectors(ti)
		if err1 != nil || err2 != nil || m1 != m2 || p1 != p2 || &x1[0] != &x2[0] {
			t.Fatalf("time %d of the block differs from time %d of the run", ti, 3+ti)
		}
	}
	if _, err := part.Matrix(5); err == nil {
		t.Error("Matrix(5) of a 5-time block: no error")
	}
	if _, err := part.BCRSParams(-1); err == nil {
		t.Error("BCRSParams(-1): no error")
	}
	if _, ok := testSim(t, 1, 3, 2, false).Coords.(astro.MatrixRotation); ok {
		t.Skip("the astropy method is a MatrixRotation too; nothing more to check")
	}
	sub2, _ := testSim(t, 1, 3, 2, false).Subset(matvis.Block{F0: 0, F1: 1, T0: 1, T1: 3})
	if _, ok := sub2.Coords.(astro.MatrixRotation); ok {
		t.Error("a block of a non-matrix rotation claims astro.MatrixRotation")
	}
}

func TestMultiMatchesOneBackend(t *testing.T) {
	for _, c := range []struct {
		name             string
		nf, nt, prec     int
		pol              bool
		backends, blocks int
	}{
		{"fp64 2 backends", 3, 7, 2, false, 2, 0},
		{"fp32 pol 3 backends", 2, 5, 1, true, 3, 0},
		{"freq blocks", 4, 2, 2, true, 2, 7},
		{"one backend", 2, 3, 2, false, 1, 1},
		{"erfa fp64 3 backends", 3, 7, 2, false, 3, 0},
		{"one channel: blocks written in place", 1, 9, 1, true, 2, 0},
		{"one channel fp64, 4 blocks in place", 1, 9, 2, false, 2, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim := testSim(t, c.nf, c.nt, c.prec, c.pol)
			want, err := cpu.NewWith(cblas.Best(), 1).Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			var last matvis.Progress
			var calls atomic.Int32
			sim.Options.Progress = func(p matvis.Progress) { last = p; calls.Add(1) }
			m, err := New(cpus(c.backends), nil)
			if err != nil {
				t.Fatal(err)
			}
			m.Blocks = c.blocks
			got, err := m.Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Complete() {
				t.Fatal("result incomplete")
			}
			if last.Done != last.Total || last.Total != c.nf*c.nt || int(calls.Load()) != c.nf*c.nt {
				t.Errorf("progress: last %+v after %d calls, want %d", last, calls.Load(), c.nf*c.nt)
			}
			checkBackendStats(t, got, c.backends, c.nf*c.nt)
			if c.prec == 1 {
				for i := range want.Vis64 {
					if got.Vis64[i] != want.Vis64[i] {
						t.Fatalf("vis[%d] = %v, one backend %v", i, got.Vis64[i], want.Vis64[i])
					}
				}
				return
			}
			for i := range want.Vis128 {
				if got.Vis128[i] != want.Vis128[i] {
					t.Fatalf("vis[%d] = %v, one backend %v", i, got.Vis128[i], want.Vis128[i])
				}
			}
		})
	}
}

// failing fails every run at once.
type failing struct{ inner matvis.Backend }

func (f failing) Name() string { return "flaky" }
func (f failing) Close() error { return nil }
func (f failing) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	return nil, errors.New("device lost")
}

func TestMultiErrorStopsAllAndNamesDevice(t *testing.T) {
	sim := testSim(t, 2, 8, 2, false)
	bs := cpus(2)
	bs = append(bs, failing{})
	m, err := New(bs, []string{"gpu 0", "gpu 1", "gpu 2"})
	if err != nil {
		t.Fatal(err)
	}
	m.Blocks = 16
	res, err := m.Run(context.Background(), sim)
	if err == nil || !strings.Contains(err.Error(), "gpu 2") || !strings.Contains(err.Error(), "device lost") || !strings.Contains(err.Error(), "times [") {
		t.Fatalf("err = %v, want gpu 2's device lost with its block", err)
	}
	if res == nil || res.Complete() {
		t.Fatal("want a partial result")
	}
}

// waiting runs until its context is cancelled (at most 10 s) and records
// whether it was; it closes started when it starts.
type waiting struct {
	cancelled *atomic.Bool
	started   chan struct{}
}

func (w waiting) Name() string { return "waiting" }
func (w waiting) Close() error { return nil }
func (w waiting) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	close(w.started)
	select {
	case <-ctx.Done():
		w.cancelled.Store(true)
		return matvis.NewResult(sim), ctx.Err()
	case <-time.After(10 * time.Second):
		return nil, errors.New("never cancelled")
	}
}

// TestMultiErrorCancelsOthers: a backend still running when another fails
// is cancelled, and the failure (not the cancellation) is returned.
func TestMultiErrorCancelsOthers(t *testing.T) {
	sim := testSim(t, 2, 4, 2, false)
	var cancelled atomic.Bool
	started := make(chan struct{})
	m, _ := New([]matvis.Backend{waiting{&cancelled, started}, failingAfter{started}}, []string{"gpu 0", "gpu 1"})
	_, err := m.Run(context.Background(), sim)
	if err == nil || !strings.HasPrefix(err.Error(), "gpu 1: ") || !cancelled.Load() {
		t.Fatalf("err %v, gpu 0 cancelled %v; want gpu 1's error and gpu 0 cancelled", err, cancelled.Load())
	}
}

// failingAfter fails once start is closed.
type failingAfter struct{ start chan struct{} }

func (f failingAfter) Name() string { return "flaky" }
func (f failingAfter) Close() error { return nil }
func (f failingAfter) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	<-f.start
	return nil, errors.New("device lost")
}

func TestMultiCancel(t *testing.T) {
	sim := testSim(t, 2, 8, 2, false)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	sim.Options.Progress = func(p matvis.Progress) {
		if n++; n == 3 {
			cancel()
		}
	}
	m, _ := New(cpus(2), nil)
	res, err := m.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	done := 0
	for _, d := range res.Done {
		if d {
			done++
		}
	}
	if done == 0 || done == len(res.Done) {
		t.Fatalf("%d of %d done after cancelling at 3", done, len(res.Done))
	}
	// Finished integrations are those of an uninterrupted run.
	want, _ := cpu.NewWith(cblas.Best(), 1).Run(context.Background(), sim)
	for i, d := range res.Done {
		if !d {
			continue
		}
		per := len(want.Vis128) / len(want.Done)
		for k := i * per; k < (i+1)*per; k++ {
			if res.Vis128[k] != want.Vis128[k] {
				t.Fatalf("finished integration %d differs", i)
			}
		}
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New(nil, nil); err == nil {
		t.Error("no backends: no error")
	}
	if _, err := New(cpus(2), []string{"a"}); err == nil {
		t.Error("1 name for 2 backends: no error")
	}
	if _, err := New([]matvis.Backend{nil}, nil); err == nil {
		t.Error("nil backend: no error")
	}
}

// checkBackendStats checks a complete run's per-backend statistics: n
// backends, their integrations adding up to the grid's, and every
// integration's wall time at its grid place.
func checkBackendStats(t *testing.T, res *matvis.Result, n, total int) {
	t.Helper()
	st := res.Stats
	if len(st.Backends) != n {
		t.Fatalf("%d backend stats, want %d", len(st.Backends), n)
	}
	ints := 0
	for _, b := range st.Backends {
		ints += b.Integrations
		if b.Blocks > 0 && (b.Busy <= 0 || b.ChunkTime <= 0) {
			t.Errorf("%s: %d blocks in busy %v, chunk time %v", b.Name, b.Blocks, b.Busy, b.ChunkTime)
		}
		// Its blocks ran one after another between Start and End, inside the run.
		if b.Blocks > 0 && (b.Start < 0 || b.End < b.Start || b.End > st.Total || b.Busy > b.End-b.Start || b.Setup > b.Busy) {
			t.Errorf("%s: blocks from %v to %v of a %v run, busy %v, set-up %v", b.Name, b.Start, b.End, st.Total, b.Busy, b.Setup)
		}
	}
	if ints != total || len(st.Integrations) != total {
		t.Errorf("backends ran %d integrations, %d walls; want %d", ints, len(st.Integrations), total)
	}
	for i, w := range st.Integrations {
		if w <= 0 {
			t.Errorf("integration %d: wall %v", i, w)
		}
	}
}

func TestRunEach(t *testing.T) {
	sim := testSim(t, 1, 1, 2, false)
	for _, c := range []struct {
		name    string
		bs      []matvis.Backend
		wantErr string
	}{
		{"all run", cpus(2), ""},
		{"one fails", append(cpus(1), failing{}), "b1: device lost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(c.bs, []string{"b0", "b1"})
			if err != nil {
				t.Fatal(err)
			}
			err = m.RunEach(context.Background(), sim)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("RunEach: %v, want %q", err, c.wantErr)
			}
			if len(m.Parts()) != len(c.bs) {
				t.Errorf("%d parts, want %d", len(m.Parts()), len(c.bs))
			}
		})
	}
}
