package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/gomatvis/gomatvis/matvis/input"

	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/part"
	"github.com/gomatvis/gomatvis/matvis/shard"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// shardJob is simulate --shard's flags.
type shardJob struct {
	in                 *simInput
	out, shard, format string
	backend, devices   string
	gpu                gpu.Options // --gpu-fused, --gpu-nufft
	topo, coord, eop   string
	rotation           matvis.CoherencyRotation
	// precision (0: the input's) and run override the input's options.
	precision int
	run       input.RunOverrides
	// beamInterp is --beam-interp ("": the input's default).
	beamInterp string
	// beamPole is --beam-pole ("": the input's default).
	beamPole string
	quiet    bool
	// block is --block (0: the backend's choice).
	block int64
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
	hash, err := untilCancelled(ctx, "hashing the configuration", func() (string, error) {
		return configHash(j.in, hashInputs{format: j.format, coordMethod: j.coord, rotation: j.rotation, precision: j.precision, eopPath: j.eop, topoPath: j.topo, beamInterp: j.beamInterp, beamPole: j.beamPole})
	})
	if err != nil {
		return err
	}
	have, done, why := partComplete(ctx, j.out, hash, sp, j.format)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("checking %s: %w", j.out, err)
	}
	if !done {
		if why != "" {
			fmt.Fprintf(stderr, "%s: %s: recomputing shard %v\n", j.out, why, sp)
		}
		return computeShard(ctx, j, sp, hash, stdout, stderr)
	}
	// The part's data are whole and finite and its hash, shard and output
	// are this run's; its metadata must also be what this configuration
	// implies (a part is input, not trust: anyone can write one whose
	// self-declared hash matches).
	pr, err := prepareShard(ctx, j, sp, hash, stderr)
	if err != nil {
		return err
	}
	if err := pr.checkPart(j, have); err != nil {
		fmt.Fprintf(stderr, "%s: %v: recomputing shard %v\n", j.out, err, sp)
		return pr.compute(ctx, j, sp, stdout, stderr)
	}
	fmt.Fprintf(stdout, "%s: shard %v is complete (config %s…): nothing to do\n", j.out, sp, hash[:12])
	return nil
}

// partComplete says whether path is a complete part of shard sp of this
// configuration as far as the part itself tells (its data whole, finite
// and matching their hash, its metadata plausible, its config hash, shard
// and output this run's; runShard then compares the rest of its metadata
// with what the configuration implies); why says what is wrong with an
// existing one ("" when there is none). m is the part's metadata when done.
func partComplete(ctx context.Context, path, hash string, sp shard.Spec, format string) (m *part.Meta, done bool, why string) {
	m, err := part.Verify(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, ""
	case err != nil:
		return nil, false, err.Error()
	case m.ConfigHash != hash:
		return nil, false, fmt.Sprintf("made from another configuration (config %s…, this one %s…)", m.ConfigHash[:12], hash[:12])
	case m.Shard != sp.I || m.N != sp.N:
		return nil, false, fmt.Sprintf("holds shard %d/%d", m.Shard, m.N)
	case m.Output != format:
		return nil, false, fmt.Sprintf("made for %s output", m.Output)
	}
	return m, true, ""
}

// preparedShard is a shard's simulation and the part metadata its
// configuration implies (all but how it was computed and its data).
type preparedShard struct {
	sim, sub *matvis.Simulation
	obs      *matvis.Observation
	bo       buildOptions
	block    matvis.Block
	meta     part.Meta
}

// prepareShard builds the simulation of shard sp and the part metadata
// it implies.
func prepareShard(ctx context.Context, j shardJob, sp shard.Spec, hash string, stderr io.Writer) (*preparedShard, error) {
	bo := buildOptions{uvh5: j.format == part.OutputUVH5, coordMethod: j.coord, eopPath: j.eop, rotation: j.rotation,
		precision: j.precision, run: j.run, beamInterp: j.beamInterp, beamPole: j.beamPole, warn: warnTo(stderr), notice: lineTo(stderr)}
	var err error
	if j.topo != "" {
		bo.topoPath = j.topo
		if bo.topo, err = readTopoUntil(ctx, j.topo); err != nil {
			return nil, err
		}
	}
	sim, obs, err := j.in.build(ctx, bo)
	if err != nil {
		return nil, err
	}
	block, err := sp.Block(sim.NFreq(), sim.NTime())
	if err != nil {
		return nil, fmt.Errorf("--shard %v: %w", sp, err)
	}
	sub, err := sim.Subset(block)
	if err != nil {
		return nil, fmt.Errorf("--shard %v: %w", sp, err)
	}
	meta := part.Meta{ConfigHash: hash, Shard: sp.I, N: sp.N, NFreq: sim.NFreq(), NTime: sim.NTime(), Block: block, Output: j.format}
	if bo.uvh5 {
		if meta.UVH5, err = uvdata.NewLayout(sim, obs); err != nil {
			return nil, err
		}
	}
	return &preparedShard{sim: sim, sub: sub, obs: obs, bo: bo, block: block, meta: meta}, nil
}

