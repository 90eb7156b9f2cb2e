package output_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/output"
)

// recordingCoords are coordinates that record the times Run asks them to
// make ahead (matvis.ENUPrefetcher), and make none.
type recordingCoords struct {
	matvis.Coordinates
	mu    sync.Mutex
	asked []int
}

func (c *recordingCoords) PrefetchENU(_ context.Context, ti int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, ti)
}

// aheadBackend is a backend that asks for the next block's coordinates
// to be made while it computes (output.CoordinatesAhead), as the GPU's.
type aheadBackend struct{ matvis.Backend }

func (aheadBackend) CoordinatesAhead() bool { return true }

// TestCoordinatesAhead: for a backend that asks for it, Run has each next
// block's times made ahead — every time after the first block's, once,
// in order, with blocks of one time or of one channel (a time's blocks
// after its first do not ask for it again) — and for one that does not,
// none; the output is the whole run's either way.
func TestCoordinatesAhead(t *testing.T) {
	rng := sharedtest.RNG(t, 41)
	sh := backendtest.Shape{NAnt: 3 + rng.IntN(5), NSrc: 30, NFreq: 2 + rng.IntN(3), NTime: 2 + rng.IntN(4)}
	c := backendtest.Random(t, rng, sh, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: 2})
	for _, tc := range []struct {
		ahead    bool
		channels int // a block's channels (of one time)
	}{{true, sh.NFreq}, {true, 1}, {false, sh.NFreq}} {
		ahead := tc.ahead
		rc := &recordingCoords{Coordinates: c.Coords}
		cfg := c
		cfg.Coords = rc
		sim, err := matvis.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := cpu.New().Run(context.Background(), sim)
		if err != nil {
			t.Fatal(err)
		}
		var be matvis.Backend = cpu.New()
		if ahead {
			be = aheadBackend{be}
		}
		col := output.NewCollector(sim)
		block := output.IntegrationBytes(sim) * int64(tc.channels)
		if _, err := output.Run(context.Background(), be, sim, col, output.Options{BlockBytes: block}); err != nil {
			t.Fatal(err)
		}
		var want []int
		if ahead {
			for ti := 1; ti < sh.NTime; ti++ {
				want = append(want, ti)
			}
		}
		if !slices.Equal(rc.asked, want) {
			t.Errorf("ahead=%v, blocks of %d channels, %d × %d: times made ahead %v, want %v", ahead, tc.channels, sh.NFreq, sh.NTime, rc.asked, want)
		}
		if e := backendtest.RelErr(backendtest.Vis(col.Result()), backendtest.Vis(whole)); e != 0 {
			t.Errorf("ahead=%v: streamed output %.3g from the whole run's", ahead, e)
		}
	}
}
