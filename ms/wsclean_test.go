package ms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/phase"
	"github.com/gomatvis/gomatvis/uvh5"
)

// pointSourceMS writes an MS with the antennas, times and channels of the
// stokesI-gaussian reference whose rows see one point source of
// apparent flux a (every polarization: XX = YY = a, XY = YX = 0 in the
// data, so Stokes I = (XX + YY)/2 = a) at direction cosines (l, m) from
// the phase centre (the first time's zenith), with a unit beam. In the
// phased frame the visibility is a·exp(+2πi(u·l + v·m + w·(n − 1))·f/c)
// (matvis/phase's convention, which pyuvdata's phased files confirm).
func pointSourceMS(t *testing.T, path string, a, l, m float64) {
	t.Helper()
	const name = "stokesI-gaussian"
	src := filepath.Join(refDir, "pyuvsim-"+name)
	f, err := uvh5.ReadFile(filepath.Join(src, name+".uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := HeaderFromUVH5(&f.Header)
	if err != nil {
		t.Fatal(err)
	}
	eop := eopOf(t, src)
	fh := &f.Header
	site := astro.Site{LatDeg: fh.Latitude, LonDeg: fh.Longitude, HeightM: fh.Altitude}
	e0, err := eop(h.Times[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := phase.ZenithCentre(site, h.Times[0], e0)
	if err != nil {
		t.Fatal(err)
	}
	h.CentreName, h.CentreRA, h.CentreDec = c.Name, c.RA, c.Dec
	ph, err := phase.New(site, fh.AntennaPositions, c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	index := map[int64]int{}
	for i, n := range fh.AntennaNumbers {
		index[n] = i
	}
	n := math.Sqrt(1 - l*l - m*m)
	nb, nf, np := h.Baselines, len(h.Freqs), len(h.Pols)
	for ti, jd := range h.Times {
		e, err := eop(jd)
		if err != nil {
			t.Fatal(err)
		}
		tm, err := ph.At(jd, fh.LSTs[ti*nb], e)
		if err != nil {
			t.Fatal(err)
		}
		b := Block{JD: fill(nb, jd)}
		for k := ti * nb; k < (ti+1)*nb; k++ {
			uvw := tm.UVW(index[fh.Ant1[k]], index[fh.Ant2[k]])
			b.Ant1 = append(b.Ant1, int(fh.Ant1[k]))
			b.Ant2 = append(b.Ant2, int(fh.Ant2[k]))
			b.UVW = append(b.UVW, uvw)
			for _, fr := range h.Freqs {
				v := complex(a, 0) * cmplx.Exp(complex(0, 2*math.Pi*(uvw[0]*l+uvw[1]*m+uvw[2]*(n-1))*fr/phase.SpeedOfLight))
				for _, p := range h.Pols {
					if p == -5 || p == -6 {
						b.Data = append(b.Data, complex64(v))
					} else {
						b.Data = append(b.Data, 0)
					}
				}
			}
		}
		if len(b.Data) != nb*nf*np {
			t.Fatalf("built %d visibilities", len(b.Data))
		}
		if err := w.WriteRows(ti*nb, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// fitsImage is the first plane of a FITS image and the header cards.
type fitsImage struct {
	cards map[string]string
	nx    int
	pix   []float32
}

func (im *fitsImage) num(t *testing.T, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(im.cards[key]), 64)
	if err != nil {
		t.Fatalf("FITS card %s = %q: %v", key, im.cards[key], err)
	}
	return v
}

// readFITS reads a BITPIX −32 image as WSClean writes it.
func readFITS(t *testing.T, path string) *fitsImage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	im := &fitsImage{cards: map[string]string{}}
	off := 0
	for end := false; !end; off += 2880 {
		if off+2880 > len(b) {
			t.Fatalf("%s: no END card", path)
		}
		for c := off; c < off+2880; c += 80 {
			card := string(b[c : c+80])
			if strings.HasPrefix(card, "END ") {
				end = true
				break
			}
			if k, v, ok := strings.Cut(card, "="); ok {
				v, _, _ = strings.Cut(v, "/")
				im.cards[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), "'")
			}
		}
	}
	if im.cards["BITPIX"] != "-32" {
		t.Fatalf("%s: BITPIX %s, want -32", path, im.cards["BITPIX"])
	}
	im.nx = int(im.num(t, "NAXIS1"))
	ny := int(im.num(t, "NAXIS2"))
	im.pix = make([]float32, im.nx*ny)
	if err := binary.Read(bytes.NewReader(b[off:]), binary.BigEndian, im.pix); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return im
}

// peak is the image's largest pixel and its (x, y), 0-based.
func (im *fitsImage) peak() (v float32, x, y int) {
	v = float32(math.Inf(-1))
	for i, p := range im.pix {
		if p > v {
			v, x, y = p, i%im.nx, i/im.nx
		}
	}
	return v, x, y
}

// dirtyImage runs WSClean on an MS and returns its dirty image: natural
// weighting, Stokes I, 0.5° pixels (the array's beam is ~5° wide).
func dirtyImage(t *testing.T, ms string) *fitsImage {
	t.Helper()
	bin, err := exec.LookPath("wsclean")
	if err != nil {
		t.Skip("wsclean is not installed: apt-get install wsclean")
	}
	out := filepath.Join(filepath.Dir(ms), "img")
	cmd := exec.Command(bin, "-j", "1", "-size", "256", "256", "-scale", "0.5", "-weight", "natural", "-pol", "I", "-niter", "0", "-name", out, ms)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wsclean: %v\n%s", err, b)
	}
	return readFITS(t, out+"-dirty.fits")
}

// TestWSCleanPeakFlux: a point source at the phase centre images to a
// dirty peak equal to its flux (every visibility is that flux once
// phased, so the natural-weighted dirty image is the flux at the centre).
func TestWSCleanPeakFlux(t *testing.T) {
	const a = 3.7
	path := filepath.Join(t.TempDir(), "centre.ms")
	pointSourceMS(t, path, a, 0, 0)
	im := dirtyImage(t, path)
	v, x, y := im.peak()
	cx, cy := int(im.num(t, "CRPIX1"))-1, int(im.num(t, "CRPIX2"))-1
	t.Logf("peak %.5f Jy at pixel (%d, %d); centre (%d, %d); flux %v Jy", v, x, y, cx, cy, a)
	if x != cx || y != cy {
		t.Errorf("peak at (%d, %d), want the centre pixel (%d, %d)", x, y, cx, cy)
	}
	if math.Abs(float64(v)-a) > 0.01*a {
		t.Errorf("peak %v Jy, want %v Jy within 1%%", v, a)
	}
}

// TestWSCleanPeakPosition: a point source off the phase centre (east and
// north) images to a dirty peak at its own pixel, as WSClean's header
// (SIN projection: x = CRPIX1 + l/CDELT1, y = CRPIX2 + m/CDELT2, with RA
// increasing to the left) places it; a sign error in UVW or DATA would
// mirror it through the centre.
func TestWSCleanPeakPosition(t *testing.T) {
	for _, lm := range [][2]float64{{0.08, 0.05}, {-0.06, 0.1}} {
		t.Run(fmt.Sprintf("l=%v,m=%v", lm[0], lm[1]), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "off.ms")
			pointSourceMS(t, path, 2, lm[0], lm[1])
			im := dirtyImage(t, path)
			_, x, y := im.peak()
			deg := math.Pi / 180
			wx := im.num(t, "CRPIX1") - 1 + lm[0]/(im.num(t, "CDELT1")*deg)
			wy := im.num(t, "CRPIX2") - 1 + lm[1]/(im.num(t, "CDELT2")*deg)
			t.Logf("peak at pixel (%d, %d); the source's pixel (%.2f, %.2f)", x, y, wx, wy)
			if math.Abs(float64(x)-wx) > 1 || math.Abs(float64(y)-wy) > 1 {
				t.Errorf("peak at (%d, %d), want the source's pixel (%.2f, %.2f) within 1", x, y, wx, wy)
			}
		})
	}
}
