package part

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/shard"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// benchLayout is a polarized UVH5 layout of nant antennas (all nant(nant+1)/2
// baselines), nf channels and nt times.
func benchLayout(nant, nf, nt int) *uvdata.Layout {
	l := &uvdata.Layout{TelescopeName: "bench", Site: astro.Site{LatDeg: -30.7, LonDeg: 21.4, HeightM: 1073},
		Pols: []int{matvis.PolXX, matvis.PolYY, matvis.PolXY, matvis.PolYX}, History: "bench", Precision: 2, Polarized: true}
	for a := range nant {
		l.AntNames = append(l.AntNames, fmt.Sprintf("ANT%d", a))
		l.AntNums = append(l.AntNums, a)
		l.ENU = append(l.ENU, [3]float64{float64(a) * 14.6, float64(a%5) * 3, 0})
	}
	l.Baselines = matvis.LowerBaselines(l.AntNums)
	for f := range nf {
		l.Freqs = append(l.Freqs, 100e6+float64(f)*1e5)
	}
	for t := range nt {
		l.Times = append(l.Times, 2459845+float64(t)*10.7/86400)
	}
	return l
}

// benchParts writes n parts of a polarized nf × nt × nbl × 2 × 2 run (for
// benchmarks and tests).
func benchParts(b testing.TB, dir string, l *uvdata.Layout, n int, output string) ([]string, int64) {
	nf, nt, nbl := len(l.Freqs), len(l.Times), len(l.Baselines)
	blocks, err := shard.Split(nf, nt, n)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	var total int64
	for i, blk := range blocks {
		r := &matvis.Result{Shape: []int{blk.NFreq(), blk.NTime(), nbl, 2, 2}, Precision: 2, Done: make([]bool, blk.Size())}
		r.Vis128 = make([]complex128, blk.Size()*nbl*4)
		for k := range r.Vis128 {
			r.Vis128[k] = complex(float64(k), float64(i))
		}
		for k := range r.Done {
			r.Done[k] = true
		}
		m := Meta{ConfigHash: hashA, Shard: i, N: n, NFreq: nf, NTime: nt, Block: blk, Output: output, UVH5: l}
		p := filepath.Join(dir, fmt.Sprintf("p%03d.gmvpart", i))
		if err := Write(p, m, r); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
		total += int64(len(r.Vis128)) * 16
	}
	return paths, total
}

// BenchmarkMerge merges 8 parts of a 37-antenna polarized run (703
// baselines, 64 channels, 32 times: 92 MB of complex128) into UVH5 and npy.
func BenchmarkMerge(b *testing.B) {
	for _, output := range []string{OutputUVH5, OutputNpy} {
		b.Run(output, func(b *testing.B) {
			dir := b.TempDir()
			paths, total := benchParts(b, dir, benchLayout(37, 64, 32), 8, output)
			b.SetBytes(total)
			b.ResetTimer()
			for i := range b.N {
				s, err := OpenSet(paths)
				if err != nil {
					b.Fatal(err)
				}
				out := filepath.Join(dir, fmt.Sprintf("out%d.%s", i, output))
				if output == OutputUVH5 {
					err = s.WriteUVH5(context.Background(), out)
				} else {
					err = s.WriteNpy(context.Background(), out, out+".json")
				}
				s.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
