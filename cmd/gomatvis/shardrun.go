package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/part"
	"github.com/gomatvis/gomatvis/matvis/shard"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// shardJob is simulate --shard's flags.
type shardJob struct {
	in                 *simInput
	out, shard, format string
	backend, devices   string
	fused              gpu.FusedMode
	topo, coord, eop   string
	rotation           matvis.CoherencyRotation
	// precision (0: the input's) and run override the input's options.
	precision int
	run       matvis.RunOverrides
	quiet     bool
}

// runShard computes one shard of the (frequency, time) grid into a part
// file, or does nothing when the part is already there, complete and of
// this configuration.
func runShard(ctx context.Context, j shardJob, stdout, stderr io.Writer) error {
	sp, err := shard.Parse(j.shard)
	if err != nil {
		return fmt.Errorf("%w: --shard: %w", errUsage, err)
	}
	if j.format == "" {
		j.format = part.OutputNpy
		if j.in.cfg != nil {
			j.format = part.OutputUVH5
		}
	}
	if j.format != part.OutputUVH5 && j.format != part.OutputNpy {
		return fmt.Errorf("%w: --format %q: want uvh5 or npy", errUsage, j.format)
	}
	hash, err := configHash(j.in, hashInputs{format: j.format, coordMethod: j.coord, rotation: j.rotation, precision: j.precision, eopPath: j.eop, topoPath: j.topo})
	if err != nil {
		return err
	}
	if done, why := partComplete(j.out, hash, sp, j.format); done {
		fmt.Fprintf(stdout, "%s: shard %v is complete (config %s…): nothing to do\n", j.out, sp, hash[:12])
		return nil
	} else if why != "" {
		fmt.Fprintf(stderr, "%s: %s: recomputing shard %v\n", j.out, why, sp)
	}
	return computeShard(ctx, j, sp, hash, stdout, stderr)
}

// partComplete says whether path is a complete part of shard sp of this
// configuration; why says what is wrong with an existing one ("" when
// there is none).
func partComplete(path, hash string, sp shard.Spec, format string) (done bool, why string) {
	m, err := part.Verify(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, ""
	case err != nil:
		return false, err.Error()
	case m.ConfigHash != hash:
		return false, fmt.Sprintf("made from another configuration (config %s…, this one %s…)", m.ConfigHash[:12], hash[:12])
	case m.Shard != sp.I || m.N != sp.N:
		return false, fmt.Sprintf("holds shard %d/%d", m.Shard, m.N)
	case m.Output != format:
		return false, fmt.Sprintf("made for %s output", m.Output)
	}
	return true, ""
}

// computeShard builds the simulation, runs the shard's block and writes
// the part.
func computeShard(ctx context.Context, j shardJob, sp shard.Spec, hash string, stdout, stderr io.Writer) error {
	bo := buildOptions{uvh5: j.format == part.OutputUVH5, coordMethod: j.coord, eopPath: j.eop, rotation: j.rotation,
		precision: j.precision, run: j.run, warn: warnTo(stderr), notice: lineTo(stderr)}
	var err error
	if j.topo != "" {
		if bo.topo, err = readTopo(j.topo); err != nil {
			return err
		}
	}
	sim, obs, err := j.in.build(bo)
	if err != nil {
		return err
	}
	block, err := sp.Block(sim.NFreq(), sim.NTime())
	if err != nil {
		return fmt.Errorf("--shard %v: %w", sp, err)
	}
	sub, err := sim.Subset(block)
	if err != nil {
		return fmt.Errorf("--shard %v: %w", sp, err)
	}
	defer setMemoryLimit(sim)()
	meta := part.Meta{ConfigHash: hash, Shard: sp.I, N: sp.N, NFreq: sim.NFreq(), NTime: sim.NTime(), Block: block, Output: j.format}
	if bo.uvh5 {
		if meta.UVH5, err = uvdata.NewLayout(sim, obs); err != nil {
			return err
		}
	}
	be, err := openBackend(j.backend, j.devices, j.fused, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	bar := newProgressBar(stderr, j.quiet)
	sub.Options.Progress = bar.update
	t0 := time.Now()
	res, err := be.Run(ctx, sub)
	bar.finish()
	if err != nil {
		return fmt.Errorf("shard %v (%v): %w", sp, block, err)
	}
	wall := time.Since(t0)
	meta.Backend, meta.MatProd, meta.NChunks = be.Name(), res.Stats.MatProdImpl.String(), res.Plan.NChunks
	if !bo.uvh5 {
		whole := &matvis.Result{Shape: sim.OutputShape(), Precision: res.Precision, Plan: res.Plan, Stats: res.Stats}
		if meta.NpyMeta, err = shardMetaJSON(j, sim, obs, whole, be.Name(), sp.N); err != nil {
			return err
		}
	}
	if err := writeOutputs(j.out, false, stderr, func() error { return part.Write(j.out, meta, res) }); err != nil {
		return fmt.Errorf("writing %s: %w", j.out, err)
	}
	fmt.Fprintf(stdout, "%s: shard %v, %v of %d freqs × %d times, %s backend: %.3g s → %s\n",
		j.in.name(), sp, block, sim.NFreq(), sim.NTime(), be.Name(), wall.Seconds(), j.out)
	return nil
}

// shardMetaJSON is the OUT.meta.json of the merged run, as a part
// carries it: the whole run's axes, the shard count, no wall time.
func shardMetaJSON(j shardJob, sim *matvis.Simulation, obs *matvis.Observation, whole *matvis.Result, backend string, n int) ([]byte, error) {
	b, err := metaJSON(j.out, j.in.name(), sim, obs, whole, backend, coordsName(j.in, j.coord, j.topo), 0)
	if err != nil {
		return nil, err
	}
	var m outputMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encoding the merged run's metadata: %w", err)
	}
	m.Shards = n
	return json.Marshal(m)
}
