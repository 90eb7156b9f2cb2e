package main

import (
	"encoding/json"
	"testing"

	"github.com/gomatvis/gomatvis/internal/runclock"
)

// TestMetaKeys pins meta.json's keys, their order and their encoding with
// every field of outputMeta set (set by assignment, so the test does not
// depend on how outputMeta groups its fields). The expected text is what
// the flat 31-field struct of commit 3efd4ff wrote, plus the phases
// object after created_utc; a regrouping must not change a byte of it,
// and a decode of it must give the same struct back.
func TestMetaKeys(t *testing.T) {
	var m outputMeta
	m.Gomatvis, m.Spec, m.Shape, m.DType = "v1", "spec", []int{2, 3, 1}, "complex64"
	m.Axes, m.FeedOrder, m.Feeds = []string{"freq", "time", "antpair"}, "order", []string{"x", "y"}
	m.FreqsHz, m.TimesJD, m.AntPairs = []float64{1e8, 1.5e8}, []float64{2459845.5}, [][2]int{{0, 1}}
	m.Polarized, m.Precision, m.Coordinates, m.Backend = true, 1, "erfa", "cpu"
	m.MatProd, m.Chunks, m.WallS, m.Shards = "herk", 4, 1.25, 2
	m.Created, m.Units, m.Convention, m.Conventions = "2026-01-01T00:00:00Z", "Jy", "V", "pyuvsim"
	m.AntNums, m.AntNames, m.Pols, m.PolIndex = []int{0, 7}, []string{"a", "b"}, []int{-5}, [][2]int{{0, 0}}
	m.EarthOrientation, m.StokesRotation = "builtin", "iau"
	m.BeamInterp, m.BeamFreqInterp, m.BeamPole = "az_za_simple", "linear", "edge"
	// The phases (added after 3efd4ff) follow created_utc; only the
	// phases reached are written.
	input, compute := 0.5, 0.25
	m.Phases = &runclock.Phases{WallS: 1, StartFrom: "process", InputS: &input, ComputeS: &compute, PeakRSSBytes: 1024}
	const want = `{"gomatvis_version":"v1","spec_name":"spec","shape":[2,3,1],"dtype":"complex64",` +
		`"axes":["freq","time","antpair"],"feed_order":"order","feeds":["x","y"],"freqs_hz":[100000000,150000000],` +
		`"times_jd":[2459845.5],"antpairs":[[0,1]],"polarized":true,"precision":1,"coordinates":"erfa",` +
		`"backend":"cpu","matprod":"herk","nchunks":4,"wall_s":1.25,"shards":2,"created_utc":"2026-01-01T00:00:00Z",` +
		`"phases":{"wall_s":1,"start_from":"process","input_s":0.5,"compute_s":0.25,"peak_rss_bytes":1024},` +
		`"units":"Jy","convention":"V","conventions":"pyuvsim","antenna_numbers":[0,7],"antenna_names":["a","b"],` +
		`"polarization_array":[-5],"pol_index":[[0,0]],"earth_orientation":"builtin","stokes_rotation":"iau",` +
		`"beam_interp":"az_za_simple","beam_freq_interp":"linear","beam_pole":"edge"}`
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("meta.json\n got %s\nwant %s", b, want)
	}
	var back outputMeta
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != want {
		t.Errorf("decoded and encoded again:\n got %s\nwant %s", again, want)
	}
	// The omitempty keys are absent when unset, as before.
	var empty outputMeta
	const wantEmpty = `{"gomatvis_version":"","spec_name":"","shape":null,"dtype":"","axes":null,"feeds":null,` +
		`"freqs_hz":null,"times_jd":null,"antpairs":null,"polarized":false,"precision":0,"coordinates":"",` +
		`"backend":"","matprod":"","nchunks":0,"wall_s":0,"created_utc":"","units":"","convention":"","conventions":""}`
	if b, _ := json.Marshal(empty); string(b) != wantEmpty {
		t.Errorf("empty meta.json\n got %s\nwant %s", b, wantEmpty)
	}
}
