package skymodel

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ReadOptions are pyuvsim obsparam "sources" keys that some formats need.
type ReadOptions struct {
	// Filetype is sources.filetype: skyh5, text, gleam, vot, or stokes_tsv
	// (this package's four-Stokes table); empty picks it by extension.
	Filetype string
	// GLEAMSpectralType is sources.spectral_type for GLEAM files
	// (flat, spectral_index or subband; empty means subband, as pyuvsim).
	GLEAMSpectralType string
	// VOTable names the table and columns for filetype "vot".
	VOTable VOTableOptions
	// MaxMemory is the run's memory budget in bytes (0: the machine's,
	// internal/membudget): a SkyH5 sky larger than it, sized from its
	// header, is refused before it is read.
	MaxMemory int64
}

// ReadFile reads a sky catalog, choosing the reader by filetype (pyuvsim's
// sources.filetype: "skyh5", "text", "gleam", "vot"; also "stokes_tsv") or,
// when filetype is empty, by extension as pyradiosky's SkyModel.read does:
// .skyh5 (also .h5, .hdf5), .txt, .vot (gleam when the name contains
// "gleam", else a generic VOTable, which needs ReadFileOptions), .tsv.
func ReadFile(path, filetype string) (*Sky, error) {
	return ReadFileOptions(path, ReadOptions{Filetype: filetype})
}

// ReadFileOptions is ReadFile with the format-specific options.
func ReadFileOptions(path string, o ReadOptions) (*Sky, error) {
	ft := o.Filetype
	if ft == "" {
		ft = filetypeFromName(path)
	}
	switch ft {
	case "skyh5":
		return readSkyH5File(path, o.MaxMemory)
	case "text":
		return ReadTextFile(path)
	case "stokes_tsv":
		return ReadStokesTSVFile(path)
	case "gleam":
		st := Subband
		if o.GLEAMSpectralType != "" {
			var err error
			if st, err = ParseSpectralType(o.GLEAMSpectralType); err != nil {
				return nil, &ParseError{File: path, Field: "spectral_type", Value: o.GLEAMSpectralType, Err: err}
			}
		}
		return ReadGLEAMFile(path, st)
	case "vot":
		return ReadVOTableFile(path, o.VOTable)
	case "fhd":
		return nil, &ParseError{File: path, Err: fmt.Errorf("FHD .sav catalogs are not supported")}
	case "":
		return nil, &ParseError{File: path, Err: fmt.Errorf("cannot tell the catalog format from the extension %q; set the filetype (skyh5, text, gleam, vot, stokes_tsv)", filepath.Ext(path))}
	}
	return nil, &ParseError{File: path, Field: "filetype", Value: ft, Err: fmt.Errorf("unknown filetype (want skyh5, text, gleam, vot or stokes_tsv)")}
}

func filetypeFromName(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".skyh5", ".h5", ".hdf5":
		return "skyh5"
	case ".txt":
		return "text"
	case ".tsv":
		return "stokes_tsv"
	case ".sav":
		return "fhd"
	case ".vot":
		if strings.Contains(strings.ToLower(path), "gleam") { // pyradiosky tests the whole path
			return "gleam"
		}
		return "vot"
	}
	return ""
}
