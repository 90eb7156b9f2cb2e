package uvdata

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestUnevenChannelBlocks: with pieces of a few baselines, channel ranges
// of uneven widths (1, 2 and 3 channels) of every time make the file the
// whole result's rows make, byte for byte, and Close finds it complete:
// the rows of a time go in the same groups whatever a block's width, so
// the file's cover joins their channels.
func TestUnevenChannelBlocks(t *testing.T) {
	rng := backendtest.NewRNG(t, 6)
	c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 6, NSrc: 20, NFreq: 6, NTime: 2},
		backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: 2})
	c.Times = []float64{2459845.25, 2459845.26}
	obs := matvis.DefaultObservation(6, c.Options)
	obs.UseConventions(&c)
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := filepath.Join(dir, "whole.uvh5")
	if err := Write(want, sim, obs, whole); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "blocks.uvh5")
	w, err := Create(got, sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	w.pieceVals = 3 * sim.NFreq() // 3 baselines a piece, of 21
	for ti := range sim.NTime() {
		for _, r := range [][2]int{{0, 1}, {1, 3}, {3, 6}} {
			b := matvis.Block{F0: r[0], F1: r[1], T0: ti, T1: ti + 1}
			sub, err := sim.Subset(b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cpu.New().Run(context.Background(), sub)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteBlock(b, res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close after every channel of every time: %v", err)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(got)
	if !bytes.Equal(a, b) {
		t.Error("uneven channel blocks give other bytes than the whole result")
	}
}
