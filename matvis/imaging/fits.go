package imaging

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The FITS writer is this package's own (80-character cards, 2880-byte
// blocks, big-endian float32): a few dozen lines that keep the header's
// cards in WSClean's order and format; astrogo/fitsio and astropy read
// it back in the tests.

const fitsBlock = 2880

// WriteFITS writes im as a FITS image in Jy/beam with a SIN WCS: four
// axes (RA, Dec, FREQ, STOKES) as WSClean writes them; history lines go
// to HISTORY cards.
func WriteFITS(out io.Writer, im *Image, w WCS, history ...string) error {
	deg := 180 / math.Pi
	cards := []string{
		logical("SIMPLE", true), integer("BITPIX", -32), integer("NAXIS", 4),
		integer("NAXIS1", im.N), integer("NAXIS2", im.N), integer("NAXIS3", 1), integer("NAXIS4", 1),
		logical("EXTEND", true), float("BSCALE", 1), float("BZERO", 0),
		str("BUNIT", "JY/BEAM"), float("EQUINOX", 2000), str("RADESYS", "ICRS"), str("BTYPE", "Intensity"), str("ORIGIN", "gomatvis"),
		str("CTYPE1", "RA---SIN"), float("CRPIX1", float64(im.N/2+1)), float("CRVAL1", w.RA*deg), float("CDELT1", -im.Cell*deg), str("CUNIT1", "deg"),
		str("CTYPE2", "DEC--SIN"), float("CRPIX2", float64(im.N/2+1)), float("CRVAL2", w.Dec*deg), float("CDELT2", im.Cell*deg), str("CUNIT2", "deg"),
		str("CTYPE3", "FREQ"), float("CRPIX3", 1), float("CRVAL3", w.Freq), float("CDELT3", w.Bandwidth), str("CUNIT3", "Hz"),
		str("CTYPE4", "STOKES"), float("CRPIX4", 1), float("CRVAL4", float64(w.Stokes)), float("CDELT4", 1), str("CUNIT4", ""),
		str("SPECSYS", "TOPOCENT"),
	}
	if w.DateObs != "" {
		cards = append(cards, str("DATE-OBS", w.DateObs))
	}
	for _, h := range history {
		for len(h) > 0 {
			n := min(len(h), 72)
			cards = append(cards, pad("HISTORY "+h[:n]))
			h = h[n:]
		}
	}
	cards = append(cards, pad("END"))
	bw := bufio.NewWriter(out)
	hdr := strings.Join(cards, "")
	hdr += strings.Repeat(" ", padLen(len(hdr)))
	if _, err := bw.WriteString(hdr); err != nil {
		return err
	}
	var b [4]byte
	for _, v := range im.Pix {
		binary.BigEndian.PutUint32(b[:], math.Float32bits(float32(v)))
		if _, err := bw.Write(b[:]); err != nil {
			return err
		}
	}
	if _, err := bw.Write(make([]byte, padLen(4*len(im.Pix)))); err != nil {
		return err
	}
	return bw.Flush()
}

func padLen(n int) int { return (fitsBlock - n%fitsBlock) % fitsBlock }

func pad(s string) string { return s + strings.Repeat(" ", 80-len(s)) }

func card(key, value string) string { return pad(fmt.Sprintf("%-8s= %20s", key, value)) }

func logical(key string, v bool) string {
	if v {
		return card(key, "T")
	}
	return card(key, "F")
}

func integer(key string, v int) string { return card(key, strconv.Itoa(v)) }

// float writes v with every digit float64 needs, with the decimal point
// or exponent FITS wants in a real value.
func float(key string, v float64) string {
	s := strconv.FormatFloat(v, 'G', -1, 64)
	if !strings.ContainsAny(s, ".E") {
		s += ".0"
	}
	return card(key, s)
}

func str(key, v string) string {
	q := "'" + strings.ReplaceAll(v, "'", "''")
	for len(q) < 9 {
		q += " "
	}
	return pad(fmt.Sprintf("%-8s= %s'", key, q))
}
