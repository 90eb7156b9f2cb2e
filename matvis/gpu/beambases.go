// The set-up half of the device's channel preparation: every beam
// channel a run uses, prepared once (matvis/gpu/beamprep.cu bp_planes,
// bp_prefilter, bp_pack).

package gpu

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// buildBases prepares every used beam channel of every distinct beam
// into the bases and reads back each base's largest value, from which
// each channel's bound follows.
func (p *beamPrep) buildBases() error {
	nbase := 0
	for u := range p.srcs {
		nbase += len(p.used[u])
	}
	maxBits, err := p.alloc(termBeamSlots, int64(max(nbase, 1))*8)
	if err != nil {
		return err
	}
	defer p.freeBuf(&maxBits)
	if err := p.c.Memset8(maxBits, 0, int64(max(nbase, 1))*8, p.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: %w", err)
	}
	k := 0
	for u := range p.srcs {
		if err := p.buildBeam(u, maxBits.Offset(int64(k)*8)); err != nil {
			return err
		}
		k += len(p.used[u])
	}
	bits := make([]uint64, max(nbase, 1))
	if err := cuda.Download(p.c, bits, maxBits, p.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: read the bases' largest values: %w", err)
	}
	p.maxAbs = make([]map[int]float64, len(p.srcs))
	k = 0
	for u := range p.srcs {
		p.maxAbs[u] = map[int]float64{}
		for _, j := range p.used[u] {
			p.maxAbs[u][j] = math.Float64frombits(bits[k])
			k++
		}
	}
	for fi := range p.nfreq {
		for u := range p.srcs {
			var s float64
			for t, j := range p.taps[fi][u].j {
				s += math.Abs(p.taps[fi][u].w[t]) * p.maxAbs[u][j]
			}
			p.bound[fi] = max(p.bound[fi], s)
		}
	}
	return nil
}

// buildBeam prepares distinct beam u's used channels into the bases, a
// batch of channels per launch, with its raw grid on the device for the
// while.
func (p *beamPrep) buildBeam(u int, maxBits cuda.DevicePtr) (err error) {
	src := p.srcs[u]
	if len(p.used[u]) == 0 {
		return nil
	}
	var raw, basis, plane0, chans, scratch cuda.DevicePtr
	defer func() {
		_ = p.c.SyncStream(p.s) // the build's buffers are free once its kernels ran
		for _, d := range []*cuda.DevicePtr{&raw, &basis, &plane0, &chans, &scratch} {
			p.freeBuf(d)
		}
	}()
	f32 := int32(0)
	if src.Raw32 != nil {
		f32 = 1
		raw, err = uploadNew(p, termBeamSlots, src.Raw32)
	} else {
		raw, err = uploadNew(p, termBeamSlots, src.Raw64)
	}
	if err != nil {
		return err
	}
	if src.Basis != nil {
		if basis, err = uploadNew(p, termBeamSlots, src.Basis); err != nil {
			return err
		}
	}
	p0 := make([]int32, len(src.Planes))
	for q, pl := range src.Planes {
		p0[q] = int32((pl.Vec*src.NComp + pl.Comp) * len(src.FreqsHz))
	}
	if plane0, err = uploadNew(p, termBeamSlots, p0); err != nil {
		return err
	}
	used := make([]int32, len(p.used[u]))
	for i, j := range p.used[u] {
		used[i] = int32(j)
	}
	if chans, err = uploadNew(p, termBeamSlots, used); err != nil {
		return err
	}
	nb := p.batch(u)
	if scratch, err = p.alloc(termBeamSlots, p.scratchBytes(u)*int64(nb)); err != nil {
		return err
	}
	for b0 := 0; b0 < len(used); b0 += nb {
		n := min(nb, len(used)-b0)
		if err := p.buildBatch(u, buildArgs{raw: raw, f32: f32, basis: basis, plane0: plane0, nfreq: len(src.FreqsHz),
			chans: chans.Offset(int64(b0) * 4), js: p.used[u][b0 : b0+n], scratch: scratch, off: p.baseAt[u][p.used[u][b0]],
			maxBits: maxBits.Offset(int64(b0) * 8), s: p.s}); err != nil {
			return err
		}
	}
	return nil
}

// buildArgs are one build launch's inputs: the raw grid on the device
// (f32: float samples) with nfreq beam channels, the basis vectors or 0,
// the raw plane indices, the beam channels js (chans: their indices into
// the raw grid, on the device; js the beam's own), the scratch, the first
// base's offset (complex values), where each base's largest value goes,
// and the stream.
type buildArgs struct {
	raw, basis, plane0, chans, scratch, maxBits cuda.DevicePtr
	f32                                         int32
	nfreq                                       int
	js                                          []int
	off                                         int64
	s                                           cuda.Stream
}

