package uvh5

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/gomatvis/gomatvis/internal/h5read"
	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// Counts are the N* scalars as stored in a file's Header.
type Counts struct {
	NantsData, NantsTelescope, Nbls, Nblts, Nfreqs, Npols, Nspws, Ntimes, Nphase int
}

// PhaseCenter is one entry of a file's phase_center_catalog.
type PhaseCenter struct {
	ID         int
	Name       string // cat_name
	Type       string // cat_type, e.g. "unprojected", "sidereal"
	Frame      string // cat_frame
	Lon, Lat   float64
	InfoSource string
}

// File is a UVH5 file read into memory.
type File struct {
	Path    string
	Version string // Header/version ("" if absent)
	Header  Header
	Counts  Counts
	Catalog []PhaseCenter
	// OldShapes reports a file written with pyuvdata 2's spectral-window
	// axis: data of shape (Nblts, 1, Nfreqs, Npols).
	OldShapes bool
	// Vis, Flags and Nsamples are C-ordered (blt, freq, pol).
	Vis      []complex128
	Flags    []bool
	Nsamples []float32
}

// ReadFile reads a UVH5 file: the Header metadata and the visdata, flags
// and nsamples datasets. It reads h5py/pyuvdata-written files (including
// chunked, LZF-compressed ones and the old spectral-window shapes) and
// files from this package's Writer. Errors are *FieldError naming the file
// and field; sizes are checked against the file before anything large is
// allocated.
func ReadFile(path string) (*File, error) {
	// inputfile refuses a FIFO or device before it could block or run on.
	fh, size, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("uvh5: %w", err)
	}
	defer fh.Close()
	return Read(fh, size, path)
}

// Read is ReadFile for a file already open as r, of size bytes; name is
// used in errors and File.Path.
func Read(r io.ReaderAt, size int64, name string) (*File, error) {
	h, err := h5read.Open(r, size)
	if err != nil {
		return nil, &FieldError{File: name, Field: "HDF5", Err: err}
	}
	rd := &reader{h: h, path: name, out: &File{Path: name}}
	for _, step := range []func() error{rd.counts, rd.telescope, rd.blts, rd.freqsPols, rd.catalog, rd.optional, rd.data} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return rd.out, nil
}

// reader reads one file's fields.
type reader struct {
	h    *h5read.File
	path string
	out  *File
}

// fail wraps err as a FieldError; an h5read error about the field itself
// is unwrapped so the path is not named twice.
func (r *reader) fail(field string, err error) error {
	var pe *h5read.PathError
	if errors.As(err, &pe) && pe.Path == field {
		err = pe.Err
	}
	return &FieldError{File: r.path, Field: field, Err: err}
}

func (r *reader) dataset(name string) (*h5read.Dataset, error) {
	d, err := r.h.Dataset(name)
	if err != nil {
		return nil, r.fail(name, err)
	}
	return d, nil
}

func (r *reader) has(name string) bool {
	_, err := r.h.Dataset(name)
	return !errors.Is(err, h5read.ErrNotFound)
}

// shaped is the dataset name, which must have one of the given shapes
// (nil = scalar).
func (r *reader) shaped(name string, shapes ...[]int) (*h5read.Dataset, error) {
	d, err := r.dataset(name)
	if err != nil {
		return nil, err
	}
	for _, s := range shapes {
		if slices.Equal(d.Shape, s) && !d.Null {
			return d, nil
		}
	}
	return nil, r.fail(name, fmt.Errorf("shape %v, want %v", d.Shape, shapes))
}

func (r *reader) ints(name string, shapes ...[]int) ([]int64, error) {
	d, err := r.shaped(name, shapes...)
	if err != nil {
		return nil, err
	}
	v, err := d.Int64s()
	if err != nil {
		return nil, r.fail(name, err)
	}
	return v, nil
}

func (r *reader) floats(name string, shapes ...[]int) ([]float64, error) {
	d, err := r.shaped(name, shapes...)
	if err != nil {
		return nil, err
	}
	v, err := d.Float64s()
	if err != nil {
		return nil, r.fail(name, err)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, r.fail(name, fmt.Errorf("element %d = %v: %w", i, x, ErrNotFinite))
		}
	}
	return v, nil
}

