package uvfits

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBaselineEncoding: the BASELINE parameter is 256·ant1 + ant2 of the
// antenna numbers as they are (pyuvdata ≥ 3's write_uvfits with
// attempt256, _antnum_to_bl_256, worked by hand here), written while
// every number is below 255 and left out from 255 on (then ANTENNA1 and
// ANTENNA2 alone name the pair, PCOUNT one less).
func TestBaselineEncoding(t *testing.T) {
	for _, c := range []struct {
		ant1, ant2 []int64
		baseline   []float64 // nil: no BASELINE parameter
	}{
		{[]int64{3, 0}, []int64{7, 254}, []float64{3*256 + 7, 254}},
		{[]int64{254, 1}, []int64{254, 2}, []float64{254*256 + 254, 256 + 2}},
		{[]int64{0, 1}, []int64{255, 1}, nil},
		{[]int64{255, 1}, []int64{0, 1}, nil},
	} {
		h := tinyHeader()
		h.AntennaNumbers, h.AntennaNames = nil, nil
		for _, a := range append(slices.Clone(c.ant1), c.ant2...) {
			if !slices.Contains(h.AntennaNumbers, a) {
				h.AntennaNumbers = append(h.AntennaNumbers, a)
				h.AntennaNames = append(h.AntennaNames, "A"+strconv.FormatInt(a, 10))
			}
		}
		h.AntennaPositions = make([][3]float64, len(h.AntennaNumbers))
		h.Ant1, h.Ant2 = c.ant1, c.ant2
		w, err := Create(filepath.Join(t.TempDir(), "x.uvfits"), h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		for _, p := range w.params {
			for r := range 2 {
				got[p.name] = append(got[p.name], p.value(r))
			}
		}
		w.Abort()
		b, has := got["BASELINE"]
		switch {
		case c.baseline == nil && has:
			t.Errorf("ants %v %v: BASELINE %v written, want none (a number ≥ 255)", c.ant1, c.ant2, b)
		case c.baseline != nil && (!has || b[0] != c.baseline[0] || b[1] != c.baseline[1]):
			t.Errorf("ants %v %v: BASELINE %v, want %v", c.ant1, c.ant2, b, c.baseline)
		}
		for r := range 2 {
			if got["ANTENNA1"][r] != float64(c.ant1[r]) || got["ANTENNA2"][r] != float64(c.ant2[r]) {
				t.Errorf("ants %v %v: row %d ANTENNA1 %v ANTENNA2 %v", c.ant1, c.ant2, r, got["ANTENNA1"][r], got["ANTENNA2"][r])
			}
		}
		want := 10
		if has {
			want++
		}
		if w.pcount != want {
			t.Errorf("ants %v %v: PCOUNT %d, want %d", c.ant1, c.ant2, w.pcount, want)
		}
	}
}

// readTable is a binary table's header cards and its columns' values of
// row 0, read by the FITS standard's rules (TTYPEn/TFORMn, big-endian
// J = int32, E = float32, D = float64, nA = n characters), independent of
// the writer's column code.
func readTable(t *testing.T, b []byte) (cards map[string]string, row map[string]any) {
	t.Helper()
	cards = map[string]string{}
	end := strings.Index(string(b), "END     ")
	for i := 0; i < end; i += 80 {
		c := string(b[i : i+80])
		if c[8:10] == "= " {
			v := strings.TrimSpace(c[10:])
			if strings.HasPrefix(v, "'") {
				v = strings.TrimSpace(strings.Trim(v[:strings.LastIndex(v, "'")+1], "'"))
			}
			cards[strings.TrimSpace(c[:8])] = v
		}
	}
	data := b[padded(int64(end+80)):]
	row = map[string]any{}
	nf, _ := strconv.Atoi(cards["TFIELDS"])
	off := 0
	for i := 1; i <= nf; i++ {
		name, form := cards["TTYPE"+strconv.Itoa(i)], cards["TFORM"+strconv.Itoa(i)]
		n, err := strconv.Atoi(form[:len(form)-1])
		if err != nil {
			t.Fatalf("TFORM%d %q", i, form)
		}
		switch form[len(form)-1] {
		case 'A':
			row[name] = strings.TrimRight(string(data[off:off+n]), "\x00 ")
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
			t.Fatalf("TFORM%d %q: unknown", i, form)
		}
	}
	if w, _ := strconv.Atoi(cards["NAXIS1"]); w != off {
		t.Errorf("NAXIS1 %d, columns' widths add to %d", w, off)
	}
	return cards, row
}

// TestSourceTable: the AIPS SU table's one row: ID 1, the phase center's
// name, its epoch (2000 when unset, pyuvdata's J2000 default), mean and
// apparent positions as given, RESTFREQ the mean of the channels'
// frequencies (100 and 101 MHz: 100.5 MHz by hand); a name over 20
// characters (the SOURCE column's 20A) is refused by an error that names
// it as the phase center's name (not only as a table column), 20 are
// kept.
func TestSourceTable(t *testing.T) {
	h := tinyHeader()
	pc := PhaseCenter{Name: strings.Repeat("z", 20), RADeg: 10.5, DecDeg: -30.25, AppRADeg: 11.5, AppDecDeg: -29.75}
	b, err := sourceTable(h, Options{PhaseCenter: pc})
	if err != nil {
		t.Fatal(err)
	}
	cards, row := readTable(t, b)
	if cards["EXTNAME"] != "AIPS SU" || cards["NAXIS2"] != "1" {
		t.Errorf("EXTNAME %q NAXIS2 %q, want AIPS SU and 1 row", cards["EXTNAME"], cards["NAXIS2"])
	}
	for k, want := range map[string]any{"ID. NO.": 1.0, "SOURCE": pc.Name, "EPOCH": 2000.0, "RAEPO": 10.5, "DECEPO": -30.25,
		"RAAPP": 11.5, "DECAPP": -29.75, "RESTFREQ": 100.5e6, "IFLUX": 0.0, "FREQOFF": 0.0} {
		if row[k] != want {
			t.Errorf("SU %s = %v, want %v", k, row[k], want)
		}
	}
	pc.Epoch = 1950
	if b, err := sourceTable(h, Options{PhaseCenter: pc}); err != nil {
		t.Fatal(err)
	} else if _, row := readTable(t, b); row["EPOCH"] != 1950.0 {
		t.Errorf("an epoch given: EPOCH %v, want 1950", row["EPOCH"])
	}
	// pyuvdata's SU SOURCE holds 20 characters: a longer name is cut there
	// (PHASING.md: 'zenith_at_jd2459845.'), the primary OBJECT keeps it whole.
	pc.Name = strings.Repeat("z", 20) + "Q"
	b, err = sourceTable(h, Options{PhaseCenter: pc})
	if err != nil {
		t.Fatalf("a 21-character name: %v", err)
	}
	if _, row := readTable(t, b); row["SOURCE"] != strings.Repeat("z", 20) {
		t.Errorf("a 21-character name: SOURCE %q, want its first 20 characters", row["SOURCE"])
	}
}
