package uvh5

import (
	"fmt"

	"github.com/gomatvis/gomatvis/internal/h5write"
)

// headerWriter writes Header datasets, keeping the first error.
type headerWriter struct {
	g   *h5write.Group
	err error
}

func (w *headerWriter) do(name string, f func() error) {
	if w.err == nil {
		if err := f(); err != nil {
			w.err = &FieldError{Field: "Header/" + name, Err: err}
		}
	}
}

func (w *headerWriter) scalar(name string, v any) {
	w.do(name, func() error { return w.g.Scalar(name, v) })
}
func (w *headerWriter) str(name, s string) { w.do(name, func() error { return w.g.String(name, s) }) }
func (w *headerWriter) arr(name string, data any, shape ...int) {
	w.do(name, func() error { return w.g.Array(name, data, shape...) })
}

// flat3 flattens [][3]float64 into a C-ordered (n, 3) array.
func flat3(v [][3]float64) []float64 {
	out := make([]float64, 0, 3*len(v))
	for _, x := range v {
		out = append(out, x[:]...)
	}
	return out
}

// writeHeader writes the Header group as pyuvdata 3.x's UVH5._write_header
// and Telescope.write_hdf5_header do: the same names, dtypes (int64 counts
// and integer arrays, float64 values, null-padded fixed strings) and
// shapes.
func writeHeader(g *h5write.Group, h *Header) error {
	w := &headerWriter{g: g}
	w.str("version", Version)
	w.str("telescope_frame", h.frame())
	if h.frame() == "mcmf" {
		w.str("ellipsoid", h.Ellipsoid)
	}
	w.scalar("latitude", h.Latitude)
	w.scalar("longitude", h.Longitude)
	w.scalar("altitude", h.Altitude)
	w.str("telescope_name", h.TelescopeName)
	w.scalar("Nants_telescope", int64(h.NantsTelescope()))
	w.arr("antenna_numbers", h.AntennaNumbers)
	w.arr("antenna_positions", flat3(h.AntennaPositions), len(h.AntennaPositions), 3)
	w.do("antenna_names", func() error { return g.Strings("antenna_names", h.AntennaNames) })
	w.str("instrument", h.Instrument)
	if h.XOrientation != "" {
		w.str("x_orientation", h.XOrientation)
	}

	nblts := h.Nblts()
	w.scalar("Nants_data", int64(h.NantsData()))
	w.scalar("Nbls", int64(h.Nbls()))
	w.scalar("Nblts", int64(nblts))
	w.scalar("Nfreqs", int64(h.Nfreqs()))
	w.scalar("Npols", int64(h.Npols()))
	w.scalar("Nspws", int64(len(h.spws())))
	w.scalar("Ntimes", int64(h.Ntimes()))
	w.arr("uvw_array", flat3(h.UVW), nblts, 3)
	w.str("vis_units", h.VisUnits)
	w.arr("channel_width", h.ChannelWidth)
	w.arr("time_array", h.Times)
	w.arr("freq_array", h.Freqs)
	w.arr("integration_time", h.IntegrationTime)
	w.arr("lst_array", h.LSTs)
	w.arr("polarization_array", h.Pols)
	w.arr("spw_array", h.spws())
	w.arr("ant_1_array", h.Ant1)
	w.arr("ant_2_array", h.Ant2)

	w.arr("phase_center_id_array", make([]int64, nblts))
	w.scalar("Nphase", int64(1))
	w.do("phase_center_catalog", func() error { return writeCatalog(g, h.catName()) })
	ra, dec, pa := h.appCoords()
	w.arr("phase_center_app_ra", ra)
	w.arr("phase_center_app_dec", dec)
	w.arr("phase_center_frame_pa", pa)

	if h.BltOrder != "" {
		w.str("blt_order", h.BltOrder)
	}
	w.arr("flex_spw_id_array", h.flexSpw())
	if h.BltsAreRectangular != nil {
		w.scalar("blts_are_rectangular", *h.BltsAreRectangular)
	}
	if h.TimeAxisFasterThanBls != nil {
		w.scalar("time_axis_faster_than_bls", *h.TimeAxisFasterThanBls)
	}
	w.str("history", h.History)
	return w.err
}

// writeCatalog writes phase_center_catalog/0 for an unprojected center as
// pyuvdata 3 builds it (_add_phase_center with cat_type "unprojected"):
// cat_lon 0, cat_lat pi/2, cat_frame "altaz", info_source "user", and the
// unset values (epoch, times, proper motions, distance, radial velocity) as
// null float32 datasets (h5py.Empty("f")).
func writeCatalog(g *h5write.Group, name string) error {
	cat, err := g.Group("phase_center_catalog")
	if err != nil {
		return err
	}
	c, err := cat.Group("0")
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error { return c.String("cat_name", name) },
		func() error { return c.String("cat_type", "unprojected") },
		func() error { return c.Scalar("cat_lon", 0.0) },
		func() error { return c.Scalar("cat_lat", 1.5707963267948966) },
		func() error { return c.String("cat_frame", "altaz") },
		func() error { return c.String("info_source", "user") },
	}
	for _, empty := range []string{"cat_epoch", "cat_times", "cat_pm_ra", "cat_pm_dec", "cat_dist", "cat_vrad"} {
		steps = append(steps, func() error { return c.Empty(empty, h5write.Float32) })
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return fmt.Errorf("phase_center_catalog/0: %w", err)
		}
	}
	return nil
}