// checkPart checks m, the metadata of the complete part j.out (partComplete passed), against the
// metadata the configuration implies.
func (pr *preparedShard) checkPart(j shardJob, m *part.Meta) error {
	var err error
	want := pr.meta
	want.Shape = append([]int{pr.block.NFreq(), pr.block.NTime()}, pr.sim.OutputShape()[2:]...)
	want.Precision = pr.sim.Options.Precision
	if !pr.bo.uvh5 {
		// The stable part of the run's npy metadata (how and when a part
		// was computed is not compared).
		whole := &matvis.Result{Shape: pr.sim.OutputShape(), Precision: want.Precision}
		if want.NpyMeta, err = shardMetaJSON(j, pr.sim, pr.obs, whole, m.Backend, pr.meta.N); err != nil {
			return err
		}
	}
	return m.Matches(&want)
}

// computeShard builds the simulation, runs the shard's block and writes
// the part.
func computeShard(ctx context.Context, j shardJob, sp shard.Spec, hash string, stdout, stderr io.Writer) error {
	pr, err := prepareShard(ctx, j, sp, hash, stderr)
	if err != nil {
		return err
	}
	return pr.compute(ctx, j, sp, stdout, stderr)
}

// compute runs the shard's block and streams it into the part as its
// blocks finish (output.Run): the run holds two blocks of the budget's
// size, not the shard's whole output.
func (pr *preparedShard) compute(ctx context.Context, j shardJob, sp shard.Spec, stdout, stderr io.Writer) error {
	sim, sub, obs, bo, block := pr.sim, pr.sub, pr.obs, pr.bo, pr.block
	be, err := openBackend(j.backend, j.devices, j.gpu, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	blockBytes := blockBudget(sub, be, j.block)
	defer setMemoryLimit(sub, 2*blockBytes)()
	finish := func(s output.Summary, m *part.Meta) error {
		m.Backend, m.MatProd, m.NChunks = be.Name(), s.Stats.MatProdImpl.String(), s.Plan.NChunks
		if bo.uvh5 {
			return nil
		}
		whole := &matvis.Result{Shape: sim.OutputShape(), Precision: sim.Options.Precision, Plan: s.Plan, Stats: s.Stats}
		var err error
		m.NpyMeta, err = shardMetaJSON(j, sim, obs, whole, be.Name(), sp.N)
		return err
	}
	pw, err := output.NewPart(j.out, sub, pr.meta, finish)
	if err != nil {
		return fmt.Errorf("writing %s: %w", j.out, err)
	}
	bar := newProgressBar(stderr, j.quiet)
	t0 := time.Now()
	sum, err := output.Run(ctx, be, sub, lockedOutput{pw, j.out, stderr}, output.Options{BlockBytes: blockBytes, Progress: bar.update})
	bar.finish()
	if sum.Kept != nil {
		fmt.Fprintf(stderr, "cancelled: %s\n", sum.Kept)
	}
	if err != nil {
		return fmt.Errorf("shard %v (%v): %w", sp, block, err)
	}
	fmt.Fprintf(stdout, "%s: shard %v, %v of %d freqs × %d times, %s backend: %.3g s → %s\n",
		j.in.name(), sp, block, sim.NFreq(), sim.NTime(), be.Name(), time.Since(t0).Seconds(), j.out)
	// As simulate's: the writing overlaps the compute but for the waits
	// and the close (which hashes, from the file, blocks that came out of
	// the part's order).
	printOutputLine(stdout, sum)
	return nil
}

// shardMetaJSON is the OUT.meta.json of the merged run, as a part
// carries it: the whole run's axes, the shard count, no wall time.
func shardMetaJSON(j shardJob, sim *matvis.Simulation, obs *matvis.Observation, whole *matvis.Result, backend string, n int) ([]byte, error) {
	b, err := metaJSON(j.out, j.in.name(), sim, obs, whole, backend, coordsName(j.in, j.coord, j.topo), 0, nil)
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
