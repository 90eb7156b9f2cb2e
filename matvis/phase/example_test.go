package phase_test

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
)

// A writer phases its rows time block by time block: one At per time, one
// Apply per block of rows. Here the drift visibility of a source at the
// zenith of the first time, on one baseline, comes out with zero phase
// after phasing to that zenith (pyuvdata's phase_to_time, which its
// force_phase uses).
func Example() {
	site := astro.Site{LatDeg: -30.72152612068957, LonDeg: 21.428303826863015, HeightM: 1051.69}
	enu := [][3]float64{{0, 0, 0}, {14.6, 0, 0.3}}
	const jd = 2459845.0
	eop := astro.EOP{UT1MinusUTCSec: -0.005722, XpArcsec: 0.289229, YpArcsec: 0.276966}
	centre, err := phase.ZenithCentre(site, jd, eop)
	if err != nil {
		panic(err)
	}
	p, err := phase.New(site, phase.ECEFFromENU(site, enu), centre)
	if err != nil {
		panic(err)
	}
	lst, err := astro.ApparentLST(jd, site.LonDeg*math.Pi/180, eop)
	if err != nil {
		panic(err)
	}
	tm, err := p.At(jd, lst, eop)
	if err != nil {
		panic(err)
	}
	// Drift data: a source at the zenith, uvw = ENU(ant2) − ENU(ant1), so
	// the fringe is exp(+2πi·up·f/c) (0.3 m up at 150 MHz: 0.9431 rad).
	freqs := []float64{150e6}
	vis := []complex128{cmplx.Exp(complex(0, 2*math.Pi*0.3*freqs[0]/phase.SpeedOfLight))}
	uvw := make([][3]float64, 1)
	fmt.Printf("before: phase %.4f rad\n", cmplx.Phase(vis[0]))
	if err := tm.Apply([]int{0}, []int{1}, freqs, 1, vis, uvw); err != nil {
		panic(err)
	}
	fmt.Printf("after:  phase %.4f rad, |uvw| %.4f m, centre %s\n", math.Abs(cmplx.Phase(vis[0])),
		math.Sqrt(uvw[0][0]*uvw[0][0]+uvw[0][1]*uvw[0][1]+uvw[0][2]*uvw[0][2]), centre.Name)
	// Output:
	// before: phase 0.9431 rad
	// after:  phase 0.0000 rad, |uvw| 14.6031 m, centre zenith_at_jd2459845.000000
}
