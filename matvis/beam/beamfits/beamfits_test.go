package beamfits

import (
	"encoding/json"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/astrogo/fitsio"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

func loadNFDipole(t *testing.T) *beam.Gridded {
	t.Helper()
	g, err := Load(sharedtest.HERABeam(t))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLoadBeamFITSHeader(t *testing.T) {
	g := loadNFDipole(t)
	if g.Type() != beam.EField || g.NAxesVec() != 2 || g.NComp() != 2 {
		t.Fatalf("type %v, naxes %d, nfeeds %d; want efield, 2, 2", g.Type(), g.NAxesVec(), g.NComp())
	}
	if f := g.Feeds(); len(f) != 2 || f[0] != "x" || f[1] != "y" {
		t.Errorf("feeds %v, want [x y]", f)
	}
	az, za, fr := g.Az(), g.Za(), g.Freqs()
	if len(az) != 180 || len(za) != 91 || len(fr) != 2 {
		t.Fatalf("grid %d az × %d za × %d freqs, want 180 × 91 × 2", len(az), len(za), len(fr))
	}
	if fr[0] != 100e6 || fr[1] != 101e6 {
		t.Errorf("freqs %v, want [1e8 1.01e8]", fr)
	}
	if math.Abs(az[179]-359*math.Pi/180) > 1e-12 || math.Abs(za[90]-math.Pi) > 1e-12 {
		t.Errorf("last az %v, last za %v; want 359°, 180° in radians", az[179], za[90])
	}
	if !g.Wraps() {
		t.Error("the 0…359° azimuth grid should wrap")
	}
	if g.Basis() != nil {
		t.Error("the file's basis vectors are aligned; want them folded into nil")
	}
	if g.GridPixels() != 180*91 {
		t.Errorf("GridPixels %d, want %d", g.GridPixels(), 180*91)
	}
}

// readScipyNF reads values scipy computed for the shared dipole beam
// (testdata/nf_dipole_scipy.json, from pyuvdata's steps: 3-column azimuth
// extension, then scipy.ndimage.map_coordinates, scipy 1.10.1).
func readScipyNF(t *testing.T) (az, za []float64, raw map[string]json.RawMessage) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "nf_dipole_scipy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw["az"], &az); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw["za"], &za); err != nil {
		t.Fatal(err)
	}
	return az, za, raw
}

// TestBeamFITSMatchesScipy compares polarized and unpolarized responses of
// the shared beam, orders 1 and 3, at both channels and at points including
// az = 0, 2π, the extended grid's edges and points just outside it.
func TestBeamFITSMatchesScipy(t *testing.T) {
	g0 := loadNFDipole(t)
	az, za, raw := readScipyNF(t)
	n := len(az)
	for _, order := range []int{1, 3} {
		g, err := g0.WithOrder(order)
		if err != nil {
			t.Fatal(err)
		}
		for fi, f := range []float64{100e6, 101e6} {
			// Polarized.
			var pol [4][2][]float64
			if err := json.Unmarshal(raw[key("pol", order, fi, -1)], &pol); err != nil {
				t.Fatal(err)
			}
			r, err := g.At(f, beam.Mode{Polarized: true})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]complex128, 4*n)
			r.Eval(az, za, out)
			var worst float64
			for c := 0; c < 4; c++ {
				for s := 0; s < n; s++ {
					want := complex(pol[c][0][s], pol[c][1][s])
					worst = math.Max(worst, cmplx.Abs(out[c*n+s]-want))
				}
			}
			t.Logf("order %d, %g Hz, polarized: max |Δ| = %.3g vs scipy", order, f, worst)
			if worst > 1e-12 {
				t.Errorf("order %d, %g Hz, polarized: max |Δ| = %.3g vs scipy", order, f, worst)
			}
			// Unpolarized, both feeds.
			for feed := 0; feed < 2; feed++ {
				var want []float64
				if err := json.Unmarshal(raw[key("unpol", order, fi, feed)], &want); err != nil {
					t.Fatal(err)
				}
				r, err := g.At(f, beam.Mode{Feed: beam.Feed(feed)})
				if err != nil {
					t.Fatal(err)
				}
				out := make([]complex128, n)
				r.Eval(az, za, out)
				worst = 0
				for s := 0; s < n; s++ {
					if imag(out[s]) != 0 {
						t.Fatalf("unpolarized value %v has an imaginary part", out[s])
					}
					worst = math.Max(worst, math.Abs(real(out[s])-want[s]))
				}
				t.Logf("order %d, %g Hz, unpolarized feed %d: max |Δ| = %.3g vs scipy", order, f, feed, worst)
				if worst > 1e-12 {
					t.Errorf("order %d, %g Hz, unpolarized feed %d: max |Δ| = %.3g vs scipy", order, f, feed, worst)
				}
			}
		}
	}
}

