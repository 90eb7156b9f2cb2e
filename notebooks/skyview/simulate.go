package skyview

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/imaging"
	"github.com/gomatvis/gomatvis/matvis/phase"
)

// HexLayout is the first n antennas of a hexagonal grid of the given
// spacing (metres, east-north-up, up = 0), nearest the centre first: 1, 7,
// 19, 37 … fill whole rings (HERA-19, HERA-37); ties within a ring go
// anticlockwise from east, so every prefix is as compact as the grid
// allows.
func HexLayout(n int, spacing float64) [][3]float64 {
	if n <= 0 {
		return nil
	}
	type site struct {
		p         [3]float64
		ring, pos int
	}
	var sites []site
	for ring := 0; len(sites) < n; ring++ {
		if ring == 0 {
			sites = append(sites, site{})
			continue
		}
		// The ring's corners are ring steps along the six unit vectors;
		// its sides walk from one corner towards the next.
		for side := range 6 {
			a0, a1 := float64(side)*math.Pi/3, float64(side+2)*math.Pi/3
			for k := range ring {
				e := spacing * (float64(ring)*math.Cos(a0) + float64(k)*math.Cos(a1))
				no := spacing * (float64(ring)*math.Sin(a0) + float64(k)*math.Sin(a1))
				sites = append(sites, site{p: [3]float64{e, no, 0}, ring: ring, pos: side*ring + k})
			}
		}
	}
	// A ring's sites are not all at the same radius: the corners are
	// farthest. Fill each ring nearest first.
	sort.SliceStable(sites, func(a, b int) bool {
		if sites[a].ring != sites[b].ring {
			return sites[a].ring < sites[b].ring
		}
		ra := math.Hypot(sites[a].p[0], sites[a].p[1])
		rb := math.Hypot(sites[b].p[0], sites[b].p[1])
		if math.Abs(ra-rb) > 1e-9*spacing {
			return ra < rb
		}
		return sites[a].pos < sites[b].pos
	})
	out := make([][3]float64, n)
	for i := range out {
		out[i] = sites[i].p
	}
	return out
}

// simulate runs the largest array through matvis's CPU backend for the
// span's times and phases every cross-correlation (i < j) to the centre.
// The data are pseudo-Stokes I, twice the x feed's visibility: matvis
// gives an unpolarized source I/2 per feed, so a source of S Jy at the
// centre of a beam that is 1 there images at S Jy/beam.
func (e *Explorer) simulate(ctx context.Context, b Beam, spanMin float64) (*phased, error) {
	sc := e.scene
	times := sc.Times(spanMin)
	c := matvis.Config{Antennas: e.enu, Freqs: sc.Freqs, Times: times, Beams: []beam.Beam{b.beam()}}
	for _, s := range sc.Sky {
		ra, dec := e.wcs.RADec(s.L, s.M)
		c.RA, c.Dec = append(c.RA, ra), append(c.Dec, dec)
		for range sc.Freqs {
			c.Flux = append(c.Flux, s.FluxJy)
		}
	}
	var pairs [][2]int
	for i := range e.enu {
		for j := i + 1; j < len(e.enu); j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	c.Options.AntPairs = pairs
	var err error
	// No Earth-orientation values: UT1 = UTC, no polar motion — the
	// same for the simulation and the phasing, so they agree.
	if c.Coords, err = astro.New(astro.Config{Method: astro.MethodAstropy, Site: HERA, TimesJD: times, Warn: func(string) {}}, c.RA, c.Dec); err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	sim, err := matvis.New(c)
	if err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	be := cpu.New()
	defer be.Close()
	res, err := be.Run(ctx, sim)
	if err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	return e.phase(res, times, pairs)
}

// phase turns the result into imaging's rows, time-major, phased.
func (e *Explorer) phase(res *matvis.Result, times []float64, pairs [][2]int) (*phased, error) {
	ph, err := phase.New(HERA, phase.ECEFFromENU(HERA, e.enu), e.centre)
	if err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	nf, np := len(e.scene.Freqs), len(pairs)
	p := &phased{times: len(times), vis: &imaging.Vis{Freqs: e.scene.Freqs,
		UVW: make([][3]float64, len(times)*np), Data: make([]complex128, len(times)*np*nf)}}
	a1, a2 := make([]int, np), make([]int, np)
	for k, ij := range pairs {
		a1[k], a2[k] = ij[0], ij[1]
	}
	lon := HERA.LonDeg * math.Pi / 180
	for t, jd := range times {
		lst, err := astro.ApparentLST(jd, lon, astro.EOP{})
		if err != nil {
			return nil, fmt.Errorf("skyview: %w", err)
		}
		tm, err := ph.At(jd, lst, astro.EOP{})
		if err != nil {
			return nil, fmt.Errorf("skyview: %w", err)
		}
		rows := p.vis.Data[t*np*nf : (t+1)*np*nf]
		for k := range pairs {
			for f := range nf {
				rows[k*nf+f] = 2 * res.At(f, t, k, 0, 0)
			}
		}
		if err := tm.Apply(a1, a2, e.scene.Freqs, 1, rows, p.vis.UVW[t*np:(t+1)*np]); err != nil {
			return nil, fmt.Errorf("skyview: %w", err)
		}
		p.pairs = append(p.pairs, pairs...)
	}
	return p, nil
}
