// Package iersdata embeds the IERS Earth-orientation series that astropy
// bundles as its IERS-B table (IERS EOP C04, eopc04_IAU2000.62-now), as
// Debian packages it: gomatvis's default Earth orientation when no --eop
// is given, so that a pyuvsim configuration gives what pyuvsim gives
// offline. README.md beside this file names the source, its version and
// checksum, and how to refresh the copy (scripts/refresh-iers.sh).
package iersdata

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"sync"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

//go:embed eopc04_IAU2000.62-now.gz
var c04gz []byte

// Name names the embedded table (in histories and meta.json).
const Name = "IERS EOP C04 eopc04_IAU2000.62-now (astropy 5.2.1's bundled IERS-B, Debian python3-astropy 5.2.1-2+deb12u1), embedded in gomatvis"

// File is the embedded table's file name, as IERS and astropy name it.
const File = "eopc04_IAU2000.62-now"

var (
	once  sync.Once
	table *astro.EOPTable
	err   error
)

// Table returns the embedded C04 table, parsed once.
func Table() (*astro.EOPTable, error) {
	once.Do(func() {
		var text []byte
		if text, err = Text(); err != nil {
			return
		}
		table, err = astro.ParseC04(bytes.NewReader(text))
		if err != nil {
			err = fmt.Errorf("iersdata: embedded %s: %w", File, err)
		}
	})
	return table, err
}

// Text returns the embedded file's text, exactly as the source file.
func Text() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(c04gz))
	if err != nil {
		return nil, fmt.Errorf("iersdata: embedded %s: %w", File, err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("iersdata: embedded %s: %w", File, err)
	}
	return b.Bytes(), nil
}
