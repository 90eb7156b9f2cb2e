package skymodel

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestReadersRefuseNonRegular checks that every catalog reader refuses a
// FIFO (it used to block the open forever), /dev/zero (read until memory
// ran out) and a directory, at once and naming the path — by its own
// entry point and through ReadFile's choice by extension.
func TestReadersRefuseNonRegular(t *testing.T) {
	votOpts, err := GLEAMOptions(Flat)
	if err != nil {
		t.Fatal(err)
	}
	readers := []struct {
		name string // the FIFO's name: its extension picks ReadFile's reader
		read func(path string) error
	}{
		{"sky.txt", func(p string) error { _, err := ReadTextFile(p); return err }},
		{"sky.tsv", func(p string) error { _, err := ReadStokesTSVFile(p); return err }},
		{"sky.skyh5", func(p string) error { _, err := ReadSkyH5File(p); return err }},
		{"gleam.vot", func(p string) error { _, err := ReadGLEAMFile(p, Flat); return err }},
		{"sky.vot", func(p string) error { _, err := ReadVOTableFile(p, votOpts); return err }},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) { inputtest.RefusesNonRegular(t, r.name, r.read) })
		t.Run("ReadFile "+r.name, func(t *testing.T) {
			inputtest.RefusesNonRegular(t, r.name, func(p string) error {
				_, err := ReadFileOptions(p, ReadOptions{Filetype: filetypeFromName(r.name), VOTable: votOpts})
				return err
			})
		})
	}
}
