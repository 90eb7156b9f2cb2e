package output_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/part"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// partMeta is the metadata of the one-shard part of sim (all but what the
// run and the data fill in).
func partMeta(t *testing.T, sim *matvis.Simulation, obs *matvis.Observation) part.Meta {
	t.Helper()
	l, err := uvdata.NewLayout(sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	return part.Meta{ConfigHash: strings.Repeat("ab", 32), Shard: 0, N: 1, NFreq: sim.NFreq(), NTime: sim.NTime(),
		Block: matvis.Block{F1: sim.NFreq(), T1: sim.NTime()}, Output: part.OutputUVH5, UVH5: l}
}

// readPart reads a part's metadata and data.
func readPart(t *testing.T, path string) (part.Meta, *matvis.Result) {
	t.Helper()
	f, err := part.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := f.Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return f.Meta, res
}

// TestStreamedPartEqualsWhole: a part streamed (format 2) in blocks of
// every shape reads back with the metadata (but for the hash of
// differently ordered bytes) and data of the whole Result written the
// plain way (part.Write, format 1), on fresh random simulations.
func TestStreamedPartEqualsWhole(t *testing.T) {
	rng := backendtest.NewRNG(t, 5)
	for _, prec := range []int{1, 2} {
		for _, pol := range []bool{false, true} {
			sim, obs := randomRun(t, rng, prec, pol)
			whole, err := cpu.New().Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			meta := partMeta(t, sim, obs)
			finish := func(s output.Summary, m *part.Meta) error {
				m.Backend, m.MatProd, m.NChunks = "cpu", s.Stats.MatProdImpl.String(), s.Plan.NChunks
				return nil
			}
			dir := t.TempDir()
			want := filepath.Join(dir, "whole.gmvpart")
			wm := meta
			wm.Backend, wm.MatProd, wm.NChunks = "cpu", whole.Stats.MatProdImpl.String(), whole.Plan.NChunks
			if err := part.Write(want, wm, whole); err != nil {
				t.Fatal(err)
			}
			wantMeta, wantRes := readPart(t, want)
			for name, bb := range blockSizes(rng, sim) {
				name := fmt.Sprintf("fp%d pol=%v %s (%d×%d)", 32*prec, pol, name, sim.NFreq(), sim.NTime())
				got := filepath.Join(dir, "streamed.gmvpart")
				w, err := output.NewPart(got, sim, meta, finish)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := output.Run(context.Background(), poisoning{cpu.New()}, sim, w, output.Options{BlockBytes: bb}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				raw, err := os.ReadFile(got)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(string(raw), part.Magic2) || !strings.HasSuffix(string(raw), part.Magic2) {
					t.Errorf("%s: not a part of format 2", name)
				}
				gm, gr := readPart(t, got)
				// Format 2's data are time-major, format 1's not: their
				// hashes differ (each checked against its file by readPart).
				gm.DataSHA256 = wantMeta.DataSHA256
				if !reflect.DeepEqual(gm, wantMeta) {
					t.Errorf("%s: metadata\n%+v\nwant\n%+v", name, gm, wantMeta)
				}
				if !reflect.DeepEqual(gr.Vis64, wantRes.Vis64) || !reflect.DeepEqual(gr.Vis128, wantRes.Vis128) {
					t.Errorf("%s: the streamed part's data differ from the whole result's", name)
				}
			}
		}
	}
}

// TestCancelledPartKeepsNothing: a shard's run cancelled after k
// integrations leaves no part (a part is kept only whole), neither at its
// path nor at a partial path, and says how much was computed.
func TestCancelledPartKeepsNothing(t *testing.T) {
	rng := backendtest.NewRNG(t, 6)
	sim, obs := randomRun(t, rng, 2, false)
	for sim.NFreq()*sim.NTime() < 4 {
		sim, obs = randomRun(t, rng, 2, false)
	}
	total := sim.NFreq() * sim.NTime()
	per := output.IntegrationBytes(sim)
	for _, after := range []int{0, 1, total / 2, total - 1} {
		dir := t.TempDir()
		path := filepath.Join(dir, "p.gmvpart")
		w, err := output.NewPart(path, sim, partMeta(t, sim, obs), nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		be := &cancelling{Backend: cpu.New(), cancel: cancel, after: after}
		sum, err := output.Run(ctx, be, sim, w, output.Options{BlockBytes: per})
		cancel()
		if !errors.Is(err, context.Canceled) || sum.Kept == nil {
			t.Fatalf("after %d: err %v, kept %v; want context.Canceled and what was kept", after, err, sum.Kept)
		}
		if sum.Kept.Path != "" || sum.Kept.Integrations < after || sum.Kept.TotalIntegrations != total {
			t.Errorf("after %d: kept %+v", after, *sum.Kept)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("after %d: the cancelled shard left %v", after, ents)
		}
	}
}
