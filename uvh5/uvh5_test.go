package uvh5

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// referenceFiles returns pyuvsim's UVH5 reference files (testdata/, or
// GOMATVIS_SHARED; their absence fails the test).
func referenceFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(sharedtest.Dir(t), "reference")
	return []string{
		filepath.Join(dir, "pyuvsim-stokesI-gaussian", "stokesI-gaussian.uvh5"),
		filepath.Join(dir, "pyuvsim-fullstokes-airy", "fullstokes-airy.uvh5"),
	}
}

// writeBlocks writes vis, flags, nsamples through a Writer in blocks of
// varying size, in a shuffled order.
func writeBlocks(t *testing.T, rng *rand.Rand, path string, h *Header, vis []complex128, flags []bool, ns []float32) {
	t.Helper()
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	row := h.Nfreqs() * h.Npols()
	var starts [][2]int
	for lo := 0; lo < h.Nblts(); {
		hi := min(lo+1+rng.IntN(9), h.Nblts())
		starts = append(starts, [2]int{lo, hi})
		lo = hi
	}
	rng.Shuffle(len(starts), func(i, j int) { starts[i], starts[j] = starts[j], starts[i] })
	if len(starts) < 3 {
		t.Fatalf("only %d blocks", len(starts))
	}
	for _, s := range starts {
		a, b := s[0]*row, s[1]*row
		if err := w.WriteBlock(s[0], vis[a:b], flags[a:b], ns[a:b]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s visible before Close: %v", path, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTripOutOfOrderBlocks(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	for _, single := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		h := testHeader(rng, 5, 3, 4)
		h.SinglePrecision = single
		n := h.Nblts() * h.Nfreqs() * h.Npols()
		vis, flags, ns := randomData(rng, n)
		if single {
			for i := range vis {
				vis[i] = complex128(complex64(vis[i]))
			}
		}
		path := filepath.Join(t.TempDir(), "rt.uvh5")
		writeBlocks(t, rng, path, h, vis, flags, ns)
		f, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := withDefaults(h)
		if !reflect.DeepEqual(f.Header, want) {
			t.Errorf("single=%v: header differs:\n got %+v\nwant %+v", single, f.Header, want)
		}
		if !reflect.DeepEqual(f.Vis, vis) || !reflect.DeepEqual(f.Flags, flags) || !reflect.DeepEqual(f.Nsamples, ns) {
			t.Errorf("single=%v: data differ", single)
		}
		c := f.Counts
		if c.Nblts != 45 || c.Nbls != 15 || c.Ntimes != 3 || c.NantsData != 5 || c.Nfreqs != 4 || c.Npols != 4 || c.Nspws != 1 || c.Nphase != 1 {
			t.Errorf("counts %+v", c)
		}
		if f.Version != Version || f.OldShapes || len(f.Catalog) != 1 || f.Catalog[0].Type != "unprojected" {
			t.Errorf("version %q old %v catalog %+v", f.Version, f.OldShapes, f.Catalog)
		}
	}
}

// expectedJSON lists the values h5py must find in a file written from h
// and the data.
func expectedJSON(h *Header, vis []complex128, flags []bool, ns []float32) map[string]any {
	c := withDefaults(h)
	pairs := make([][2]float64, len(vis))
	for i, v := range vis {
		pairs[i] = [2]float64{real(v), imag(v)}
	}
	nb, nf, np := h.Nblts(), h.Nfreqs(), h.Npols()
	return map[string]any{
		"Header/telescope_name": c.TelescopeName, "Header/instrument": c.Instrument,
		"Header/latitude": c.Latitude, "Header/longitude": c.Longitude, "Header/altitude": c.Altitude,
		"Header/antenna_names": c.AntennaNames, "Header/antenna_numbers": c.AntennaNumbers,
		"Header/antenna_positions": c.AntennaPositions, "Header/ant_1_array": c.Ant1, "Header/ant_2_array": c.Ant2,
		"Header/uvw_array": c.UVW, "Header/time_array": c.Times, "Header/lst_array": c.LSTs,
		"Header/integration_time": c.IntegrationTime, "Header/freq_array": c.Freqs,
		"Header/channel_width": c.ChannelWidth, "Header/spw_array": c.SpwArray,
		"Header/flex_spw_id_array": c.FlexSpwIDArray, "Header/polarization_array": c.Pols,
		"Header/vis_units": c.VisUnits, "Header/history": c.History, "Header/version": Version,
		"Header/telescope_frame": "itrs", "Header/x_orientation": c.XOrientation, "Header/blt_order": c.BltOrder,
		"Header/blts_are_rectangular": *c.BltsAreRectangular, "Header/time_axis_faster_than_bls": *c.TimeAxisFasterThanBls,
		"Header/Nblts": nb, "Header/Nfreqs": nf, "Header/Npols": np, "Header/Nbls": h.Nbls(), "Header/Ntimes": h.Ntimes(),
		"Header/Nants_data": h.NantsData(), "Header/Nants_telescope": h.NantsTelescope(), "Header/Nspws": 1, "Header/Nphase": 1,
		"Header/phase_center_app_ra": c.PhaseCenterAppRA, "Header/phase_center_app_dec": c.PhaseCenterAppDec,
		"Header/phase_center_frame_pa": c.PhaseCenterFramePA, "Header/phase_center_id_array": make([]int64, nb),
		"Header/phase_center_catalog/0/cat_name": "unprojected", "Header/phase_center_catalog/0/cat_type": "unprojected",
		"Header/phase_center_catalog/0/cat_frame": "altaz", "Header/phase_center_catalog/0/cat_lat": 1.5707963267948966,
		"Header/phase_center_catalog/0/cat_lon": 0.0, "Header/phase_center_catalog/0/info_source": "user",
		"Header/phase_center_catalog/0/cat_dist": nil,
		"Data/visdata":                           reshape3(pairs, nb, nf, np), "Data/flags": reshape3(flags, nb, nf, np),
		"Data/nsamples": reshape3(ns, nb, nf, np),
	}
}

// reshape3 nests a flat slice as [nb][nf][np].
func reshape3[T any](v []T, nb, nf, np int) [][][]T {
	out := make([][][]T, nb)
	for b := range out {
		out[b] = make([][]T, nf)
		for f := range out[b] {
			out[b][f] = v[(b*nf+f)*np : (b*nf+f+1)*np]
		}
	}
	return out
}

func needPython(t *testing.T) string {
	t.Helper()
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	return py
}

// runChecker runs testdata/check_uvh5.py on path with the expected values.
func runChecker(t *testing.T, py, path string, expected map[string]any) {
	t.Helper()
	args := []string{"testdata/check_uvh5.py", path}
	if expected != nil {
		b, err := json.Marshal(expected)
		if err != nil {
			t.Fatal(err)
		}
		js := filepath.Join(t.TempDir(), "expected.json")
		if err := os.WriteFile(js, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, js)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Errorf("check_uvh5.py %s: %v\n%s", path, err, out)
	}
}

func TestH5pyChecksWrittenFile(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	py := needPython(t)
	rng := rand.New(rand.NewPCG(3, 4))
	h := testHeader(rng, 4, 2, 3)
	vis, flags, ns := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	path := filepath.Join(t.TempDir(), "check.uvh5")
	writeBlocks(t, rng, path, h, vis, flags, ns)
	runChecker(t, py, path, expectedJSON(h, vis, flags, ns))

	// The checker must fail on a wrong value, or it checks nothing.
	bad := expectedJSON(h, vis, flags, ns)
	bad["Header/latitude"] = h.Latitude + 1e-12
	b, _ := json.Marshal(bad)
	js := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(js, b, 0o644)
	if out, err := exec.Command(py, "testdata/check_uvh5.py", path, js).CombinedOutput(); err == nil {
		t.Errorf("checker accepted a wrong latitude: %s", out)
	}
}

func TestCheckerAcceptsReferences(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	py := needPython(t)
	for _, ref := range referenceFiles(t) {
		runChecker(t, py, ref, nil)
	}
}

func TestH5dumpParsesWrittenFile(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	h5dump, err := exec.LookPath("h5dump")
	if err != nil {
		t.Skip("h5dump check skipped: h5dump not installed")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	h := testHeader(rng, 3, 2, 2)
	vis, flags, ns := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	path := filepath.Join(t.TempDir(), "dump.uvh5")
	writeBlocks(t, rng, path, h, vis, flags, ns)
	cmd := exec.Command(h5dump, path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("h5dump: %v\n%s", err, stderr.String())
	}
	for _, s := range []string{`DATASET "visdata"`, `DATASET "flags"`, `"TRUE"             1;`, `DATASET "cat_vrad"`, `DATASPACE  NULL`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("h5dump output lacks %q", s)
		}
	}
}

// TestReadReferences reads pyuvsim's files (h5py-written: superblock 0,
// chunked visdata, LZF flags and nsamples) and checks the conventions the
// package documents, and the data against h5py.
func TestReadReferences(t *testing.T) {
	t.Parallel() // independent: its own temporaries, read-only references
	for _, ref := range referenceFiles(t) {
		f, err := ReadFile(ref)
		if err != nil {
			t.Fatal(err)
		}
		h := &f.Header
		c := f.Counts
		if c.Nblts != 84 || c.Nfreqs != 3 || c.Npols != 4 || c.Nbls != 28 || c.Ntimes != 3 || c.NantsTelescope != 7 {
			t.Errorf("%s: counts %+v", ref, c)
		}
		if len(f.Vis) != 84*3*4 || len(f.Flags) != len(f.Vis) || len(f.Nsamples) != len(f.Vis) || f.OldShapes {
			t.Errorf("%s: data lengths %d %d %d old %v", ref, len(f.Vis), len(f.Flags), len(f.Nsamples), f.OldShapes)
		}
		if h.TelescopeName != "HERA" || h.VisUnits != "Jy" || !reflect.DeepEqual(h.Pols, []int64{-5, -6, -7, -8}) ||
			h.AntennaNames[4] != "HH10" || h.PhaseCenterName == "" || f.Catalog[0].Type != "unprojected" {
			t.Errorf("%s: header %+v", ref, h)
		}
		if err := h.Validate(); err != nil {
			t.Errorf("%s: read header does not validate: %v", ref, err)
		}
		index := map[int64]int{}
		for i, a := range h.AntennaNumbers {
			index[a] = i
		}
		for i := range h.Ant1 {
			if h.Ant1[i] < h.Ant2[i] {
				t.Fatalf("%s: blt %d has ant1 %d < ant2 %d", ref, i, h.Ant1[i], h.Ant2[i])
			}
			if i > 0 && h.Times[i] < h.Times[i-1] {
				t.Fatalf("%s: times not time-major at %d", ref, i)
			}
			p1, p2 := h.AntennaPositions[index[h.Ant1[i]]], h.AntennaPositions[index[h.Ant2[i]]]
			enu := ecefToENU([3]float64{p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]}, h.Latitude, h.Longitude)
			for k := range 3 {
				if d := enu[k] - h.UVW[i][k]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("%s: blt %d uvw %v, ENU(ant2)-ENU(ant1) %v", ref, i, h.UVW[i], enu)
				}
			}
		}
		for i, ns := range f.Nsamples {
			if ns != 1 || f.Flags[i] {
				t.Fatalf("%s: element %d nsamples %v flag %v", ref, i, ns, f.Flags[i])
			}
		}
		compareWithH5py(t, ref, f)
	}
}

