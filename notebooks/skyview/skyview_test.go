package skyview

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/imaging"
	"github.com/gomatvis/gomatvis/plots"
)

// TestHexLayout: the grid's spacing, HERA-7/19/37's rings and the order
// nearest first, from the geometry of a hexagonal grid.
func TestHexLayout(t *testing.T) {
	const d = 14.6
	ants := HexLayout(61, d)
	if ants[0] != [3]float64{} {
		t.Fatalf("antenna 0 at %v, want the centre", ants[0])
	}
	for i, a := range ants {
		r := math.Hypot(a[0], a[1])
		if i > 0 && r < math.Hypot(ants[i-1][0], ants[i-1][1])-1e-9 && ringOf(i) == ringOf(i-1) {
			t.Errorf("antenna %d at %.3f m is nearer than antenna %d of its ring", i, r, i-1)
		}
		// A site of ring k is between k·d·√3/2 (a side's middle) and k·d (a corner) from the centre.
		k := float64(ringOf(i))
		if r < k*d*math.Sqrt(3)/2-1e-9 || r > k*d+1e-9 {
			t.Errorf("antenna %d (ring %v) at %.3f m from the centre", i, k, r)
		}
		for j := range i {
			b := ants[j]
			if s := math.Hypot(a[0]-b[0], a[1]-b[1]); s < d-1e-9 {
				t.Errorf("antennas %d and %d are %.3f m apart, less than the spacing %v", j, i, s, d)
			}
		}
	}
	// HERA-7: the six nearest neighbours are exactly one spacing away.
	for i := 1; i < 7; i++ {
		if r := math.Hypot(ants[i][0], ants[i][1]); math.Abs(r-d) > 1e-9 {
			t.Errorf("antenna %d at %.6f m, want %v", i, r, d)
		}
	}
	if got := HexLayout(-1, d); got != nil {
		t.Errorf("HexLayout(-1) = %v, want none", got)
	}
	if got := HexLayout(19, d); len(got) != 19 || got[18] != ants[18] {
		t.Errorf("HexLayout(19) is not the first 19 of HexLayout(61)")
	}
}

// ringOf is the hexagonal ring of the i-th site: rings hold 1, 6, 12, 18 …
func ringOf(i int) int {
	k, n := 0, 1
	for i >= n {
		k++
		n += 6 * k
	}
	return k
}

