package ms

import (
	"math"
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/casatable"
	"github.com/gomatvis/gomatvis/uvh5"
)

// TestRowsEqualPhasedUVH5 reads the MS of each reference case back with
// casatable.Read (no casacore needed) and compares its rows with
// pyuvdata's own phasing of the same data to the same centre
// (CASE.phased-zenith.uvh5, phase_to_time of the first time): ANTENNA1/2,
// TIME (MJD seconds), UVW, and DATA in CASA order within complex64
// rounding.
func TestRowsEqualPhasedUVH5(t *testing.T) {
	for _, name := range refCases {
		t.Run(name, func(t *testing.T) {
			path := writeRef(t, name, t.TempDir())
			tab, err := casatable.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := uvh5.ReadFile(filepath.Join(refDir, "pyuvsim-"+name, name+".phased-zenith.uvh5"))
			if err != nil {
				t.Fatal(err)
			}
			h := &want.Header
			if tab.Rows != h.Nblts() {
				t.Fatalf("%d rows, the phased UVH5 %d", tab.Rows, h.Nblts())
			}
			col := func(name string) any {
				for i, c := range tab.Desc.Columns {
					if c.Name == name {
						return tab.Values[i]
					}
				}
				t.Fatalf("no column %s", name)
				return nil
			}
			a1, a2 := col("ANTENNA1").([]int32), col("ANTENNA2").([]int32)
			tm, uvw := col("TIME").([]float64), col("UVW").([]float64)
			data := col("DATA").([]complex64)
			nf, np := h.Nfreqs(), h.Npols()
			var pols []int
			for _, p := range h.Pols {
				pols = append(pols, int(p))
			}
			order := casaOrder(pols)
			peak, worstV, worstUVW := 0.0, 0.0, 0.0
			for _, v := range want.Vis {
				peak = max(peak, cmplx.Abs(v))
			}
			for k := range tab.Rows {
				if int64(a1[k]) != h.Ant1[k] || int64(a2[k]) != h.Ant2[k] {
					t.Fatalf("row %d: antennas %d, %d; the UVH5 %d, %d", k, a1[k], a2[k], h.Ant1[k], h.Ant2[k])
				}
				if w := (h.Times[k] - 2400000.5) * 86400; tm[k] != w {
					t.Fatalf("row %d: TIME %v, want %v", k, tm[k], w)
				}
				for j := range 3 {
					worstUVW = max(worstUVW, math.Abs(uvw[3*k+j]-h.UVW[k][j]))
				}
				for c := range nf {
					for i, p := range order {
						got := complex128(data[(k*nf+c)*np+i])
						worstV = max(worstV, cmplx.Abs(got-want.Vis[(k*nf+c)*np+p]))
					}
				}
			}
			t.Logf("max|ΔV|/peak %.3g, max|Δuvw| %.3g m", worstV/peak, worstUVW)
			if worstV > 0x1p-23*peak {
				t.Errorf("DATA differs from pyuvdata's phasing by %.3g of the peak; complex64 rounding is %.3g", worstV/peak, 0x1p-24)
			}
			if worstUVW > 1e-9 {
				t.Errorf("UVW differs from pyuvdata's phasing by %.3g m", worstUVW)
			}
		})
	}
}