func (r *reader) scalarInt(name string) (int, error) {
	v, err := r.ints(name, nil)
	if err != nil {
		return 0, err
	}
	if v[0] < 0 || v[0] > math.MaxInt32 {
		return 0, r.fail(name, fmt.Errorf("value %d out of range", v[0]))
	}
	return int(v[0]), nil
}

func (r *reader) scalarFloat(name string) (float64, error) {
	v, err := r.floats(name, nil)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (r *reader) str(name string) (string, error) {
	d, err := r.shaped(name, nil)
	if err != nil {
		return "", err
	}
	v, err := d.Strings()
	if err != nil {
		return "", r.fail(name, err)
	}
	return v[0], nil
}

func (r *reader) boolean(name string) (bool, error) {
	d, err := r.shaped(name, nil)
	if err != nil {
		return false, err
	}
	v, err := d.Bools()
	if err != nil {
		return false, r.fail(name, err)
	}
	return v[0], nil
}

func (r *reader) counts() error {
	c := &r.out.Counts
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"Nants_data", &c.NantsData}, {"Nants_telescope", &c.NantsTelescope}, {"Nbls", &c.Nbls},
		{"Nblts", &c.Nblts}, {"Nfreqs", &c.Nfreqs}, {"Npols", &c.Npols}, {"Nspws", &c.Nspws}, {"Ntimes", &c.Ntimes},
	} {
		v, err := r.scalarInt("/Header/" + f.name)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	if c.Nblts < 1 || c.Nfreqs < 1 || c.Npols < 1 || c.NantsTelescope < 1 {
		return r.fail("/Header/Nblts", fmt.Errorf("Nblts %d, Nfreqs %d, Npols %d, Nants_telescope %d must be positive", c.Nblts, c.Nfreqs, c.Npols, c.NantsTelescope))
	}
	if r.has("/Header/Nphase") {
		v, err := r.scalarInt("/Header/Nphase")
		if err != nil {
			return err
		}
		c.Nphase = v
	}
	return nil
}

func (r *reader) telescope() error {
	h := &r.out.Header
	var err error
	if h.TelescopeName, err = r.str("/Header/telescope_name"); err != nil {
		return err
	}
	if r.has("/Header/instrument") {
		if h.Instrument, err = r.str("/Header/instrument"); err != nil {
			return err
		}
	}
	if r.has("/Header/telescope_frame") {
		if h.TelescopeFrame, err = r.str("/Header/telescope_frame"); err != nil {
			return err
		}
	}
	if r.has("/Header/ellipsoid") {
		if h.Ellipsoid, err = r.str("/Header/ellipsoid"); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"latitude", &h.Latitude}, {"longitude", &h.Longitude}, {"altitude", &h.Altitude}} {
		if *f.dst, err = r.scalarFloat("/Header/" + f.name); err != nil {
			return err
		}
	}
	n := r.out.Counts.NantsTelescope
	if h.AntennaNumbers, err = r.ints("/Header/antenna_numbers", []int{n}); err != nil {
		return err
	}
	d, err := r.shaped("/Header/antenna_names", []int{n})
	if err != nil {
		return err
	}
	if h.AntennaNames, err = d.Strings(); err != nil {
		return r.fail("/Header/antenna_names", err)
	}
	pos, err := r.floats("/Header/antenna_positions", []int{n, 3})
	if err != nil {
		return err
	}
	h.AntennaPositions = triples(pos)
	return nil
}

func triples(v []float64) [][3]float64 {
	out := make([][3]float64, len(v)/3)
	for i := range out {
		copy(out[i][:], v[3*i:])
	}
	return out
}