// oneSource is the default scene with one source only.
func oneSource(t *testing.T, l, m, flux float64) *Explorer {
	t.Helper()
	sc := DefaultScene()
	sc.MaxAnt = 19
	sc.Sky = []Source{{"S", l, m, flux}}
	e, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var weightings = []imaging.Weighting{{Mode: imaging.Natural}, {Mode: imaging.Uniform}, {Mode: imaging.Briggs, Robust: -0.5}, {Mode: imaging.Briggs, Robust: 1}}

// randomSettings draws settings within the default scene.
func randomSettings(r *rand.Rand, maxAnt int) Settings {
	s := Settings{NAnt: 2 + r.IntN(maxAnt-1), SpanMin: float64(10 * r.IntN(13)), Weighting: weightings[r.IntN(len(weightings))]}
	if r.IntN(3) == 0 {
		s.Beam.Uniform = true
	} else {
		s.Beam.DiameterM = float64(4 + r.IntN(20))
	}
	return s
}

// TestCentreSourceIsPSF: a source of S Jy at the phase centre seen by a
// beam of 1 there gives the dirty image S·PSF (its phased visibilities
// are S on every sample): through a uniform beam over any span, and
// through the Airy beam in a snapshot at the centre's transit.
func TestCentreSourceIsPSF(t *testing.T) {
	const flux = 3.5
	e := oneSource(t, 0, 0, flux)
	r := sharedtest.RNG(t, 1)
	for i := range 4 {
		s := randomSettings(r, 19)
		if i%2 == 0 {
			s.Beam = Beam{Uniform: true}
		} else {
			s.SpanMin = 0
		}
		v, err := e.View(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for k, p := range v.PSF.Pix {
			worst = max(worst, math.Abs(v.Dirty.Pix[k]-flux*p))
		}
		t.Logf("%+v: max|dirty − S·PSF| = %.2g Jy", s, worst)
		if !(worst <= 1e-6*flux) {
			t.Errorf("%+v: max|dirty − S·PSF| = %g Jy, over 1e-6 of S = %v", s, worst, flux)
		}
		// The transform is accurate to about Eps = 1e-6 of Σ|ω V| (it is
		// the same transform for both images above, so their errors agree
		// better than that).
		if peak := v.Dirty.At(v.Dirty.N/2, v.Dirty.N/2); math.Abs(peak-flux) > 1e-5*flux {
			t.Errorf("%+v: centre pixel %v Jy/beam, want %v", s, peak, flux)
		}
	}
}

// TestOffCentreSourcePeaks: a source away from the centre peaks at its
// pixel (within one cell; it lies between pixel centres), which checks the
// sign of l (east left) and of the phasing.
func TestOffCentreSourcePeaks(t *testing.T) {
	r := sharedtest.RNG(t, 2)
	for range 3 {
		l, m := 0.3*(2*r.Float64()-1), 0.3*(2*r.Float64()-1)
		e := oneSource(t, l, m, 2)
		s := Settings{NAnt: 19, SpanMin: 60, Beam: Beam{Uniform: true}}
		v, err := e.View(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for k, p := range v.Dirty.Pix {
			if p > v.Dirty.Pix[best] {
				best = k
			}
		}
		pl, pm := v.Dirty.LM(best%v.Dirty.N, best/v.Dirty.N)
		if d := math.Hypot(pl-l, pm-m); d > v.Dirty.Cell {
			t.Errorf("source at (l, m) = (%.4f, %.4f): peak at (%.4f, %.4f), %.2f cells away", l, m, pl, pm, d/v.Dirty.Cell)
		}
	}
}

// TestCacheIsFresh: views through the cache equal fresh simulations of the
// same settings (NoCache), over a random sequence of widget moves, and a
// change of antennas or weighting alone simulates nothing.
func TestCacheIsFresh(t *testing.T) {
	sc := DefaultScene()
	sc.MaxAnt = 19
	cached, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := New(sc)
	fresh.NoCache = true
	r := sharedtest.RNG(t, 3)
	s := randomSettings(r, 19)
	for step := range 6 {
		prev := s
		switch step % 3 { // one widget at a time, as a user moves them
		case 0:
			s.NAnt = 2 + r.IntN(18)
		case 1:
			s.Weighting = weightings[r.IntN(len(weightings))]
		case 2:
			s = randomSettings(r, 19)
		}
		a, err := cached.View(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fresh.View(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if step > 0 && s.Beam == prev.Beam && s.SpanMin == prev.SpanMin && a.Simulated {
			t.Errorf("step %d: %+v after %+v simulated again", step, s, prev)
		}
		for _, pair := range [][2]*imaging.Image{{a.Dirty, b.Dirty}, {a.PSF, b.PSF}} {
			peak := maxAbs(pair[1].Pix)
			for k := range pair[0].Pix {
				if d := math.Abs(pair[0].Pix[k] - pair[1].Pix[k]); d > 1e-12*peak {
					t.Fatalf("step %d, %+v: pixel %d cached %v, fresh %v", step, s, k, pair[0].Pix[k], pair[1].Pix[k])
				}
			}
		}
		if a.Rows != b.Rows || a.Rows != a.Times*s.NAnt*(s.NAnt-1)/2 {
			t.Errorf("step %d: %d rows cached, %d fresh; want %d times × %d baselines", step, a.Rows, b.Rows, a.Times, s.NAnt*(s.NAnt-1)/2)
		}
	}
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

// TestErrors: settings and scenes out of range are refused with the
// setting and value named.
func TestErrors(t *testing.T) {
	e := oneSource(t, 0, 0, 1)
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{NAnt: 1, Beam: Beam{Uniform: true}}, "1 antennas: want 2 to 19"},
		{Settings{NAnt: 20, Beam: Beam{Uniform: true}}, "20 antennas: want 2 to 19"},
		{Settings{NAnt: 7, SpanMin: -1, Beam: Beam{Uniform: true}}, "span -1 minutes"},
		{Settings{NAnt: 7, SpanMin: 121, Beam: Beam{Uniform: true}}, "span 121 minutes: want 0 to 120"},
		{Settings{NAnt: 7, SpanMin: math.NaN(), Beam: Beam{Uniform: true}}, "span NaN minutes"},
		{Settings{NAnt: 7, Beam: Beam{DiameterM: 0}}, "Airy dish diameter 0 m"},
	} {
		_, err := e.View(context.Background(), c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.s, err, c.want)
		}
	}
	for _, c := range []struct {
		edit func(*Scene)
		want string
	}{
		{func(s *Scene) { s.MaxAnt = 1 }, "Scene.MaxAnt 1"},
		{func(s *Scene) { s.Freqs = nil }, "Scene.Freqs is empty"},
		{func(s *Scene) { s.StepMin = 0 }, "StepMin 0"},
		{func(s *Scene) { s.FieldSin = 1 }, "Scene.FieldSin 1"},
		{func(s *Scene) { s.Sky = []Source{{"X", 1, 0, 1}} }, `source "X" at (l, m) = (1, 0)`},
	} {
		sc := DefaultScene()
		c.edit(&sc)
		if _, err := New(sc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("scene error %v, want one containing %q", err, c.want)
		}
	}
}

// BenchmarkRedraw is one redraw of notebook 04 at HERA-19 (a one-hour
// span, the Airy beam of a 14 m dish): "weighting" is a change that the
// cache serves (imaging only), "beam" one that simulates again, and
// "beam+svg" the whole of the notebook's redraw after a beam change: the
// view and both figures as SVG.
func BenchmarkRedraw(b *testing.B) {
	e, err := New(DefaultScene())
	if err != nil {
		b.Fatal(err)
	}
	s := Settings{NAnt: 19, SpanMin: 60, Beam: Beam{DiameterM: 14}}
	b.Run("weighting", func(b *testing.B) {
		for i := range b.N {
			s.Weighting = weightings[i%len(weightings)]
			if _, err := e.View(context.Background(), s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("beam", func(b *testing.B) {
		for i := range b.N {
			s.Beam.DiameterM = float64(4 + i%1000)
			if _, err := e.View(context.Background(), s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("beam+svg", func(b *testing.B) {
		for i := range b.N {
			s.Beam.DiameterM = 4.5 + float64(i%995) // not the sub-benchmark above's, which are cached
			v, err := e.View(context.Background(), s)
			if err != nil {
				b.Fatal(err)
			}
			dirty, psf, err := v.Figures()
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range []*plots.Figure{dirty, psf} {
				if _, err := plots.SVG(f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestFigures: the figures carry the settings in their titles, the
// sources on the image and RA labels that grow to the east (left).
func TestFigures(t *testing.T) {
	e := oneSource(t, 0.1, 0.05, 1)
	v, err := e.View(context.Background(), Settings{NAnt: 7, SpanMin: 30, Beam: Beam{DiameterM: 14}, Weighting: imaging.Weighting{Mode: imaging.Uniform}})
	if err != nil {
		t.Fatal(err)
	}
	dirty, psf, err := v.Figures()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"7 antennas", "30 min", "uniform", "Airy 14 m dish"} {
		if !strings.Contains(dirty.Title.Text, want) || !strings.Contains(psf.Title.Text, want) {
			t.Errorf("titles %q, %q: no %q", dirty.Title.Text, psf.Title.Text, want)
		}
	}
	if dirty.Count("marker") != 1 || psf.Count("marker") != 0 {
		t.Errorf("markers: %d on the dirty image, %d on the PSF; want 1 and 0", dirty.Count("marker"), psf.Count("marker"))
	}
	// A tick 5° left of the centre is 5° east: RA larger by about
	// 5°/cos(Dec) (an orthographic offset, near enough at 5°).
	checked := 0
	for _, tk := range dirty.X.Tick.Marker.Ticks(-10, 10) {
		if tk.Value != -5 && tk.Value != 5 {
			continue
		}
		checked++
		var ra float64
		if _, err := fmt.Sscanf(tk.Label, "%g°", &ra); err != nil {
			t.Fatalf("tick at %g labelled %q: %v", tk.Value, tk.Label, err)
		}
		want := v.WCS.RA*180/math.Pi - tk.Value/math.Cos(v.WCS.Dec)
		if d := math.Mod(ra-want+540, 360) - 180; math.Abs(d) > 0.2 {
			t.Errorf("tick at x = %g° labelled RA %q, want about %.1f°", tk.Value, tk.Label, math.Mod(want+360, 360))
		}
	}
	if checked != 2 {
		t.Errorf("%d ticks at x = ±5°, want 2", checked)
	}
}
