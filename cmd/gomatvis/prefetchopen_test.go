package main

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// recordingCoords is coordinates that record the times asked ahead.
type recordingCoords struct {
	*matvis.Precomputed
	mu    sync.Mutex
	ahead []int
}

func (c *recordingCoords) PrefetchENU(_ context.Context, ti int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead = append(c.ahead, ti)
}

// aheadBackend is a backend that asks for its coordinates ahead, or not.
type aheadBackend struct {
	matvis.Backend
	ahead bool
}

func (b aheadBackend) CoordinatesAhead() bool { return b.ahead }

// TestPrefetchWhileOpening: while a GPU backend is still opening after the
// input, the first two times' coordinates are asked ahead — for
// --backend gpu, or for auto once the open returned a backend that makes
// coordinates ahead; not for a backend already open, a CPU, or auto before
// its open returned.
func TestPrefetchWhileOpening(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flag   string
		done   bool
		opened matvis.Backend
		ntime  int
		want   []int
	}{
		{"gpu asked, still opening", "gpu", false, nil, 3, []int{0, 1}},
		{"gpu asked, one time", "gpu", false, nil, 1, []int{0}},
		{"gpu asked, open already", "gpu", true, nil, 3, nil},
		{"auto, a GPU open and warming", "auto", false, aheadBackend{ahead: true}, 3, []int{0, 1}},
		{"auto, a backend without ahead", "auto", false, aheadBackend{ahead: false}, 3, nil},
		{"auto, not yet open", "auto", false, nil, 3, nil},
		{"cpu, still opening", "cpu", false, nil, 3, nil},
	} {
		coords := &recordingCoords{Precomputed: upSources(t, tc.ntime)}
		times := make([]float64, tc.ntime)
		for i := range times {
			times[i] = 2459000 + float64(i)/24
		}
		sim, err := matvis.New(matvis.Config{Freqs: []float64{1e8}, Times: times, Antennas: [][3]float64{{0, 0, 0}}, RA: []float64{0}, Dec: []float64{0},
			Flux: []float64{1}, Beams: []beam.Beam{beam.Airy{DiameterM: 14}}, BeamIdx: []int{0}, Coords: coords})
		if err != nil {
			t.Fatal(err)
		}
		o := &openingBackend{done: make(chan struct{})}
		if tc.done {
			close(o.done)
		}
		if tc.opened != nil {
			o.opened.Store(&tc.opened)
		}
		o.prefetchWhileOpening(context.Background(), sim, tc.flag)
		if !slices.Equal(coords.ahead, tc.want) {
			t.Errorf("%s: times asked ahead %v, want %v", tc.name, coords.ahead, tc.want)
		}
	}
}

// upSources is one source at the zenith at each of ntime times.
func upSources(t *testing.T, ntime int) *matvis.Precomputed {
	t.Helper()
	enu := make([]float64, 3*ntime)
	for i := range ntime {
		enu[3*i+2] = 1
	}
	p, err := matvis.NewPrecomputed(ntime, 1, enu)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