const pyVis = `
import h5py, json, sys
with h5py.File(sys.argv[1], "r") as f:
    v = f["Data/visdata"][()].ravel()
json.dump([[float(x.real), float(x.imag)] for x in v], sys.stdout)
`

func compareWithH5py(t *testing.T, path string, f *File) {
	t.Helper()
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	out, err := exec.Command(py, "-c", pyVis, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]float64
	if err := json.Unmarshal(out, &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != len(f.Vis) {
		t.Fatalf("%s: h5py %d values, ours %d", path, len(pairs), len(f.Vis))
	}
	for i, p := range pairs {
		if complex(p[0], p[1]) != f.Vis[i] {
			t.Fatalf("%s: visdata[%d] ours %v, h5py %v", path, i, f.Vis[i], p)
		}
	}
}

// TestWriterTemporaryAndMode: the writer's temporary is named as
// atomicfile's (".NAME.tmp-PID-RANDOM"), so that the next run clears it
// when a writer is killed (atomicfile.RemoveStale; a name without the
// PID was never cleared), and the file gets the permissions os.Create
// would give, or keeps those of the file it replaces (it was always 0644).
func TestWriterTemporaryAndMode(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	umaskMode := st.Mode().Perm()
	h := testHeader(rand.New(rand.NewPCG(5, 6)), 3, 2, 2)
	vis := make([]complex128, h.Nblts()*h.Nfreqs()*h.Npols())
	path := filepath.Join(dir, "x.uvh5")
	for _, c := range []struct {
		name  string
		prior os.FileMode // 0: no file at path before
		want  os.FileMode
	}{{"new file", 0, umaskMode}, {"replaced file", 0o640, 0o640}} {
		if c.prior != 0 {
			if err := os.Chmod(path, c.prior); err != nil {
				t.Fatal(err)
			}
		}
		w, err := Create(path, h)
		if err != nil {
			t.Fatal(err)
		}
		if want := ".x.uvh5.tmp-" + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(w.out.File().Name()), want) {
			t.Errorf("%s: temporary %s, want a name starting %s", c.name, filepath.Base(w.out.File().Name()), want)
		}
		if err := w.WriteBlock(0, vis, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.want {
			t.Errorf("%s: mode %v, want %v", c.name, st.Mode().Perm(), c.want)
		}
	}
}
