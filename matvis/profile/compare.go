package profile

import (
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/plots"
)

// PeerStage is one stage of another implementation, seconds per chunk.
type PeerStage struct {
	Stage   string
	Seconds float64
}

// PeerRun is another implementation's measured time on one configuration
// (matvis on the same GPU: docs/peer-h200.md): its stages per chunk and
// its measured time per integration, which may hold time no stage
// accounts for.
type PeerRun struct {
	Name     string
	Chunks   int
	PerChunk []PeerStage
	// PerIntegration is the measured time per integration, seconds; the
	// part the stages × chunks leave is drawn as "other (untimed)".
	PerIntegration float64
}

// otherStage names time per integration that no stage accounts for.
const otherStage = "other (untimed)"

// CompareFigure draws a peer's time per integration beside the report's
// (the median over its integrations of each stage's time), stacked by
// stage, with the speed-up as a ratio over the report's bar.
func CompareFigure(title string, peer PeerRun, rep *Report, caption []string) (*plots.Figure, error) {
	if len(rep.PerIntegration) == 0 {
		return nil, fmt.Errorf("profile: compare: the report has no integrations")
	}
	if peer.Chunks < 1 || peer.PerIntegration <= 0 {
		return nil, fmt.Errorf("profile: compare: peer %q: %d chunks, %g s per integration", peer.Name, peer.Chunks, peer.PerIntegration)
	}
	stages, labels := stageColumns(rep)
	// The union: the peer's stages, then the report's not among them.
	var union []string
	peerSec := map[string]float64{}
	sum := 0.0
	for _, s := range peer.PerChunk {
		if !slices.Contains(union, s.Stage) {
			union = append(union, s.Stage)
		}
		peerSec[s.Stage] += s.Seconds * float64(peer.Chunks)
		sum += s.Seconds * float64(peer.Chunks)
	}
	if rest := peer.PerIntegration - sum; rest > 0 {
		peerSec[otherStage] = rest
		union = append(union, otherStage)
	}
	ours := map[string]float64{}
	for i := range stages {
		var v []float64
		for _, in := range rep.PerIntegration {
			v = append(v, integrationSeconds(rep, in, stages)[i])
		}
		ours[labels[i]] = Summarize(v).Median
		if !slices.Contains(union, labels[i]) {
			union = append(union, labels[i])
		}
	}
	d := plots.CompareData{Title: title, Unit: "ms", Stages: union, Caption: caption}
	for _, run := range []struct {
		name string
		sec  map[string]float64
	}{{peer.Name, peerSec}, {"gomatvis", ours}} {
		b := plots.StageBar{Label: run.name}
		for _, s := range union {
			b.Seconds = append(b.Seconds, run.sec[s])
		}
		d.Bars = append(d.Bars, b)
	}
	return plots.Comparison(d)
}
