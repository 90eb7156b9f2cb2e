package ms

import (
	"bytes"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/casatable"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
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

// TestDriftPiecesEqualWhole: a Drift fed each time's rows in random runs
// (WriteRows), phased and written in random small pieces, writes the main
// table byte for byte as WriteTime of whole times in one piece each, with
// random flags and sample counts.
func TestDriftPiecesEqualWhole(t *testing.T) {
	rng := sharedtest.RNG(t, 7)
	for _, name := range refCases {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(refDir, "pyuvsim-"+name)
			f, err := uvh5.ReadFile(filepath.Join(src, name+".uvh5"))
			if err != nil {
				t.Fatal(err)
			}
			f.Flags = make([]bool, len(f.Vis))
			f.Nsamples = make([]float32, len(f.Vis))
			for i := range f.Vis {
				f.Flags[i] = rng.IntN(5) == 0
				f.Nsamples[i] = float32(rng.IntN(4))
			}
			dir := t.TempDir()
			write := func(out string, pieces bool) {
				d, err := NewDrift(out, &f.Header, Phasing{EOP: eopOf(t, src)})
				if err != nil {
					t.Fatal(err)
				}
				h := &f.Header
				nb, nv := d.w.h.Baselines, len(h.Freqs)*len(h.Pols)
				if pieces {
					d.piece = 1 + rng.IntN(3*nv)
				} else {
					d.piece = nb * nv
				}
				for ti, jd := range d.w.h.Times {
					for k0 := 0; k0 < nb; {
						k1 := nb
						if pieces {
							k1 = min(nb, k0+1+rng.IntN(nb/2))
						}
						lo, hi := ti*nb+k0, ti*nb+k1
						b := DriftBlock{JD: jd, LST: h.LSTs[lo], Vis: f.Vis[lo*nv : hi*nv], Flags: f.Flags[lo*nv : hi*nv], Nsamples: f.Nsamples[lo*nv : hi*nv]}
						for k := lo; k < hi; k++ {
							b.Ant1, b.Ant2 = append(b.Ant1, int(h.Ant1[k])), append(b.Ant2, int(h.Ant2[k]))
						}
						if pieces {
							err = d.WriteRows(k0, b)
						} else {
							err = d.WriteTime(b)
						}
						if err != nil {
							t.Fatal(err)
						}
						k0 = k1
					}
				}
				if err := d.Close(); err != nil {
					t.Fatal(err)
				}
			}
			whole, parts := filepath.Join(dir, "whole.ms"), filepath.Join(dir, "parts.ms")
			write(whole, false)
			write(parts, true)
			for _, file := range []string{"table.dat", "table.f0", "table.info"} {
				a, err := os.ReadFile(filepath.Join(whole, file))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(parts, file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s: %d bytes written whole, %d in pieces, not equal", file, len(a), len(b))
				}
			}
		})
	}
}
