package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// randomMeta is a sidecar with random values, each optional field set or
// not at random (the pieces' joins must hold for every combination).
func randomMeta(rng *rand.Rand) outputMeta {
	var m outputMeta
	some := func() bool { return rng.IntN(2) == 0 }
	str := func() string { return fmt.Sprintf("s%d\"<&>é", rng.IntN(1000)) }
	m.Gomatvis, m.Spec = str(), str()
	m.Shape, m.DType, m.Axes = []int{1 + rng.IntN(3), 1 + rng.IntN(3), rng.IntN(50)}, str(), []string{str()}
	if some() {
		m.FeedOrder = str()
	}
	m.Feeds = []string{str()}
	for range rng.IntN(4) {
		m.FreqsHz = append(m.FreqsHz, rng.Float64()*1e9)
		m.TimesJD = append(m.TimesJD, 2459845+rng.Float64())
	}
	for range rng.IntN(300) {
		m.AntPairs = append(m.AntPairs, [2]int{rng.IntN(350), rng.IntN(350)})
	}
	m.Polarized, m.Precision, m.Coordinates, m.Backend = some(), 1+rng.IntN(2), str(), str()
	if some() {
		m.Shards = rng.IntN(9)
	}
	m.Units, m.Convention, m.Conventions = str(), str(), str()
	if some() {
		m.AntNums, m.AntNames, m.Pols, m.PolIndex = []int{rng.IntN(9)}, []string{str()}, []int{-5 - rng.IntN(3)}, [][2]int{{rng.IntN(2), rng.IntN(2)}}
	}
	if some() {
		m.EarthOrientation, m.StokesRotation = str(), str()
	}
	if some() {
		m.BeamInterp, m.BeamFreqInterp, m.BeamPole = str(), str(), str()
	}
	return m
}

// TestPreparedMetaEqualsWhole: the sidecar encoded in pieces (the array
// during the compute, the run's details at the end) is byte for byte the
// one json.Marshal gives the whole struct, on random sidecars and for the
// empty one.
func TestPreparedMetaEqualsWhole(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	// The empty sidecar; an empty, not nil, antpair list; one at the
	// edges of int and of the digit counts.
	metas := []outputMeta{{}, {metaArray: metaArray{AntPairs: [][2]int{}}}, {metaArray: metaArray{AntPairs: [][2]int{{math.MinInt, math.MaxInt}, {0, -1}, {9, 10}, {99, 100}, {999, 1000}}}}}
	for range 50 {
		metas = append(metas, randomMeta(rng))
	}
	for i, m := range metas {
		wall, created := time.Duration(rng.Int64N(1e10)), time.Unix(rng.Int64N(2e9), 0)
		var phases *runclock.Phases
		if rng.IntN(2) == 0 {
			in := rng.Float64()
			phases = &runclock.Phases{WallS: rng.Float64(), StartFrom: "process", InputS: &in}
		}
		matprod, chunks := fmt.Sprint("herk", rng.IntN(3)), rng.IntN(100)
		got, err := prepareMeta("o.npy", m).finish(matprod, chunks, wall, created, phases)
		if err != nil {
			t.Fatal(err)
		}
		whole := m
		whole.finishRun(matprod, chunks, wall, created, phases)
		want, err := encodeMetaWhole("o.npy", &whole)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("meta %d: pieces\n%s\nwhole\n%s", i, got, want)
		}
	}
}

// TestInputErrorBeforeBackend: the backend opens while the input builds,
// but an input error is still the one reported, with nothing of the
// backend's printed (a GPU backend with no device would fail too).
func TestInputErrorBeforeBackend(t *testing.T) {
	dir := t.TempDir()
	code, _, e := runCLI(t, "simulate", "example", "--topo", filepath.Join(dir, "missing.npy"), "--backend", "gpu", "-q", "-o", filepath.Join(dir, "o.npy"))
	if code == 0 || !strings.Contains(e, "missing.npy") || strings.Contains(strings.ToLower(e), "cuda") {
		t.Errorf("exit %d, stderr %q: want the --topo file's error and nothing of the backend's", code, e)
	}
}
