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

// subbandModel evaluates a Subband sky. Components whose Stokes are NaN at
// some subbands are grouped by which subbands are usable and interpolated
// over those only, holding the nearest usable value beyond them (NaN if
// none is): pyradiosky's nan_handling="clip", at_frequencies' default.
type subbandModel struct {
	n      int
	all    *splineSet // every component over every subband
	groups []*splineSet
}

// splineSet is a set of components interpolated over the same knots. The
// cubic spline's second derivatives are computed per Stokes parameter on
// first use (a table the size of the set's fluxes), so each channel reads
// four values per component instead of one per subband.
type splineSet struct {
	x       []float64
	td      *tridiag // nil with fewer than 4 knots (linear only)
	rows    []int    // subband row of each knot
	members []int    // components; nil means all, in order
	data    [4]setData
}

type setData struct {
	yOnce, mOnce sync.Once
	y, m         [][]float64 // per knot, per member
}

func newSplineSet(freqs []float64, rows, members []int) *splineSet {
	s := &splineSet{rows: rows, members: members}
	for _, r := range rows {
		s.x = append(s.x, freqs[r])
	}
	if len(s.x) >= 4 {
		s.td = newTridiag(s.x)
	}
	return s
}

// values returns the fluxes of Stokes p per knot and member: views into
// src for the full set, gathered copies for a group.
func (s *splineSet) values(p int, src []float64, n int) [][]float64 {
	d := &s.data[p]
	d.yOnce.Do(func() {
		d.y = make([][]float64, len(s.rows))
		for k, r := range s.rows {
			row := src[r*n : (r+1)*n]
			if s.members == nil {
				d.y[k] = row
				continue
			}
			d.y[k] = make([]float64, len(s.members))
			for c, i := range s.members {
				d.y[k][c] = row[i]
			}
		}
	})
	return d.y
}

// secondDerivs returns the spline second derivatives of Stokes p.
func (s *splineSet) secondDerivs(p int, y [][]float64) [][]float64 {
	d := &s.data[p]
	d.mOnce.Do(func() {
		m := len(y[0])
		buf := make([]float64, len(y)*m)
		d.m = make([][]float64, len(y))
		for k := range d.m {
			d.m[k] = buf[k*m : (k+1)*m]
		}
		s.td.solveRows(y, d.m)
	})
	return d.m
}

func newSubbandModel(freqs []float64, st *[4][]float64, n int) (*subbandModel, error) {
	if err := sortSubbands(freqs, st, n); err != nil {
		return nil, err
	}
	all := make([]int, len(freqs))
	for k := range all {
		all[k] = k
	}
	m := &subbandModel{n: n, all: newSplineSet(freqs, all, nil)}
	byMask := map[string]int{}
	mask := make([]byte, len(freqs))
	for i := range n {
		bad := false
		for k := range freqs {
			mask[k] = 1
			for p := range 4 {
				if st[p] != nil && math.IsNaN(st[p][k*n+i]) {
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
			var rows []int
			for k, ok := range mask {
				if ok == 1 {
					rows = append(rows, k)
				}
			}
			m.groups = append(m.groups, newSplineSet(freqs, rows, []int{}))
		}
		m.groups[g].members = append(m.groups[g].members, i)
	}
	return m, nil
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
		if st[p] == nil {
			continue // zero
		}
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
	m.all.eval(f, kind, p, src, dst, m.n)
	for _, g := range m.groups {
		g.eval(f, kind, p, src, dst, m.n)
	}
	return nil
}

// eval writes the set's interpolated Stokes p at f into dst, clipping to
// the first/last knot outside them (NaN without knots).
func (s *splineSet) eval(f float64, kind Interp, p int, src, dst []float64, n int) {
	put := func(c int, v float64) {
		if s.members == nil {
			dst[c] = v
		} else {
			dst[s.members[c]] = v
		}
	}
	size := len(s.members)
	if s.members == nil {
		size = n
	}
	if len(s.x) == 0 {
		for c := range size {
			put(c, math.NaN())
		}
		return
	}
	y := s.values(p, src, n)
	if last := len(s.x) - 1; f <= s.x[0] || f >= s.x[last] {
		k := 0
		if f >= s.x[last] {
			k = last
		}
		for c := range size {
			put(c, y[k][c])
		}
		return
	}
	j, a, b, ca, cb := segment(s.x, f)
	y0, y1 := y[j][:size], y[j+1][:size]
	if kind == Linear || s.td == nil {
		for c := range size {
			put(c, a*y0[c]+b*y1[c])
		}
		return
	}
	mm := s.secondDerivs(p, y)
	m0, m1 := mm[j][:size], mm[j+1][:size]
	if s.members == nil { // the hot path: every component
		for c := range size {
			dst[c] = a*y0[c] + b*y1[c] + ca*m0[c] + cb*m1[c]
		}
		return
	}
	for c := range size {
		put(c, a*y0[c]+b*y1[c]+ca*m0[c]+cb*m1[c])
	}
}
