package skymodel

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// stokesTSVColumns is the header of the plain four-Stokes table that
// accompanies the reference simulations (sky_stokes.tsv).
var stokesTSVColumns = []string{"source_id", "ra_icrs_deg", "dec_icrs_deg", "I", "Q", "U", "V"}

// ReadStokesTSVFile reads a four-Stokes TSV (see ReadStokesTSV).
func ReadStokesTSVFile(path string) (*Sky, error) {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadStokesTSV(f, path)
}

// ReadStokesTSV reads a whitespace-separated table with the header
//
//	source_id ra_icrs_deg dec_icrs_deg I Q U V [reference_frequency_Hz [spectral_index]]
//
// (Stokes in Jy; with both optional columns the sky is spectral_index,
// otherwise flat). Lines starting with '#' are comments.
func ReadStokesTSV(r io.Reader, name string) (*Sky, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var c Components
	ncol, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			// A UTF-8 byte-order mark is dropped, as Python's utf-8-sig
			// does: it made the first line no comment and no header.
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if ncol == 0 {
			n, err := stokesTSVHeader(f)
			if err != nil {
				return nil, &ParseError{File: name, Line: lineNo, Value: line, Err: err}
			}
			ncol = n
			continue
		}
		if err := c.addStokesRow(f, ncol); err != nil {
			return nil, &ParseError{File: name, Line: lineNo, Value: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: lineNo + 1, Err: err}
	}
	if ncol == 0 || len(c.RA) == 0 {
		return nil, &ParseError{File: name, Err: errors.New("no header or no sources")}
	}
	c.Spectral = Flat
	if ncol == 9 {
		c.Spectral = SpectralIndex
	}
	return build(name, c, fluxUnit{scale: 1, original: "Jy"}, 0)
}

func stokesTSVHeader(f []string) (int, error) {
	want := append(append([]string(nil), stokesTSVColumns...), "reference_frequency_Hz", "spectral_index")
	if len(f) < 7 || len(f) > 9 || !slices.Equal(f, want[:len(f)]) {
		return 0, fmt.Errorf("header must be %q (the last two optional)", want)
	}
	return len(f), nil
}

func (c *Components) addStokesRow(f []string, ncol int) error {
	if len(f) != ncol {
		return fmt.Errorf("%d fields, the header has %d", len(f), ncol)
	}
	v := make([]float64, ncol)
	for j := 1; j < ncol; j++ {
		x, err := strconv.ParseFloat(f[j], 64)
		if err == nil && !finite(x) {
			err = errors.New("not finite")
		}
		if err != nil {
			return fmt.Errorf("column %d (%s) = %q: %w", j+1, append(stokesTSVColumns, "reference_frequency_Hz", "spectral_index")[j], f[j], err)
		}
		v[j] = x
	}
	if math.Abs(v[2]) > 90 {
		return fmt.Errorf("declination %g outside ±90°", v[2])
	}
	c.Names = append(c.Names, f[0])
	c.RA = append(c.RA, math.Mod(math.Mod(v[1], 360)+360, 360)*math.Pi/180)
	c.Dec = append(c.Dec, v[2]*math.Pi/180)
	for p := range 4 {
		c.Stokes[p] = append(c.Stokes[p], v[3+p])
	}
	if ncol >= 8 {
		if !(v[7] > 0) {
			return fmt.Errorf("reference frequency %g Hz must be positive", v[7])
		}
		c.RefFreq = append(c.RefFreq, v[7])
	}
	if ncol == 9 {
		c.Index = append(c.Index, v[8])
	}
	return nil
}
