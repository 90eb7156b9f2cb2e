package uvdata

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/input"
)

// TestUVFITSSourceTableApparent: a drift-form (--uvfits-drift) UVFITS's SU
// table gives, as pyuvdata's drift-scan (unprojected) phase center at its
// first time,
// the apparent position (RAAPP, DECAPP) = (LST, latitude) of the zenith —
// the LST from astro.ApparentLST with the run's EOP, the latitude the
// site's — and the mean position (RAEPO, DECEPO) the ICRS zenith, which
// precession puts tenths of a degree away.
func TestUVFITSSourceTableApparent(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	obsPath := filepath.Join(dir, "obsparam.yaml")
	sim, obs, err := input.FromObsParam(obsPath, &input.ObsOptions{Precision: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.uvfits")
	w, err := CreateUVFITSWith(path, sim, obs, UVFITSPhasing{Drift: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteTimes(0, res); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	row := suRow(t, b)
	l, err := NewLayout(sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	var eop astro.EOP
	if l.EOP != nil {
		eop = l.EOP[0]
	}
	lst, err := astro.ApparentLST(l.Times[0], l.Site.LonDeg*math.Pi/180, eop)
	if err != nil {
		t.Fatal(err)
	}
	wantRA, wantDec := lst*180/math.Pi, l.Site.LatDeg
	if math.Abs(row["RAAPP"]-wantRA) > 1e-9 || math.Abs(row["DECAPP"]-wantDec) > 1e-9 {
		t.Errorf("RAAPP, DECAPP = %.9f°, %.9f°; want the LST and latitude %.9f°, %.9f°", row["RAAPP"], row["DECAPP"], wantRA, wantDec)
	}
	if math.Abs(row["RAEPO"]-wantRA) < 0.01 && math.Abs(row["DECEPO"]-wantDec) < 0.01 {
		t.Errorf("RAEPO, DECEPO = %.6f°, %.6f°: the apparent position, want the ICRS zenith", row["RAEPO"], row["DECEPO"])
	}
}

// suRow reads the numeric columns of the AIPS SU table's first row by the
// FITS rules (TTYPEn, TFORMn; J, E, D big-endian; nA skipped).
func suRow(t *testing.T, b []byte) map[string]float64 {
	t.Helper()
	const block = 2880
	i := bytes.Index(b, []byte("EXTNAME = 'AIPS SU"))
	if i < 0 {
		t.Fatal("no AIPS SU table")
	}
	start := i - i%block
	for !bytes.HasPrefix(b[start:], []byte("XTENSION=")) {
		start -= block
	}
	cards := map[string]string{}
	end := start
	for ; !bytes.HasPrefix(b[end:], []byte("END     ")); end += 80 {
		c := string(b[end : end+80])
		if c[8:10] == "= " {
			v := strings.TrimSpace(c[10:])
			if strings.HasPrefix(v, "'") {
				v = strings.TrimSpace(strings.Trim(v[:strings.LastIndex(v, "'")+1], "'"))
			}
			cards[strings.TrimSpace(c[:8])] = v
		}
	}
	data := b[(end+80+block-1)/block*block:]
	nf, _ := strconv.Atoi(cards["TFIELDS"])
	row := map[string]float64{}
	off := 0
	for k := 1; k <= nf; k++ {
		name, form := cards["TTYPE"+strconv.Itoa(k)], cards["TFORM"+strconv.Itoa(k)]
		n, err := strconv.Atoi(form[:len(form)-1])
		if err != nil {
			t.Fatalf("TFORM%d %q", k, form)
		}
		switch form[len(form)-1] {
		case 'A':
			off += n
		case 'J':
			row[name] = float64(int32(binary.BigEndian.Uint32(data[off:])))
			off += 4 * n
		case 'E':
			row[name] = float64(math.Float32frombits(binary.BigEndian.Uint32(data[off:])))
			off += 4 * n
		case 'D':
			row[name] = math.Float64frombits(binary.BigEndian.Uint64(data[off:]))
			off += 8 * n
		default:
			t.Fatalf("TFORM%d %q: unknown", k, form)
		}
	}
	return row
}
