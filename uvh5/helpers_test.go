package uvh5

import (
	"math"
	"math/rand/v2"
)

// testHeader builds a HERA-like header the way pyuvsim lays out its
// output: nants antennas, baselines ant1 >= ant2 with autos, time-major
// baseline-times, uvw = ENU(ant2) - ENU(ant1), pols xx, yy, xy, yx.
func testHeader(rng *rand.Rand, nants, ntimes, nfreqs int) *Header {
	h := &Header{
		Telescope: Telescope{
			TelescopeName: "HERA", Instrument: "HERA", Latitude: -30.72152612068957,
			Longitude: 21.428303826863015, Altitude: 1051.69, XOrientation: "east",
		},
		BltAxis:  BltAxis{BltOrder: "time, baseline"},
		VisUnits: "Jy", History: "written by gomatvis uvh5 tests", Pols: []int64{-5, -6, -7, -8},
	}
	rect, faster := true, false
	h.BltsAreRectangular, h.TimeAxisFasterThanBls = &rect, &faster
	enu := make([][3]float64, nants)
	for a := range nants {
		h.AntennaNumbers = append(h.AntennaNumbers, int64(a*3))
		h.AntennaNames = append(h.AntennaNames, "HH"+itoa(a*3))
		enu[a] = [3]float64{rng.NormFloat64() * 50, rng.NormFloat64() * 50, rng.NormFloat64()}
		h.AntennaPositions = append(h.AntennaPositions, enuToECEF(enu[a], h.Latitude, h.Longitude))
	}
	for t := range ntimes {
		jd := 2459845.0 + float64(t)*600/86400
		for a1 := range nants {
			for a2 := 0; a2 <= a1; a2++ {
				h.Ant1 = append(h.Ant1, int64(a1*3))
				h.Ant2 = append(h.Ant2, int64(a2*3))
				h.UVW = append(h.UVW, [3]float64{enu[a2][0] - enu[a1][0], enu[a2][1] - enu[a1][1], enu[a2][2] - enu[a1][2]})
				h.Times = append(h.Times, jd)
				h.LSTs = append(h.LSTs, math.Mod(3.5+float64(t)*0.0437, 2*math.Pi))
				h.IntegrationTime = append(h.IntegrationTime, 600)
			}
		}
	}
	for f := range nfreqs {
		h.Freqs = append(h.Freqs, 100e6+float64(f)*25e6)
		h.ChannelWidth = append(h.ChannelWidth, 25e6)
	}
	return h
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// enuToECEF rotates a local ENU vector to ECEF axes at (lat, lon) degrees.
func enuToECEF(v [3]float64, lat, lon float64) [3]float64 {
	sl, cl := math.Sincos(lat * math.Pi / 180)
	so, co := math.Sincos(lon * math.Pi / 180)
	e, n, u := v[0], v[1], v[2]
	return [3]float64{
		-so*e - sl*co*n + cl*co*u,
		co*e - sl*so*n + cl*so*u,
		cl*n + sl*u,
	}
}

// ecefToENU is the inverse rotation.
func ecefToENU(v [3]float64, lat, lon float64) [3]float64 {
	sl, cl := math.Sincos(lat * math.Pi / 180)
	so, co := math.Sincos(lon * math.Pi / 180)
	return [3]float64{
		-so*v[0] + co*v[1],
		-sl*co*v[0] - sl*so*v[1] + cl*v[2],
		cl*co*v[0] + cl*so*v[1] + sl*v[2],
	}
}

// randomData returns n visibilities, flags and nsamples.
func randomData(rng *rand.Rand, n int) ([]complex128, []bool, []float32) {
	vis := make([]complex128, n)
	flags := make([]bool, n)
	ns := make([]float32, n)
	for i := range vis {
		vis[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		flags[i] = rng.IntN(5) == 0
		ns[i] = float32(rng.IntN(4)) / 2
	}
	return vis, flags, ns
}

// withDefaults returns a copy of h with the defaults the writer fills in
// made explicit, which is what reading the file back gives. They are
// written here from pyuvdata's conventions, not taken from the writer's
// own defaulting (a test of the writer must not ask the writer): the
// telescope frame "itrs"; one spectral window, number 0, for every
// channel; an unprojected phase center named "unprojected", whose
// apparent RA is the LST and apparent Dec the telescope's latitude (in
// radians) at every baseline-time, with frame position angle 0
// (pyuvdata's _set_app_coords_helper for an unprojected catalog entry).
func withDefaults(h *Header) Header {
	c := *h
	n := len(h.Ant1)
	if c.TelescopeFrame == "" {
		c.TelescopeFrame = "itrs"
	}
	if len(c.SpwArray) == 0 {
		c.SpwArray = []int64{0}
	}
	if len(c.FlexSpwIDArray) == 0 {
		c.FlexSpwIDArray = make([]int64, len(h.Freqs))
		for i := range c.FlexSpwIDArray {
			c.FlexSpwIDArray[i] = c.SpwArray[0]
		}
	}
	if c.PhaseCenterName == "" {
		c.PhaseCenterName = "unprojected"
	}
	if len(c.PhaseCenterAppRA) == 0 {
		c.PhaseCenterAppRA = append([]float64(nil), h.LSTs...)
	}
	if len(c.PhaseCenterAppDec) == 0 {
		c.PhaseCenterAppDec = make([]float64, n)
		for i := range c.PhaseCenterAppDec {
			c.PhaseCenterAppDec[i] = h.Latitude * math.Pi / 180
		}
	}
	if len(c.PhaseCenterFramePA) == 0 {
		c.PhaseCenterFramePA = make([]float64, n)
	}
	return c
}
