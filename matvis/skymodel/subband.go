package skymodel

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// Interp selects how a Subband sky is interpolated between its subbands.
type Interp int

const (
	// CubicSpline is scipy.interpolate.interp1d(kind="cubic"): a not-a-knot
	// cubic spline through the subband fluxes, pyradiosky's at_frequencies
	// default and therefore what pyuvsim uses. It needs 4 or more subbands.
	CubicSpline Interp = iota
	// Linear interpolates linearly between neighbouring subbands.
	Linear
)

// SetSubbandInterp chooses the interpolation of a Subband sky (CubicSpline
// by default); it has no effect on other spectral types.
func (s *Sky) SetSubbandInterp(k Interp) { s.interp = k }

// subbandModel evaluates a Subband sky. Interpolation is linear in the
// data, so per frequency it reduces to one weight per subband shared by
// all components; components with NaN Stokes at some subbands are grouped
// by which subbands are usable and get their own weights (pyradiosky's
// nan_handling="clip": interpolate on the non-NaN subbands, hold the
// nearest non-NaN value beyond them, NaN if none is usable).
//
// For the cubic spline over all subbands the per-component second
// derivatives are computed once per Stokes parameter, on first use (one
// extra table the size of that Stokes' subband fluxes), so each channel
// reads four rows instead of all of them.
type subbandModel struct {
	n      int
	all    knots
	groups []nanGroup
	m2     [4]lazyRows
}

// lazyRows holds a Stokes parameter's spline second derivatives, one row
// of n per subband, computed once.
type lazyRows struct {
	once sync.Once
	rows [][]float64
}

func (m *subbandModel) secondDerivs(p int, src []float64) [][]float64 {
	lr := &m.m2[p]
	lr.once.Do(func() {
		nf := len(m.all.x)
		y := make([][]float64, nf)
		lr.rows = make([][]float64, nf)
		buf := make([]float64, nf*m.n)
		for k := range nf {
			y[k] = src[k*m.n : (k+1)*m.n]
			lr.rows[k] = buf[k*m.n : (k+1)*m.n]
		}
		m.all.td.solveRows(y, lr.rows)
	})
	return lr.rows
}

type nanGroup struct {
	rows    []int // usable subband rows
	members []int // components
	k       knots
}

func newSubbandModel(freqs []float64, st *[4][]float64, n int) (*subbandModel, error) {
	if err := sortSubbands(freqs, st, n); err != nil {
		return nil, err
	}
	m := &subbandModel{n: n, all: newKnots(freqs)}
	byMask := map[string]int{}
	mask := make([]byte, len(freqs))
	for i := range n {
		bad := false
		for k := range freqs {
			mask[k] = 1
			for p := range 4 {
				if math.IsNaN(st[p][k*n+i]) {
					mask[k], bad = 0, true
				}
			}
		}
		if !bad {
			continue
		}
		g, ok := byMask[string(mask)]
		if !ok {
			g = len(m.groups)
			byMask[string(mask)] = g
			m.groups = append(m.groups, newNaNGroup(freqs, mask))
		}
		m.groups[g].members = append(m.groups[g].members, i)
	}
	return m, nil
}

func newNaNGroup(freqs []float64, mask []byte) nanGroup {
	var g nanGroup
	var x []float64
	for k, ok := range mask {
		if ok == 1 {
			g.rows = append(g.rows, k)
			x = append(x, freqs[k])
		}
	}
	g.k = newKnots(x)
	return g
}

// sortSubbands orders the subbands by frequency (interp1d sorts too) and
// rejects repeated frequencies.
func sortSubbands(freqs []float64, st *[4][]float64, n int) error {
	nf := len(freqs)
	order := make([]int, nf)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return freqs[order[a]] < freqs[order[b]] })
	sorted := true
	for k := range order {
		if order[k] != k {
			sorted = false
		}
		if k > 0 && freqs[order[k]] == freqs[order[k-1]] {
			return fmt.Errorf("skymodel: subband frequency %g Hz appears twice", freqs[order[k]])
		}
	}
	if sorted {
		return nil
	}
	f2 := make([]float64, nf)
	for k, o := range order {
		f2[k] = freqs[o]
	}
	copy(freqs, f2)
	for p := range 4 {
		s2 := make([]float64, len(st[p]))
		for k, o := range order {
			copy(s2[k*n:(k+1)*n], st[p][o*n:(o+1)*n])
		}
		st[p] = s2
	}
	return nil
}

func (m *subbandModel) eval(f float64, kind Interp, p int, src, dst []float64) error {
	x := m.all.x
	if f > x[len(x)-1] {
		return fmt.Errorf("skymodel: %.6f Hz is above the highest subband frequency %.6f Hz: %w", f, x[len(x)-1], ErrNoFrequency)
	}
	if f < x[0] {
		return fmt.Errorf("skymodel: %.6f Hz is below the lowest subband frequency %.6f Hz: %w", f, x[0], ErrNoFrequency)
	}
	if kind == CubicSpline && len(x) < 4 {
		return fmt.Errorf("skymodel: cubic-spline interpolation needs at least 4 subbands, this sky has %d (use Linear)", len(x))
	}
	n := m.n
	if len(x) == 1 {
		copy(dst, src)
	} else {
		j, a, b, ca, cb := m.all.segment(f)
		y0, y1 := src[j*n:(j+1)*n], src[(j+1)*n:(j+2)*n]
		if kind == Linear {
			for i := range dst {
				dst[i] = a*y0[i] + b*y1[i]
			}
		} else {
			mm := m.secondDerivs(p, src)
			m0, m1 := mm[j], mm[j+1]
			for i := range dst {
				dst[i] = a*y0[i] + b*y1[i] + ca*m0[i] + cb*m1[i]
			}
		}
	}
	for gi := range m.groups {
		m.groups[gi].eval(f, kind, n, src, dst)
	}
	return nil
}

func (g *nanGroup) eval(f float64, kind Interp, n int, src, dst []float64) {
	x := g.k.x
	if len(x) == 0 {
		for _, i := range g.members {
			dst[i] = math.NaN()
		}
		return
	}
	var w []float64
	switch {
	case f >= x[len(x)-1]:
		w = make([]float64, len(x))
		w[len(x)-1] = 1
	case f <= x[0]:
		w = make([]float64, len(x))
		w[0] = 1
	default:
		w = g.k.weights(f, kind)
	}
	for _, i := range g.members {
		v := 0.0
		for k, wk := range w {
			if wk != 0 {
				v += wk * src[g.rows[k]*n+i]
			}
		}
		dst[i] = v
	}
}
