package imaging

import (
	"bytes"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// astropyWorld has astropy read the FITS file's WCS and give the
// RA/Dec (degrees) of the pixels (0-based, fractional) listed.
func astropyWorld(t *testing.T, path string, px [][2]float64) [][2]float64 {
	t.Helper()
	py := sharedtest.Python(t, "astropy.wcs", "python3-astropy")
	var in strings.Builder
	for _, p := range px {
		fmt.Fprintf(&in, "%.17g %.17g\n", p[0], p[1])
	}
	const script = `import sys
from astropy.io import fits
from astropy.wcs import WCS
w = WCS(fits.getheader(sys.argv[1])).celestial
for line in sys.stdin:
    x, y = map(float, line.split())
    ra, dec = w.wcs_pix2world([[x, y]], 0)[0]
    print("%.17g %.17g" % (ra, dec))
`
	cmd := exec.Command(py, "-c", script, path)
	cmd.Stdin = strings.NewReader(in.String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("astropy: %v\n%s", err, errb.String())
	}
	var res [][2]float64
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a, d float64
		if _, err := fmt.Sscan(line, &a, &d); err != nil {
			t.Fatalf("astropy printed %q: %v", line, err)
		}
		res = append(res, [2]float64{a, d})
	}
	if len(res) != len(px) {
		t.Fatalf("astropy gave %d positions for %d pixels", len(res), len(px))
	}
	return res
}

// separation is the angle between two RA/Dec positions (radians).
func separation(a1, d1, a2, d2 float64) float64 {
	s := math.Sin((d2-d1)/2)*math.Sin((d2-d1)/2) + math.Cos(d1)*math.Cos(d2)*math.Sin((a2-a1)/2)*math.Sin((a2-a1)/2)
	return 2 * math.Asin(math.Sqrt(s))
}

// TestOffCentreRADec: a point source at a random ICRS position 3° to 12°
// (the image reaches 14.7°) from a centre at Dec −30.7° (HERA's zenith), simulated as
// S·exp(+2πi(u l + v m + w(n − 1))) with (l, m) its orthographic
// projection, is imaged; the peak, fitted between pixels, taken to RA/Dec
// by astropy's reading of the FITS file's WCS, is within a tenth of a
// cell of the source. A second set of pixels checks WCS.RADec against
// astropy to 1e-9 of a cell.
func TestOffCentreRADec(t *testing.T) {
	rng := sharedtest.RNG(t, 4)
	v := randomVis(rng, 400, 3)
	v.Weight = nil
	g := Geometry{N: 128, Cell: 0.004}
	w := WCS{RA: 1.2, Dec: -30.7 * math.Pi / 180, Freq: 150e6, Bandwidth: 1e6, Stokes: 1}
	var want [][2]float64
	var px [][2]float64
	var probes [][2]float64
	for range 3 {
		// A position 3° to 12° out, in a random direction.
		r, th := (3+9*rng.Float64())*math.Pi/180, 2*math.Pi*rng.Float64()
		l0, m0 := math.Sin(r)*math.Cos(th), math.Sin(r)*math.Sin(th)
		ra, dec := w.RADec(l0, m0)
		if l, m, ok := w.LM(ra, dec); !ok || math.Abs(l-l0) > 1e-12 || math.Abs(m-m0) > 1e-12 {
			t.Fatalf("LM(RADec(%g, %g)) = %g, %g", l0, m0, l, m)
		}
		n0 := math.Sqrt(1 - l0*l0 - m0*m0)
		nf := len(v.Freqs)
		v.Data = make([]complex128, len(v.UVW)*nf)
		for j := range v.Data {
			b, f := v.UVW[j/nf], v.Freqs[j%nf]/SpeedOfLight
			v.Data[j] = 2 * cmplx.Exp(complex(0, 2*math.Pi*f*(b[0]*l0+b[1]*m0+b[2]*(n0-1))))
		}
		im, err := Dirty(v, g, Weighting{Mode: Natural}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		x, y := argmax(im)
		if x < 1 || y < 1 || x > g.N-2 || y > g.N-2 {
			t.Fatalf("the peak is at the edge, pixel (%d, %d), for a source at l, m = %g, %g", x, y, l0, m0)
		}
		fx := float64(x) + vertex(im.At(x-1, y), im.At(x, y), im.At(x+1, y))
		fy := float64(y) + vertex(im.At(x, y-1), im.At(x, y), im.At(x, y+1))
		want = append(want, [2]float64{ra, dec})
		px = append(px, [2]float64{fx, fy})
		probes = append(probes, [2]float64{float64(x), float64(y)})
	}
	path := filepath.Join(t.TempDir(), "img.fits")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFITS(fh, &Image{Geometry: g, Pix: make([]float64, g.N*g.N)}, w); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	got := astropyWorld(t, path, append(px, probes...))
	deg := math.Pi / 180
	for i := range want {
		sep := separation(got[i][0]*deg, got[i][1]*deg, want[i][0], want[i][1])
		t.Logf("source %d: fitted peak (%.3f, %.3f) is %.3g cell from it by astropy's WCS", i, px[i][0], px[i][1], sep/g.Cell)
		if sep > 0.1*g.Cell {
			t.Errorf("source %d at RA %.6f°, Dec %.6f°: the fitted peak at pixel (%.3f, %.3f) is at RA %.6f°, Dec %.6f° by astropy, %.3g cell away", i, want[i][0]/deg, want[i][1]/deg, px[i][0], px[i][1], got[i][0], got[i][1], sep/g.Cell)
		}
		p := probes[i]
		ra, dec := w.RADec(g.LM(int(p[0]), int(p[1])))
		q := got[len(want)+i]
		if sep := separation(q[0]*deg, q[1]*deg, ra, dec); sep > 1e-9*g.Cell {
			t.Errorf("pixel %v: WCS.RADec (%.9f°, %.9f°), astropy (%.9f°, %.9f°)", p, ra/deg, dec/deg, q[0], q[1])
		}
	}
}