func (r *reader) blts() error {
	h, n := &r.out.Header, r.out.Counts.Nblts
	var err error
	if h.Ant1, err = r.ints("/Header/ant_1_array", []int{n}); err != nil {
		return err
	}
	if h.Ant2, err = r.ints("/Header/ant_2_array", []int{n}); err != nil {
		return err
	}
	uvw, err := r.floats("/Header/uvw_array", []int{n, 3})
	if err != nil {
		return err
	}
	h.UVW = triples(uvw)
	if h.Times, err = r.floats("/Header/time_array", []int{n}); err != nil {
		return err
	}
	if h.IntegrationTime, err = r.floats("/Header/integration_time", []int{n}); err != nil {
		return err
	}
	if r.has("/Header/lst_array") {
		if h.LSTs, err = r.floats("/Header/lst_array", []int{n}); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) freqsPols() error {
	h, c := &r.out.Header, r.out.Counts
	var err error
	if h.Freqs, err = r.floats("/Header/freq_array", []int{c.Nfreqs}, []int{1, c.Nfreqs}); err != nil {
		return err
	}
	if h.ChannelWidth, err = r.floats("/Header/channel_width", []int{c.Nfreqs}, nil); err != nil {
		return err
	}
	if len(h.ChannelWidth) == 1 && c.Nfreqs > 1 { // old files: one scalar width
		w := h.ChannelWidth[0]
		h.ChannelWidth = make([]float64, c.Nfreqs)
		for i := range h.ChannelWidth {
			h.ChannelWidth[i] = w
		}
	}
	if h.SpwArray, err = r.ints("/Header/spw_array", []int{c.Nspws}); err != nil {
		return err
	}
	if r.has("/Header/flex_spw_id_array") {
		if h.FlexSpwIDArray, err = r.ints("/Header/flex_spw_id_array", []int{c.Nfreqs}); err != nil {
			return err
		}
	}
	if h.Pols, err = r.ints("/Header/polarization_array", []int{c.Npols}); err != nil {
		return err
	}
	if h.VisUnits, err = r.str("/Header/vis_units"); err != nil {
		return err
	}
	h.History, err = r.str("/Header/history")
	if r.out.Version, err = r.optStr("/Header/version", err); err != nil {
		return err
	}
	return nil
}

// optStr reads an optional string dataset, passing on an earlier error.
func (r *reader) optStr(name string, prev error) (string, error) {
	if prev != nil || !r.has(name) {
		return "", prev
	}
	return r.str(name)
}

// catalog reads phase_center_catalog (pyuvdata >= 2.2) and the per-blt
// phase center arrays; older files have none and are left without.
func (r *reader) catalog() error {
	const base = "/Header/phase_center_catalog"
	ids, err := r.h.Members(base)
	if errors.Is(err, h5read.ErrNotFound) {
		return nil
	}
	if err != nil {
		return r.fail(base, err)
	}
	if len(ids) > 1<<16 {
		return r.fail(base, fmt.Errorf("%d entries", len(ids)))
	}
	for _, key := range ids {
		p := base + "/" + key
		var pc PhaseCenter
		if _, gerr := r.h.Members(p); gerr == nil {
			pc, err = r.catalogEntry(p, key)
		} else {
			pc, err = r.jsonCatalogEntry(p, key)
		}
		if err != nil {
			return err
		}
		r.out.Catalog = append(r.out.Catalog, pc)
	}
	sort.Slice(r.out.Catalog, func(a, b int) bool { return r.out.Catalog[a].ID < r.out.Catalog[b].ID })
	h, n := &r.out.Header, r.out.Counts.Nblts
	if h.PhaseCenterAppRA, err = r.floats("/Header/phase_center_app_ra", []int{n}); err != nil {
		return err
	}
	if h.PhaseCenterAppDec, err = r.floats("/Header/phase_center_app_dec", []int{n}); err != nil {
		return err
	}
	if h.PhaseCenterFramePA, err = r.floats("/Header/phase_center_frame_pa", []int{n}); err != nil {
		return err
	}
	pcid, err := r.ints("/Header/phase_center_id_array", []int{n})
	if err != nil {
		return err
	}
	for _, pc := range r.out.Catalog {
		if int64(pc.ID) == pcid[0] {
			h.PhaseCenterName = pc.Name
		}
	}
	return nil
}

func (r *reader) catalogEntry(p, id string) (PhaseCenter, error) {
	pc := PhaseCenter{}
	v, err := strconv.Atoi(id)
	if err != nil {
		return pc, r.fail(p, fmt.Errorf("catalog id %q is not an integer", id))
	}
	pc.ID = v
	if pc.Name, err = r.str(p + "/cat_name"); err != nil {
		return pc, err
	}
	if pc.Type, err = r.str(p + "/cat_type"); err != nil {
		return pc, err
	}
	pc.Frame, err = r.optStr(p+"/cat_frame", nil)
	if pc.InfoSource, err = r.optStr(p+"/info_source", err); err != nil {
		return pc, err
	}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"cat_lon", &pc.Lon}, {"cat_lat", &pc.Lat}} {
		if r.has(p + "/" + f.name) {
			if *f.dst, err = r.scalarFloat(p + "/" + f.name); err != nil {
				return pc, err
			}
		}
	}
	return pc, nil
}

