package beamfits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// fitsBlock is the FITS block size: headers and data are padded to it.
const fitsBlock = 2880

// fitsMaxAxes is the FITS standard's limit on NAXIS and TFIELDS.
const fitsMaxAxes = 999

// checkFITSSizes reads the header cards of every HDU of a FITS file of
// size bytes and checks the sizes they declare against the bytes the file
// holds. fitsio allocates whatever a header declares (the data, the NAXISn
// list, the TFIELDS columns) before reading it, so one edited card can make
// it allocate terabytes; this runs first. It walks the HDUs as fitsio does:
// card names and integer values are taken the same way, the last of
// repeated cards wins, an image's data is |BITPIX|/8·ΠNAXISn bytes and a
// table's NAXIS1·NAXIS2 + PCOUNT, each padded to whole blocks.
func checkFITSSizes(r io.ReaderAt, size int64) error {
	var off int64
	for hdu := 0; off < size; hdu++ {
		h, err := readFITSHeader(r, off, size, hdu)
		if err != nil {
			return err
		}
		off += h.length
		n, err := h.dataBytes(size - off)
		if err != nil {
			return fmt.Errorf("%s: %w", h.label(), err)
		}
		off += n + (fitsBlock-n%fitsBlock)%fitsBlock
	}
	return nil
}

// fitsHeader holds the cards of one HDU header that decide its layout.
type fitsHeader struct {
	hdu    int
	kind   string // "primary", "IMAGE", "BINTABLE", "TABLE" or the XTENSION value
	name   string // EXTNAME
	cards  map[string]string
	length int64 // bytes of the header, whole blocks
}

// readFITSHeader reads the header starting at off, block by block until
// the block holding the END card.
func readFITSHeader(r io.ReaderAt, off, size int64, hdu int) (*fitsHeader, error) {
	h := &fitsHeader{hdu: hdu, cards: map[string]string{}}
	block := make([]byte, fitsBlock)
	// checkCard applies to a header that begins as one: an extension's
	// place that holds no XTENSION card means the previous HDU's sizes
	// are wrong, which the beam's reader reports better ("NAXIS2 = 0").
	strict := true
	for end := false; !end; {
		if size-off-h.length < fitsBlock {
			return nil, fmt.Errorf("%s: the header ends at byte %d without an END card (truncated file?)", h.label(), size)
		}
		if _, err := r.ReadAt(block, off+h.length); err != nil {
			return nil, fmt.Errorf("%s: reading the header: %w", h.label(), err)
		}
		if h.length == 0 && hdu > 0 {
			strict = bytes.HasPrefix(block, []byte("XTENSION= "))
		}
		for c := 0; c < fitsBlock && !end; c += 80 {
			at := off + h.length + int64(c)
			if err := h.checkCard(block[c:c+80], at); strict && err != nil {
				return nil, err
			}
			end = h.addCard(block[c : c+80])
		}
		h.length += fitsBlock
	}
	if h.kind == "" {
		return nil, fmt.Errorf("%s: neither SIMPLE nor XTENSION: not a FITS header", h.label())
	}
	return h, nil
}

// checkCard refuses a card that cannot be in a header: bytes outside
// ASCII 32–126 (FITS 4.0 §4.1.1), or a second SIMPLE or XTENSION. Either
// means the header ran on past where its END card should be, into data or
// the next header: without this, a damaged or missing END was reported as
// whatever the data read as ("NAXIS = 4: an E-field beam needs 7 axes").
func (h *fitsHeader) checkCard(card []byte, at int64) error {
	for i, b := range card {
		if b < 32 || b > 126 {
			return fmt.Errorf("%s: no END card before byte %d, where the header holds the byte 0x%02X (not header text): the header is damaged or its END card is missing; write the file again (pyuvdata's UVBeam.write_beamfits)", h.label(), at+int64(i), b)
		}
	}
	name, _, ok := splitCard(card)
	if ok && h.kind != "" && (name == "SIMPLE" || name == "XTENSION") {
		return fmt.Errorf("%s: a second header (%s at byte %d) begins before this one's END card: the END card is missing; write the file again (pyuvdata's UVBeam.write_beamfits)", h.label(), name, at)
	}
	return nil
}

// addCard records a card that bears on the layout; it reports END.
func (h *fitsHeader) addCard(card []byte) (end bool) {
	name, value, ok := splitCard(card)
	switch {
	case name == "END":
		return true
	case !ok:
	case name == "SIMPLE" && h.kind == "":
		h.kind = "primary"
	case name == "XTENSION" && h.kind == "":
		h.kind = stringValue(value)
	case name == "EXTNAME":
		h.name = stringValue(value)
	case name == "BITPIX" || name == "NAXIS" || name == "PCOUNT" || name == "TFIELDS" ||
		(strings.HasPrefix(name, "NAXIS") && len(name) <= 8):
		h.cards[name] = value
	}
	return false
}

// splitCard returns a header card's name and raw value the way fitsio
// reads them: ok is false for cards without a value.
func splitCard(c []byte) (name, value string, ok bool) {
	if bytes.HasPrefix(c, []byte("HIERARCH ")) {
		i := bytes.IndexByte(c, '=')
		if i < 0 {
			return "", "", false
		}
		return strings.TrimSpace(string(c[9:i])), string(c[i+1:]), true
	}
	if bytes.HasPrefix(c, []byte("END     ")) {
		return "END", "", false
	}
	for _, p := range []string{"COMMENT ", "CONTINUE", "HISTORY ", "        "} {
		if bytes.HasPrefix(c, []byte(p)) {
			return "", "", false
		}
	}
	if !bytes.HasPrefix(c[8:], []byte("= ")) {
		return "", "", false
	}
	return strings.TrimSpace(string(c[:8])), string(c[10:]), true
}

