package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"path/filepath"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// hashInputs are the simulate options, beside the input, that change the
// visibilities of a sharded run and so go into its config hash. The
// backend (and --devices, --gpu-fused, --gpu-nufft) do not: every backend computes the
// same visibilities to its validated accuracy, and the parts record
// which one made them, so the merge can say when they differ.
type hashInputs struct {
	format      string // uvh5 or npy: the conventions of the output
	coordMethod string
	// rotation is --stokes-rotation ("" and the default, iau, hash alike;
	// pyradiosky, the default before, hashes as "" did then).
	rotation matvis.CoherencyRotation
	// precision is --precision where it changes the run (0: the input's own).
	precision int
	eopPath   string
	topoPath  string
	// beamInterp is --beam-interp ("": the input's default).
	beamInterp string
	// beamPole is --beam-pole ("": the input's default).
	beamPole string
}

// configHash is the SHA-256 (hex) of a canonical form of the run's
// configuration: for a spec its JSON re-encoded (key order, spacing and
// number spelling do not matter) with the bytes of the files it names
// (beamfits beams, layout, catalog); for an obsparam the bytes of the
// obsparam, telescope configuration, layout, catalog and beam files; then
// the options of hashInputs (an --eop or --topo file by its bytes). Each
// piece is length-prefixed, so no two configurations share a stream.
func configHash(in *simInput, o hashInputs) (string, error) {
	h := sha256.New()
	put := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	put([]byte("gomatvis-config/1"))
	files := in.files()
	if in.spec != nil {
		js, err := json.Marshal(in.spec)
		if err != nil {
			return "", fmt.Errorf("config hash: encoding the spec: %w", err)
		}
		put([]byte("spec"))
		put(js)
		files = specDataFiles(in)
	} else {
		put([]byte("obsparam"))
	}
	for _, f := range files {
		if err := putFile(h, put, f); err != nil {
			return "", err
		}
	}
	put([]byte("format=" + o.format))
	put([]byte("coord_method=" + o.coordMethod))
	if rot := matvis.EffectiveRotation(o.rotation); rot != matvis.RotationPyradiosky {
		// A part made when "" meant pyradiosky has no such line: it
		// never merges with a part of the IAU default.
		put([]byte("stokes_rotation=" + string(rot)))
	}
	if o.precision != 0 {
		put([]byte(fmt.Sprintf("precision=%d", o.precision)))
	}
	if bi := in.beamInterp(o.beamInterp); bi != "" && bi != beam.SpatialMapCoordinates {
		// Parts made when every beamfits beam ran map_coordinates have no
		// such line: an obsparam's az_za_simple default never merges with them.
		put([]byte("beam_interp=" + bi))
	}
	if bp := in.beamPole(o.beamPole, o.rotation); bp != "" {
		// Parts made before the zenith treatment was selectable ran the
		// edge, which hashes as no line.
		put([]byte("beam_pole=" + bp))
	}
	for _, f := range []string{o.eopPath, o.topoPath} {
		if f == "" {
			put(nil)
			continue
		}
		if err := putFile(h, put, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// specDataFiles are the files a spec names (not the spec itself, which is
// hashed by its content): beamfits beams, the layout and the catalog.
func specDataFiles(in *simInput) []string {
	var files []string
	if in.path != "example" {
		files = specInputs(in.path, in.spec)[1:]
	} else {
		files = specInputs(in.path, in.spec)
	}
	named := []string{in.spec.LayoutCSV}
	if c := in.spec.Sources.Catalog; c != nil {
		named = append(named, c.Path)
	}
	for _, p := range named {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(in.spec.Dir, p)
		}
		files = append(files, p)
	}
	return files
}

// putFile hashes a file's bytes, streamed, length-prefixed.
func putFile(h hash.Hash, put func([]byte), path string) error {
	if path == "" {
		put(nil)
		return nil
	}
	f, size, err := inputfile.Open(path)
	if err != nil {
		return fmt.Errorf("config hash: %w", err)
	}
	defer f.Close()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(size))
	h.Write(n[:])
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("config hash: %s: %w", path, err)
	}
	return nil
}