// jsonCatalogEntry reads an entry as pyuvdata 2.2-2.3 wrote them: a
// string dataset named by cat_name holding a JSON object with cat_id.
func (r *reader) jsonCatalogEntry(p, name string) (PhaseCenter, error) {
	s, err := r.str(p)
	if err != nil {
		return PhaseCenter{}, err
	}
	var v struct {
		ID         *int    `json:"cat_id"`
		Type       string  `json:"cat_type"`
		Frame      string  `json:"cat_frame"`
		Lon        float64 `json:"cat_lon"`
		Lat        float64 `json:"cat_lat"`
		InfoSource string  `json:"info_source"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return PhaseCenter{}, r.fail(p, fmt.Errorf("catalog entry: %w", err))
	}
	if v.ID == nil || v.Type == "" {
		return PhaseCenter{}, r.fail(p, fmt.Errorf("catalog entry lacks cat_id or cat_type"))
	}
	return PhaseCenter{ID: *v.ID, Name: name, Type: v.Type, Frame: v.Frame, Lon: v.Lon, Lat: v.Lat, InfoSource: v.InfoSource}, nil
}

func (r *reader) optional() error {
	h := &r.out.Header
	var err error
	h.XOrientation, err = r.optStr("/Header/x_orientation", nil)
	h.BltOrder, err = r.optStr("/Header/blt_order", err)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		dst  **bool
	}{{"blts_are_rectangular", &h.BltsAreRectangular}, {"time_axis_faster_than_bls", &h.TimeAxisFasterThanBls}} {
		if r.has("/Header/" + f.name) {
			v, err := r.boolean("/Header/" + f.name)
			if err != nil {
				return err
			}
			*f.dst = &v
		}
	}
	return nil
}

// data reads visdata, flags and nsamples, of shape (Nblts, Nfreqs, Npols)
// or, from pyuvdata 2 files, (Nblts, 1, Nfreqs, Npols).
func (r *reader) data() error {
	c := r.out.Counts
	cur, old := []int{c.Nblts, c.Nfreqs, c.Npols}, []int{c.Nblts, 1, c.Nfreqs, c.Npols}
	vis, err := r.shaped("/Data/visdata", cur, old)
	if err != nil {
		return err
	}
	r.out.OldShapes = len(vis.Shape) == 4
	r.out.Header.SinglePrecision = vis.Type.Class == h5read.ClassCompound && len(vis.Type.Members) == 2 && vis.Type.Members[0].Type.Size == 4
	if r.out.Vis, err = vis.Complex128s(); err != nil {
		return r.fail("/Data/visdata", err)
	}
	fl, err := r.shaped("/Data/flags", vis.Shape)
	if err != nil {
		return err
	}
	if r.out.Flags, err = fl.Bools(); err != nil {
		return r.fail("/Data/flags", err)
	}
	ns, err := r.floats("/Data/nsamples", vis.Shape)
	if err != nil {
		return err
	}
	r.out.Nsamples = make([]float32, len(ns))
	for i, x := range ns {
		r.out.Nsamples[i] = float32(x)
	}
	return nil
}