// stringValue returns the text of a quoted card value, trailing blanks
// removed ("" when the value is not a string).
func stringValue(v string) string {
	v = strings.TrimLeft(v, " ")
	if !strings.HasPrefix(v, "'") {
		return ""
	}
	s, _, _ := strings.Cut(v[1:], "'")
	return strings.TrimRight(s, " ")
}

// intCard returns an integer card's value; def when the card is absent.
func (h *fitsHeader) intCard(key string, def int64, required bool) (int64, error) {
	v, ok := h.cards[key]
	if !ok {
		if required {
			return 0, fmt.Errorf("%s missing", key)
		}
		return def, nil
	}
	tok := strings.TrimLeft(v, " ")
	if i := strings.Index(tok, " /"); i >= 0 {
		tok = tok[:i]
	}
	tok = strings.TrimSpace(tok)
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %q: not an integer", key, tok)
	}
	return n, nil
}

// dataBytes returns the data size the header declares, unpadded, refusing
// values that are invalid or larger than the avail bytes that follow it.
func (h *fitsHeader) dataBytes(avail int64) (int64, error) {
	bitpix, err := h.intCard("BITPIX", 0, true)
	if err != nil {
		return 0, err
	}
	switch bitpix {
	case 8, 16, 32, 64, -32, -64:
	default:
		return 0, fmt.Errorf("BITPIX = %d: want 8, 16, 32, 64, -32 or -64", bitpix)
	}
	pix := max(bitpix, -bitpix) / 8
	axes, err := h.axes(avail, pix)
	if err != nil {
		return 0, err
	}
	switch h.kind {
	case "primary", "IMAGE":
		return imageBytes(axes, bitpix, avail)
	case "BINTABLE", "TABLE":
		return h.tableBytes(axes, avail)
	}
	return 0, fmt.Errorf("XTENSION = %q: want IMAGE, BINTABLE or TABLE", h.kind)
}

// axes returns NAXIS1…NAXISn, each at most what avail bytes could hold.
func (h *fitsHeader) axes(avail, pix int64) ([]int64, error) {
	naxis, err := h.intCard("NAXIS", 0, false)
	if err != nil {
		return nil, err
	}
	if naxis < 0 || naxis > fitsMaxAxes {
		return nil, fmt.Errorf("NAXIS = %d: want 0 to %d axes", naxis, fitsMaxAxes)
	}
	axes := make([]int64, naxis)
	for i := range axes {
		key := fmt.Sprintf("NAXIS%d", i+1)
		v, err := h.intCard(key, 0, true)
		if err != nil {
			return nil, err
		}
		switch {
		case v < 0:
			return nil, fmt.Errorf("%s = %d: an axis length must not be negative", key, v)
		case v > avail/pix:
			return nil, fmt.Errorf("%s = %d: longer than the %d bytes after the header could hold (truncated or corrupt file?)", key, v, avail)
		}
		axes[i] = v
	}
	return axes, nil
}

// imageBytes is the data size of an image HDU.
func imageBytes(axes []int64, bitpix, avail int64) (int64, error) {
	if len(axes) == 0 {
		return 0, nil
	}
	n := max(bitpix, -bitpix) / 8
	for _, a := range axes {
		if a == 0 {
			return 0, nil
		}
	}
	for _, a := range axes {
		if n > avail/a {
			return 0, fmt.Errorf("NAXIS1…NAXIS%d = %v of BITPIX %d: more data than the %d bytes after the header (truncated or corrupt file?)",
				len(axes), axes, bitpix, avail)
		}
		n *= a
	}
	return n, nil
}

// tableBytes is the size of a table HDU's rows and heap.
func (h *fitsHeader) tableBytes(axes []int64, avail int64) (int64, error) {
	if len(axes) != 2 {
		return 0, fmt.Errorf("NAXIS = %d: a table has 2 axes", len(axes))
	}
	pcount, err := h.intCard("PCOUNT", 0, false)
	if err != nil {
		return 0, err
	}
	if pcount < 0 || pcount > avail {
		return 0, fmt.Errorf("PCOUNT = %d: want 0 to the %d bytes after the header", pcount, avail)
	}
	nf, err := h.intCard("TFIELDS", 0, false)
	if err != nil {
		return 0, err
	}
	if nf < 0 || nf > fitsMaxAxes {
		return 0, fmt.Errorf("TFIELDS = %d: want 0 to %d columns", nf, fitsMaxAxes)
	}
	if axes[0] != 0 && axes[1] > (avail-pcount)/axes[0] {
		return 0, fmt.Errorf("NAXIS1 × NAXIS2 = %d × %d bytes of rows and PCOUNT = %d: more than the %d bytes after the header (truncated or corrupt file?)",
			axes[0], axes[1], pcount, avail)
	}
	return axes[0]*axes[1] + pcount, nil
}

// label names the HDU in messages.
func (h *fitsHeader) label() string {
	s := fmt.Sprintf("HDU %d", h.hdu)
	switch {
	case h.hdu == 0:
		s += " (primary)"
	case h.name != "":
		s += fmt.Sprintf(" (%s)", h.name)
	}
	return s
}

// errNotFITS marks files the size check found unreadable.
var errNotFITS = errors.New("not a readable FITS file")
