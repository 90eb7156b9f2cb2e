package part

import (
	"context"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestOpenRefusesNonRegular: a FIFO among a merge's parts used to block
// it forever; Open, Verify and OpenSet refuse it (and /dev/zero and a
// directory) at once, naming it.
func TestOpenRefusesNonRegular(t *testing.T) {
	readers := map[string]func(string) error{
		"Open":    func(p string) error { f, err := Open(p); closeIf(f); return err },
		"Verify":  func(p string) error { _, err := Verify(context.Background(), p); return err },
		"OpenSet": func(p string) error { s, err := OpenSet([]string{p}); closeSet(s); return err },
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) { inputtest.RefusesNonRegular(t, "p000.gmvpart", read) })
	}
}

// closeIf closes a part a test opened by mistake.
func closeIf(f *File) {
	if f != nil {
		f.Close()
	}
}

// closeSet closes a set a test opened by mistake.
func closeSet(s *Set) {
	if s != nil {
		s.Close()
	}
}
