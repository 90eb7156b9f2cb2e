package uvh5

import (
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// everyFieldHeader is a small valid header with every field of Header set
// to a value that is not its default, built by field assignment only, so
// that the same function compiles whatever nested structs the fields are
// grouped in (they are promoted). A field the file does not reflect would
// leave the golden hash below unchanged when it changes, so every one
// here differs from what the writer would default it to.
func everyFieldHeader() *Header {
	h := new(Header)
	h.TelescopeName = "HERA"
	h.Instrument = "HERA-instr"
	h.TelescopeFrame = "mcmf"
	h.Ellipsoid = "SPHERE"
	h.Latitude = -30.72152612068957
	h.Longitude = 21.428303826863015
	h.Altitude = 1051.69
	h.AntennaNames = []string{"HH0", "HH3", "HH7"}
	h.AntennaNumbers = []int64{0, 3, 7}
	h.AntennaPositions = [][3]float64{{0, 0, 0}, {14.6, -0.5, 1.25}, {-7.3, 12.64, 0.5}}
	h.Ant1 = []int64{0, 3, 7, 0, 3, 7}
	h.Ant2 = []int64{0, 0, 3, 0, 0, 3}
	h.UVW = [][3]float64{{0, 0, 0}, {-14.6, 0.5, -1.25}, {21.9, -13.14, 0.75}, {0, 0, 0}, {-14.6, 0.5, -1.25}, {21.9, -13.14, 0.75}}
	h.Times = []float64{2459845.25, 2459845.25, 2459845.25, 2459845.5, 2459845.5, 2459845.5}
	h.LSTs = []float64{1.5, 1.5, 1.5, 3.07, 3.07, 3.07}
	h.IntegrationTime = []float64{10.5, 10.5, 10.5, 11, 11, 11}
	h.Freqs = []float64{100e6, 125e6}
	h.ChannelWidth = []float64{25e6, 24e6}
	h.SpwArray = []int64{2, 5}
	h.FlexSpwIDArray = []int64{5, 2}
	h.Pols = []int64{-5, -6}
	h.VisUnits = "K str"
	h.History = "golden header\nsecond line"
	h.PhaseCenterName = "drift"
	h.PhaseCenterAppRA = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	h.PhaseCenterAppDec = []float64{-0.5, -0.5, -0.5, -0.25, -0.25, -0.25}
	h.PhaseCenterFramePA = []float64{0.01, 0.02, 0.03, 0.04, 0.05, 0.06}
	h.XOrientation = "north"
	h.BltOrder = "time, baseline"
	rect, faster := true, false
	h.BltsAreRectangular, h.TimeAxisFasterThanBls = &rect, &faster
	h.SinglePrecision = true
	return h
}

// TestHeaderFileBytes pins the bytes of a file written from
// everyFieldHeader: the hashes were taken from files written at commit
// 3efd4ff, before Header's fields were grouped into nested structs, so a
// regrouping (or any other refactoring) that changes a dataset, an
// attribute or their order in the file fails here. Precision matters to
// the layout (visdata's compound type), so both are pinned.
func TestHeaderFileBytes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		single bool
		sha256 string
	}{
		{"single", true, "b6c3084aa367b8b284735b60da196af924d46022f4096ce433f18f4f331d8347"},
		{"double", false, "3405911ebf4347ab7ebdee10b4c6b044cb75ce75649efddadfe120f15c0dc91b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := everyFieldHeader()
			h.SinglePrecision = tc.single
			if err := h.Validate(); err != nil {
				t.Fatal(err)
			}
			n := h.Nblts() * h.Nfreqs() * h.Npols()
			vis := make([]complex128, n)
			for i := range vis {
				vis[i] = complex(float64(i)+0.5, -float64(i)/4)
			}
			path := filepath.Join(t.TempDir(), "golden.uvh5")
			if err := WriteFile(path, h, vis); err != nil {
				t.Fatal(err)
			}
			sharedtest.CheckSHA256(t, path, tc.sha256)
		})
	}
}
