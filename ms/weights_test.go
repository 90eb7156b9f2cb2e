package ms

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gomatvis/gomatvis/internal/casatable"
)

// TestWeightsFlagsOrder checks, from the MS read back, what the reference
// cases cannot (their sample counts are all 1 and nothing is flagged):
// WEIGHT is the median over channels of each correlation's sample counts
// and SIGMA its inverse square root, FLAG and DATA follow CASA's
// correlation order, and FLAG_ROW is set only on a row flagged whole.
func TestWeightsFlagsOrder(t *testing.T) {
	h := smallHeader()
	h.Pols = []int{-5, -6, -7, -8} // xx yy xy yx → CASA order xx xy yx yy
	h.Freqs, h.ChannelWidths = []float64{1e8, 1.1e8, 1.2e8}, []float64{1e7, 1e7, 1e7}
	const nf, np = 3, 4
	b := smallBlock()
	b.Data = make([]complex64, 3*nf*np)
	b.Flags = make([]bool, 3*nf*np)
	b.Nsamples = make([]float32, 3*nf*np)
	for k := range 3 {
		for c := range nf {
			for p := range np {
				i := (k*nf+c)*np + p
				b.Data[i] = complex(float32(100*k+10*c+p), 0)
				b.Nsamples[i] = float32((c+1)*(p+1)) / 4 // the median over 3 channels is channel 1's
				b.Flags[i] = k == 2 || (k == 1 && p == 2)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "w.ms")
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(0, b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tab, err := casatable.Read(path)
	if err != nil {
		t.Fatal(err)
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
	casa := []int{0, 2, 3, 1} // data index of each CASA correlation
	var wantW, wantS []float32
	var wantData []complex64
	var wantFlag []bool
	for k := range 3 {
		for _, p := range casa {
			wt := float32(2*(p+1)) / 4
			wantW = append(wantW, wt)
			wantS = append(wantS, float32(1/math.Sqrt(float64(wt))))
		}
		for c := range nf {
			for _, p := range casa {
				wantData = append(wantData, complex(float32(100*k+10*c+p), 0))
				wantFlag = append(wantFlag, k == 2 || (k == 1 && p == 2))
			}
		}
	}
	for _, c := range []struct {
		name string
		want any
	}{
		{"WEIGHT", wantW}, {"SIGMA", wantS}, {"DATA", wantData}, {"FLAG", wantFlag},
		{"FLAG_ROW", []bool{false, false, true}},
	} {
		if got := col(c.name); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}
