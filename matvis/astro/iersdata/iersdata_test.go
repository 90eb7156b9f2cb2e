package iersdata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// sourceSHA256 is the checksum of the Debian file the embedded copy
// reproduces (README.md cites it).
const sourceSHA256 = "d07a64da0ffa45c9b54aaa06c3b780af6203c801ddea308950e1ed8b2de235dd"

// TestEmbeddedEqualsSourceLines: lines copied from the source file
// (/usr/lib/python3/dist-packages/astropy/utils/iers/data/eopc04_IAU2000.62-now
// of python3-astropy 5.2.1-2+deb12u1), split by hand into year, month,
// day, MJD, PM-x, PM-y, UT1−UTC: the embedded table holds exactly those
// values on those days, and the embedded text holds the lines verbatim.
func TestEmbeddedEqualsSourceLines(t *testing.T) {
	tab, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	text, err := Text()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"1962   1   1  37665  -0.012700   0.213000   0.0326338   0.0017230   0.000000   0.000000   0.030000   0.030000  0.0020000  0.0014000    0.004774    0.002000",
		"1972   6  30  41498  -0.057151   0.371249  -0.6349935   0.0027070   0.000000   0.000000   0.015000   0.015000  0.0019000  0.0007000    0.001989    0.002000",
		"1972   7   1  41499  -0.054050   0.372950   0.3621956   0.0029080   0.000000   0.000000   0.015000   0.015000  0.0019000  0.0007000    0.001989    0.002000",
		"2017   1   1  57754   0.080406   0.263110   0.5912977   0.0010160  -0.000041  -0.000127   0.000060   0.000045  0.0000116  0.0000140    0.000046    0.000042",
		"2022   9  18  59840   0.293594   0.287789  -0.0092502  -0.0007737   0.000089  -0.000294   0.000024   0.000020  0.0000081  0.0000064    0.000084    0.000090",
		"2022  11  29  59912   0.149881   0.189736  -0.0192085   0.0000128   0.000319  -0.000070   0.000032   0.000022  0.0000093  0.0000071    0.000066    0.000051",
	} {
		if !bytes.Contains(text, []byte("\n"+line+"\n")) {
			t.Errorf("the embedded text lacks the line %q", line)
		}
		f := strings.Fields(line)
		num := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		mjd, x, y, u := num(f[3]), num(f[4]), num(f[5]), num(f[6])
		i := int(mjd - tab.MJD[0])
		if i < 0 || i >= len(tab.MJD) || tab.MJD[i] != mjd {
			t.Errorf("MJD %v: not row %d of the embedded table", mjd, i)
			continue
		}
		if tab.XpArcsec[i] != x || tab.YpArcsec[i] != y || tab.UT1MinusUTC[i] != u || tab.Predicted[i] {
			t.Errorf("MJD %v: embedded (%v, %v, %v, predicted %v), source line (%v, %v, %v)", mjd, tab.XpArcsec[i], tab.YpArcsec[i], tab.UT1MinusUTC[i], tab.Predicted[i], x, y, u)
		}
	}
	// Daily rows without a gap, 1962-01-01 to 2022-11-29.
	n := len(tab.MJD)
	if n != 22248 || tab.MJD[0] != 37665 || tab.MJD[n-1] != 59912 {
		t.Errorf("%d rows, MJD %v to %v; want 22248 rows, MJD 37665 to 59912", n, tab.MJD[0], tab.MJD[n-1])
	}
	for i := 1; i < n; i++ {
		if tab.MJD[i] != tab.MJD[i-1]+1 {
			t.Fatalf("row %d: MJD %v after %v", i, tab.MJD[i], tab.MJD[i-1])
		}
	}
}

// TestEmbeddedChecksum: the embedded text is the cited source file, byte
// for byte (README.md's SHA-256), and README.md cites that checksum.
func TestEmbeddedChecksum(t *testing.T) {
	text, err := Text()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(text)
	if got := hex.EncodeToString(sum[:]); got != sourceSHA256 {
		t.Errorf("SHA-256 of the embedded text %s, source %s (refreshed? update README.md and this test)", got, sourceSHA256)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte(sourceSHA256)) {
		t.Errorf("README.md does not cite the SHA-256 %s", sourceSHA256)
	}
}