func key(kind string, order, fi, feed int) string {
	s := kind + "_o" + string(rune('0'+order)) + "_f" + string(rune('0'+fi))
	if feed >= 0 {
		s += "_feed" + string(rune('0'+feed))
	}
	return s
}

func TestBeamFITSFrequencyRules(t *testing.T) {
	g := loadNFDipole(t)
	tests := []struct {
		name    string
		freq    float64
		wantErr string // "" for success
	}{
		{"channel", 100e6, ""},
		{"within 1 Hz", 101e6 - 0.999, ""},
		{"between channels, 2-channel beam", 100.5e6, "at least 4 beam frequencies"},
		{"1 Hz away", 100e6 + 1, "at least 4 beam frequencies"},
		{"below range", 99e6, "outside the beam's frequency range"},
		{"above range", 102e6, "outside the beam's frequency range"},
		{"NaN", math.NaN(), "not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := g.At(tc.freq, beam.Mode{Polarized: true})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.(*beam.GriddedResponse).Grid().NearestChannelHz == 0 {
					t.Error("want the nearest channel used as is")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// writeFITS writes a primary image with the given extra header cards.
func writeFITS(t *testing.T, path string, cards []fitsio.Card, axes []int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ff, err := fitsio.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	hdr := fitsio.NewHeader(cards, fitsio.IMAGE_HDU, -64, axes)
	img, err := fitsio.NewPrimaryHDU(hdr)
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for _, a := range axes {
		n *= a
	}
	if err := img.Write(make([]float64, n)); err != nil {
		t.Fatal(err)
	}
	if err := ff.Write(img); err != nil {
		t.Fatal(err)
	}
}

func TestLoadBeamFITSBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	azza := []fitsio.Card{
		{Name: "CTYPE1", Value: "AZIMUTH"}, {Name: "CRVAL1", Value: 0.0}, {Name: "CDELT1", Value: 90.0}, {Name: "CRPIX1", Value: 1},
		{Name: "CTYPE2", Value: "ZENANGLE"}, {Name: "CRVAL2", Value: 0.0}, {Name: "CDELT2", Value: 90.0}, {Name: "CRPIX2", Value: 1},
		{Name: "CTYPE3", Value: "FREQ"}, {Name: "CRVAL3", Value: 1e8}, {Name: "CDELT3", Value: 1e6}, {Name: "CRPIX3", Value: 1},
	}
	healpix := filepath.Join(dir, "healpix.fits")
	writeFITS(t, healpix, []fitsio.Card{{Name: "BTYPE", Value: "efield"}, {Name: "COORDSYS", Value: "healpix"},
		{Name: "CTYPE1", Value: "PIX_IND"}}, []int{12, 1, 2, 1, 2, 2})
	plain := filepath.Join(dir, "plain.fits")
	writeFITS(t, plain, nil, []int{4, 4})
	unknownType := filepath.Join(dir, "unknown.fits")
	writeFITS(t, unknownType, append([]fitsio.Card{{Name: "BTYPE", Value: "phased_array"}}, azza...), []int{4, 3, 1, 1})
	noBasis := filepath.Join(dir, "nobasis.fits")
	writeFITS(t, noBasis, append([]fitsio.Card{{Name: "BTYPE", Value: "efield"}, {Name: "FEEDLIST", Value: "[x, y]"},
		{Name: "CTYPE4", Value: "FEEDIND"}, {Name: "CTYPE5", Value: "IF"}, {Name: "CTYPE6", Value: "VECIND"}, {Name: "CTYPE7", Value: "COMPLEX"}}, azza...),
		[]int{4, 3, 1, 2, 1, 2, 2})

	tests := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "nope.fits"), "no such file"},
		{"empty file", write("empty.fits", nil), "not a readable FITS file"},
		{"text file", write("text.fits", []byte(strings.Repeat("this is not a FITS file\n", 200))), "not a readable FITS file"},
		{"plain FITS image", plain, "not a beamfits file"},
		{"healpix", healpix, "only az_za grids are supported"},
		{"unknown beam type", unknownType, "unknown beam type"},
		{"E-field without basis vectors", noBasis, "BASISVEC"},
	}
	{
		p := realBeamFITS(t)
		tests = append(tests,
			struct{ name, path, want string }{"truncated in the data", write("trunc1.fits", p[:len(p)/2]), "not a readable FITS file"},
			struct{ name, path, want string }{"truncated in the header", write("trunc2.fits", p[:1000]), "not a readable FITS file"},
			struct{ name, path, want string }{"truncated by one byte", write("trunc3.fits", p[:len(p)-1]), "not a readable FITS file"},
		)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Load(tc.path)
			if err == nil {
				t.Fatalf("loaded %v, want an error", g)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.path) && tc.name != "missing file" {
				t.Errorf("error %q does not name the file", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestLoadBeamFITSPowerBeam writes a small power beamfits (pols xx, yy on a
// wrapping 4 × 3 grid, degrees) and reads it back: axes, pols, node values
// (square-rooted in unpolarized runs) and the polarized-run error.
func TestLoadBeamFITSPowerBeam(t *testing.T) {
	naz, nza := 4, 3
	cards := []fitsio.Card{
		{Name: "BTYPE", Value: "power"}, {Name: "COORDSYS", Value: "az_za"},
		{Name: "CTYPE1", Value: "AZIMUTH"}, {Name: "CRVAL1", Value: 0.0}, {Name: "CDELT1", Value: 90.0}, {Name: "CRPIX1", Value: 1}, {Name: "CUNIT1", Value: "deg"},
		{Name: "CTYPE2", Value: "ZENANGLE"}, {Name: "CRVAL2", Value: 0.0}, {Name: "CDELT2", Value: 45.0}, {Name: "CRPIX2", Value: 1},
		{Name: "CTYPE3", Value: "FREQ"}, {Name: "CRVAL3", Value: 150.0}, {Name: "CDELT3", Value: 1.0}, {Name: "CRPIX3", Value: 1}, {Name: "CUNIT3", Value: "MHz"},
		{Name: "CTYPE4", Value: "STOKES"}, {Name: "CRVAL4", Value: -5}, {Name: "CDELT4", Value: -1}, {Name: "CRPIX4", Value: 1},
		{Name: "CTYPE5", Value: "IF"}, {Name: "CRVAL5", Value: 1}, {Name: "CDELT5", Value: 1}, {Name: "CRPIX5", Value: 1},
		{Name: "CTYPE6", Value: "VECIND"}, {Name: "CRVAL6", Value: 1}, {Name: "CDELT6", Value: 1}, {Name: "CRPIX6", Value: 1},
	}
	axes := []int{naz, nza, 1, 2, 1, 1}
	data := make([]float64, naz*nza*2)
	for i := range data {
		data[i] = float64(i + 1)
	}
	path := filepath.Join(t.TempDir(), "power.fits")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := fitsio.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	img, err := fitsio.NewPrimaryHDU(fitsio.NewHeader(cards, fitsio.IMAGE_HDU, -64, axes))
	if err != nil {
		t.Fatal(err)
	}
	if err := img.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := ff.Write(img); err != nil {
		t.Fatal(err)
	}
	ff.Close()
	f.Close()

	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Type() != beam.Power || len(g.Pols()) != 2 || g.Pols()[0] != beam.PolXX || g.Pols()[1] != beam.PolYY {
		t.Fatalf("type %v pols %v, want power [-5 -6]", g.Type(), g.Pols())
	}
	if fr := g.Freqs(); fr[0] != 150e6 {
		t.Errorf("freq %v, want 1.5e8 Hz (MHz unit)", fr)
	}
	if !g.Wraps() {
		t.Error("0…270° at 90° should wrap")
	}
	var pa, pz []float64
	for j := 0; j < nza; j++ {
		for i := 0; i < naz; i++ {
			pa = append(pa, float64(i)*math.Pi/2)
			pz = append(pz, float64(j)*math.Pi/4)
		}
	}
	n := len(pa)
	for _, feed := range []beam.Feed{beam.FeedX, beam.FeedY} {
		r, err := g.At(150e6, beam.Mode{Feed: feed})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]complex128, n)
		r.Eval(pa, pz, out)
		for s := 0; s < n; s++ {
			want := math.Sqrt(data[int(feed)*n+s])
			if d := cmplx.Abs(out[s] - complex(want, 0)); !(d <= 1e-12) { // NaN fails too
				t.Errorf("feed %v node %d: got %v, want %v", feed, s, out[s], want)
			}
		}
	}
	if _, err := g.At(150e6, beam.Mode{Polarized: true}); err == nil || !strings.Contains(err.Error(), "needs an E-field beam") {
		t.Errorf("polarized with a power beam: err = %v", err)
	}
}

func TestBeamfitsFeedsEastNorth(t *testing.T) {
	tests := []struct {
		list, xorient string
		want          []string
	}{
		{"[x, y]", "", []string{"x", "y"}},
		{"[e, n]", "", []string{"x", "y"}},
		{"[n, e]", "", []string{"x", "y"}},
		{"[e, n]", "north", []string{"y", "x"}},
		{"[X]", "", []string{"x"}},
	}
	for _, tc := range tests {
		cards := []fitsio.Card{{Name: "FEEDLIST", Value: tc.list}}
		if tc.xorient != "" {
			cards = append(cards, fitsio.Card{Name: "XORIENT", Value: tc.xorient})
		}
		h := fitsio.NewHeader(cards, fitsio.IMAGE_HDU, -64, []int{1})
		got, err := beamfitsFeeds(h)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("FEEDLIST %q XORIENT %q: got %v, want %v", tc.list, tc.xorient, got, tc.want)
		}
	}
}
