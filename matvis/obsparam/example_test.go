package obsparam_test

import (
	"fmt"
	"log"

	"github.com/gomatvis/gomatvis/matvis/obsparam"
)

func ExampleRead() {
	cfg, err := obsparam.Read("../../testdata/reference/pyuvsim-fullstokes-airy/obsparam.yaml")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("freqs (Hz):", cfg.Freqs)
	fmt.Printf("times (JD): %.6f\n", cfg.TimesJD)
	fmt.Print("antennas: ", len(cfg.Telescope.Antennas), " beams:")
	for _, b := range cfg.Telescope.Beams {
		fmt.Printf(" %s(diameter %g m)", b.Type, b.DiameterM)
	}
	fmt.Println()
	fmt.Println("beam of each antenna:", cfg.Telescope.BeamIndex())
	fmt.Println("pols:", cfg.Pols, "polarized:", cfg.Polarized())
	fmt.Println("baselines:", len(cfg.AntPairs()), "output:", cfg.OutputPath())
	// Output:
	// freqs (Hz): [1e+08 1.3e+08 1.6e+08]
	// times (JD): [2459845.000000 2459845.006944 2459845.013889]
	// antennas: 7 beams: airy(diameter 6 m) uniform(diameter 0 m)
	// beam of each antenna: [0 1 0 0 1 0 0]
	// pols: [-5 -6 -7 -8] polarized: true
	// baselines: 28 output: fullstokes-airy.uvh5
}
