// Package shard splits a simulation's (frequency, time) grid into
// balanced, deterministic blocks: the unit of work of a multi-device run
// (matvis/multi) and of one task of a sharded run (gomatvis simulate
// --shard i/N).
//
// The split is by time first: N ≤ ntimes shards are N contiguous time
// blocks over all channels, whose sizes differ by at most one time. Time
// blocks are what both outputs want and what costs least to recompute:
//   - a UVH5 file is time-major (all baselines of time 0, then time 1, …,
//     each row holding every channel), so a time block is a contiguous run
//     of rows and a merge streams each part straight into place;
//   - the ENU vectors of a time are computed once per run and reused by
//     every channel, while the per-channel work (beam preparation, flux)
//     is cheap; a frequency split would recompute every time's coordinates
//     in every shard.
//
// Only when N exceeds the number of times is each time also split into
// channel blocks (N/ntimes or one more per time), so any N up to
// nfreq × ntimes gives N non-empty blocks.
package shard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
)

// Split returns n blocks that tile the nfreq × ntime grid, in time-major
// order (by first time, then first channel). It fails when n is not in
// [1, nfreq·ntime].
func Split(nfreq, ntime, n int) ([]matvis.Block, error) {
	if nfreq <= 0 || ntime <= 0 {
		return nil, fmt.Errorf("shard: grid of %d freqs × %d times: both must be positive", nfreq, ntime)
	}
	if n < 1 || int64(n) > int64(nfreq)*int64(ntime) {
		return nil, fmt.Errorf("shard: %d shards of %d freqs × %d times: want 1 to %d, one integration at least each", n, nfreq, ntime, int64(nfreq)*int64(ntime))
	}
	if n <= ntime {
		out := make([]matvis.Block, n)
		for i := range out {
			out[i] = matvis.Block{F0: 0, F1: nfreq, T0: cut(ntime, n, i), T1: cut(ntime, n, i+1)}
		}
		return out, nil
	}
	out := make([]matvis.Block, 0, n)
	for t := range ntime {
		k := n / ntime
		if t < n%ntime {
			k++
		}
		for j := range k {
			out = append(out, matvis.Block{F0: cut(nfreq, k, j), F1: cut(nfreq, k, j+1), T0: t, T1: t + 1})
		}
	}
	return out, nil
}

// cut is the i-th of k+1 balanced cut points of [0, n).
func cut(n, k, i int) int { return int(int64(n) * int64(i) / int64(k)) }

// Spec is shard I of N (0 ≤ I < N), as "--shard I/N" writes it.
type Spec struct{ I, N int }

// String is "I/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Parse reads "I/N" with 0 ≤ I < N.
func Parse(s string) (Spec, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want I/N, e.g. 3/16", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("shard %q: want 0 ≤ I < N", s)
	}
	return Spec{I: i, N: n}, nil
}

// Block is shard s's block of an nfreq × ntime grid.
func (s Spec) Block(nfreq, ntime int) (matvis.Block, error) {
	blocks, err := Split(nfreq, ntime, s.N)
	if err != nil {
		return matvis.Block{}, err
	}
	return blocks[s.I], nil
}