// buildBatch prepares the beam channels a.js of distinct beam u into
// consecutive bases starting at base offset a.off. The scratch planes are
// made by bp_planes and bp_prefilter, or for an az_za_simple beam and a
// beam continued through the pole (beam.PlaneGrid.Pole) on the host
// (hostScratch); bp_pack packs them either way.
func (p *beamPrep) buildBatch(u int, a buildArgs) error {
	src := p.srcs[u]
	n := len(a.js)
	g := src.Grid
	ext := int32(0)
	if g.Extended {
		ext = int32((g.NAz - src.RawNAz) / 2)
	}
	cplx, power, ocplx := b2i(src.Complex), b2i(src.PowerFromE), b2i(src.OutComplex)
	nodes := int64(g.NZa) * int64(g.NAz)
	if p.objs[u].SpatialInterp() == beam.SpatialAzZaSimple || g.Pole {
		if err := p.hostScratch(u, a.js, a.scratch, a.s); err != nil {
			return err
		}
		return p.packBatch(a, nodes, src.OutComplex)
	}
	nplanes := int32(len(src.Planes))
	grid := cuda.Dim3{X: uint32((nodes + threadsPrep - 1) / threadsPrep), Y: uint32(n), Z: 1}
	if err := p.fn.planes.Launch(grid, dim1(threadsPrep), 0, a.s, a.raw, a.f32, cplx, int32(src.RawNZa), int32(src.RawNAz), ext,
		int32(a.nfreq), int32(src.NComp), a.chans, nplanes, a.plane0, power, int32(src.Planes[0].Comp), a.basis, ocplx, a.scratch); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	parts := int64(nplanes)
	if src.OutComplex {
		parts *= 2
	}
	planes := int64(n) * parts
	if g.Order == 3 {
		z := beam.CubicPole
		for _, ax := range []struct {
			per               int64
			lstep, estride, n int64
		}{{int64(g.NAz), 1, int64(g.NAz), int64(g.NZa)}, {int64(g.NZa), int64(g.NAz), 1, int64(g.NAz)}} {
			lines := planes * ax.per
			zn1 := math.Pow(z, float64(ax.n-1))
			if err := p.fn.prefilter.Launch(dim1(int((lines+threadsPrep-1)/threadsPrep)), dim1(threadsPrep), 0, a.s, a.scratch, lines,
				int32(ax.per), nodes, ax.lstep, ax.estride, int32(ax.n), z, zn1); err != nil {
				return fmt.Errorf("gpu: %w", err)
			}
		}
	}
	return p.packBatch(a, nodes, src.OutComplex)
}

// packBatch packs a's channels' scratch planes into the bases at base
// offset a.off (bp_pack), noting each base's largest value in a.maxBits.
func (p *beamPrep) packBatch(a buildArgs, nodes int64, outComplex bool) error {
	bstride := tableValues(int(nodes), p.nc)
	grid := cuda.Dim3{X: uint32((nodes*int64(p.nc) + threadsPrep - 1) / threadsPrep), Y: uint32(len(a.js)), Z: 1}
	if err := p.fn.pack.Launch(grid, dim1(threadsPrep), 0, a.s, a.scratch, nodes, int32(p.nc), b2i(outComplex),
		p.bases.Offset(a.off*2*int64(p.rsize)), bstride, a.maxBits); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

// hostScratch makes on the host, and uploads into scratch, the scratch
// planes of distinct beam u's beam channels js in bp_planes' layout (part
// q of the b-th channel at doubles ((b·parts + q)·nodes)): the not-a-knot
// solve of az_za_simple and the pole continuation's great-circle lines
// (beam.Gridded.ChannelParts), which matvis/gpu/beamprep.cu does not do —
// once per used beam channel at set-up, and the bases are then the host's
// planes exactly. The channels' weighted sums stay on the device
// (bp_combine), as for every beam.
func (p *beamPrep) hostScratch(u int, js []int, scratch cuda.DevicePtr, s cuda.Stream) error {
	g := p.srcs[u].Grid
	nodes := g.NZa * g.NAz
	want := int(p.scratchBytes(u) / 8)
	buf := make([]float64, 0, want*len(js))
	for _, j := range js {
		parts, err := p.objs[u].ChannelParts(j, p.mode)
		if err != nil {
			return fmt.Errorf("gpu: channel preparation: %w", err)
		}
		for _, pl := range parts {
			if len(pl) != nodes {
				return fmt.Errorf("gpu: channel preparation: beam %v channel %d: a plane of %d values, want %d × %d", p.objs[u], j, len(pl), g.NZa, g.NAz)
			}
			buf = append(buf, pl...)
		}
	}
	if len(buf) != want*len(js) {
		return fmt.Errorf("gpu: channel preparation: beam %v: %d scratch values for %d channels, want %d each", p.objs[u], len(buf), len(js), want)
	}
	if err := cuda.Upload(p.c, scratch, buf, s); err != nil {
		return fmt.Errorf("gpu: channel preparation: upload the az_za_simple planes: %w", err)
	}
	return nil
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
