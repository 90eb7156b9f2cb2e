package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/phase"
)

// phasing is how an MS or UVFITS output is phased: to the first time's
// zenith (pyuvdata's force_phase; centre nil), to centre, or, for
// UVFITS, not at all (drift).
type phasing struct {
	centre *phase.Centre
	drift  bool
}

// phaseFlags are simulate's --phase-center and --uvfits-drift.
type phaseFlags struct {
	centre *string
	drift  *bool
}

func addPhaseFlags(fs *flag.FlagSet) phaseFlags {
	return phaseFlags{
		centre: fs.String("phase-center", "", "RA_DEG,DEC_DEG: phase an OUT.ms or OUT.uvfits to this ICRS position (degrees, epoch J2000) instead of the first time's zenith (pyuvdata's force_phase, the default)"),
		drift:  fs.Bool("uvfits-drift", false, "write OUT.uvfits unphased (drift scan, the UVH5's uvw and numbers, PHASED = F) instead of phased to the first time's zenith as pyuvsim writes it (docs/uvfits.md)"),
	}
}

// settle checks the flags against the output out and returns its phasing.
func (p phaseFlags) settle(out string) (phasing, error) {
	var ph phasing
	phased := isMS(out) || isUVFITS(out)
	if *p.drift {
		if !isUVFITS(out) {
			return ph, fmt.Errorf("%w: --uvfits-drift is for -o OUT.uvfits, not %s", errUsage, out)
		}
		if *p.centre != "" {
			return ph, fmt.Errorf("%w: --uvfits-drift writes the data unphased; --phase-center %s asks to phase them: give one of the two", errUsage, *p.centre)
		}
		ph.drift = true
	}
	if *p.centre == "" {
		return ph, nil
	}
	if !phased {
		return ph, fmt.Errorf("%w: --phase-center is for -o OUT.ms or OUT.uvfits; %s holds drift-scan (unphased) data", errUsage, out)
	}
	c, err := parseCentre(*p.centre)
	if err != nil {
		return ph, fmt.Errorf("%w: --phase-center %s: %w", errUsage, *p.centre, err)
	}
	ph.centre = &c
	return ph, nil
}

// parseCentre reads "RA_DEG,DEC_DEG" (ICRS) into a centre named as
// pyuvdata's phase() would need a cat_name for it.
func parseCentre(s string) (phase.Centre, error) {
	raS, decS, ok := strings.Cut(s, ",")
	if !ok {
		return phase.Centre{}, fmt.Errorf("want RA_DEG,DEC_DEG (two numbers, ICRS degrees), e.g. 202.45,-30.61")
	}
	ra, err1 := strconv.ParseFloat(strings.TrimSpace(raS), 64)
	dec, err2 := strconv.ParseFloat(strings.TrimSpace(decS), 64)
	switch {
	case err1 != nil || err2 != nil:
		return phase.Centre{}, fmt.Errorf("want RA_DEG,DEC_DEG (two numbers, ICRS degrees), e.g. 202.45,-30.61")
	case !(ra >= 0 && ra < 360):
		return phase.Centre{}, fmt.Errorf("right ascension %v°: want 0 <= RA < 360", ra)
	case !(dec >= -90 && dec <= 90):
		return phase.Centre{}, fmt.Errorf("declination %v°: want -90 <= Dec <= 90", dec)
	}
	return phase.Centre{Name: fmt.Sprintf("ra%.4f_dec%.4f", ra, dec), RA: ra * math.Pi / 180, Dec: dec * math.Pi / 180}, nil
}
