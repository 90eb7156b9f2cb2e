package ms

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// benchArray is a 350-antenna, 64-channel, 4-polarization array (61425
// baselines with autos) over ntimes times: the size for the MS
// writer's speed against the UVH5 writer's.
func benchArray(ntimes int) (Header, *uvh5.Header) {
	const nant, nf = 350, 64
	h := Header{
		TelescopeName: "HERA", LatDeg: -30.72152612068957, LonDeg: 21.428303826863015, AltM: 1051.69,
		Pols: []int{-5, -6, -7, -8}, CentreName: "c", CentreRA: 1, CentreDec: -0.5, IntegrationTime: 10,
	}
	for a := range nant {
		h.AntennaNumbers = append(h.AntennaNumbers, a)
		h.AntennaNames = append(h.AntennaNames, fmt.Sprintf("HH%d", a))
		h.AntennaECEF = append(h.AntennaECEF, [3]float64{float64(a), float64(a % 17), 0})
	}
	for f := range nf {
		h.Freqs = append(h.Freqs, 100e6+float64(f)*1e5)
		h.ChannelWidths = append(h.ChannelWidths, 1e5)
	}
	u := &uvh5.Header{
		Telescope: uvh5.Telescope{TelescopeName: "HERA", Instrument: "HERA", Latitude: h.LatDeg, Longitude: h.LonDeg, Altitude: h.AltM,
			AntennaPositions: h.AntennaECEF},
		FreqAxis: uvh5.FreqAxis{Freqs: h.Freqs, ChannelWidth: h.ChannelWidths},
		VisUnits: "Jy", Pols: []int64{-5, -6, -7, -8},
	}
	for i, n := range h.AntennaNumbers {
		u.AntennaNumbers = append(u.AntennaNumbers, int64(n))
		u.AntennaNames = append(u.AntennaNames, h.AntennaNames[i])
	}
	for t := range ntimes {
		jd := 2459845.0 + float64(t)*10/86400
		h.Times = append(h.Times, jd)
		for a1 := range nant {
			for a2 := 0; a2 <= a1; a2++ {
				u.Ant1, u.Ant2 = append(u.Ant1, int64(a1)), append(u.Ant2, int64(a2))
				u.UVW = append(u.UVW, [3]float64{float64(a2 - a1), 0, 0})
				u.Times = append(u.Times, jd)
				u.LSTs = append(u.LSTs, math.Mod(3.5+float64(t)*0.0007, 2*math.Pi))
				u.IntegrationTime = append(u.IntegrationTime, 10)
			}
		}
	}
	h.Baselines = nant * (nant + 1) / 2
	return h, u
}

// benchBlock is one time's rows.
func benchBlock(h Header, t int) Block {
	nb := h.Baselines
	b := Block{JD: fill(nb, h.Times[t]), UVW: make([][3]float64, nb), Data: make([]complex64, nb*len(h.Freqs)*len(h.Pols))}
	for a1 := range len(h.AntennaNumbers) {
		for a2 := 0; a2 <= a1; a2++ {
			b.Ant1, b.Ant2 = append(b.Ant1, a1), append(b.Ant2, a2)
		}
	}
	for i := range b.Data {
		b.Data[i] = complex(float32(i), -float32(i))
	}
	return b
}

// BenchmarkWrite350 writes the 350-antenna array's MS and, for the bar,
// its UVH5 (complex64 visibilities, WriteBlock64) with the same rows, a
// time block at a time. GOMATVIS_BENCH_TIMES sets the number of times
// (default 2; the size is 10).
func BenchmarkWrite350(b *testing.B) {
	ntimes := 2
	if s := os.Getenv("GOMATVIS_BENCH_TIMES"); s != "" {
		fmt.Sscan(s, &ntimes)
	}
	h, u := benchArray(ntimes)
	block := benchBlock(h, 0)
	dir := b.TempDir()
	b.Run("ms", func(b *testing.B) {
		b.SetBytes(int64(h.Rows()) * int64(len(h.Freqs)*len(h.Pols)) * 8)
		for b.Loop() {
			path := filepath.Join(dir, "bench.ms")
			os.RemoveAll(path)
			w, err := Create(path, h)
			if err != nil {
				b.Fatal(err)
			}
			for t := range ntimes {
				block.JD = fill(h.Baselines, h.Times[t])
				if err := w.WriteRows(t*h.Baselines, block); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uvh5", func(b *testing.B) {
		b.SetBytes(int64(h.Rows()) * int64(len(h.Freqs)*len(h.Pols)) * 8)
		for b.Loop() {
			path := filepath.Join(dir, "bench.uvh5")
			os.RemoveAll(path)
			w, err := uvh5.Create(path, u)
			if err != nil {
				b.Fatal(err)
			}
			for t := range ntimes {
				if err := w.WriteBlock64(t*h.Baselines, block.Data, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
