package h5write_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/h5read"
	"github.com/gomatvis/gomatvis/internal/h5write"
)

// This file is an external test: h5read imports h5write.

// bufAt is an in-memory io.WriterAt.
type bufAt struct{ b []byte }

func (m *bufAt) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStringAttr writes string attributes on datasets and reads them back
// with the repository's independent reader, which follows the format
// specification's Attribute message; the dataset's values stay readable.
func TestStringAttr(t *testing.T) {
	m := &bufAt{}
	f, err := h5write.Create(m)
	check(t, err)
	d, err := f.Root().Dataset("stokes", h5write.Float64, 4, 1, 2)
	check(t, err)
	check(t, d.WriteAt(0, []float64{1, 2, 3, 4, 5, 6, 7, 8}))
	check(t, d.StringAttr("unit", "Jy"))
	check(t, d.StringAttr("empty", ""))
	check(t, d.StringAttr("long", strings.Repeat("x", 300)))
	check(t, f.Close())

	r, err := h5read.Open(bytes.NewReader(m.b), int64(len(m.b)))
	check(t, err)
	for name, want := range map[string]string{"unit": "Jy", "empty": "", "long": strings.Repeat("x", 300)} {
		a, err := r.Attribute("/stokes", name)
		if err != nil {
			t.Fatalf("attribute %s: %v", name, err)
		}
		s, err := a.Strings()
		check(t, err)
		if len(s) != 1 || s[0] != want {
			t.Errorf("attribute %s = %q, want [%q]", name, s, want)
		}
	}
	ds, err := r.Dataset("/stokes")
	check(t, err)
	v, err := ds.Float64s()
	check(t, err)
	if len(v) != 8 || v[7] != 8 {
		t.Errorf("data read back as %v", v)
	}
}

// TestStringAttrErrors: a repeated or empty name, an oversized value and
// a closed file are errors, not a corrupt header.
func TestStringAttrErrors(t *testing.T) {
	f, err := h5write.Create(&bufAt{})
	check(t, err)
	d, err := f.Root().Dataset("x", h5write.Float64, 1)
	check(t, err)
	check(t, d.StringAttr("unit", "Jy"))
	for _, c := range []struct{ name, value, want string }{
		{"unit", "K", "already exists"},
		{"", "K", "invalid attribute name"},
		{"big", strings.Repeat("x", 1<<16), "too long"},
	} {
		if err := d.StringAttr(c.name, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StringAttr(%q, %d bytes) = %v, want an error with %q", c.name, len(c.value), err, c.want)
		}
	}
	check(t, f.Close())
	if err := d.StringAttr("late", "x"); err != h5write.ErrClosed {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}
