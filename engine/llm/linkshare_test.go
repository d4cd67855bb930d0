package llm

import (
	"strings"
	"testing"
)

// Pipeline sends and data-parallel collectives that cross the same
// adapters share them: on four DGX H100 nodes with tp=4 pp=2 dp=4, the
// last stage's gradient sends to the first stage leave through adapters
// its data-parallel rings use, and its last backward issues both at
// once; that send takes longer than the ones before it (at most twice
// as long: half the bandwidth while they overlap), and the two modes
// agree on the iteration.
func TestPipelineAndDataParallelShareLinks(t *testing.T) {
	const llama = "zoo:llama3.1-8b?layers=8&seq=4096"
	const layout = "tp=4,pp=2,dp=4,sp,mbs=1,gbs=32"
	var iters []float64
	for _, mode := range []Mode{ModeReduced, ModeFull} {
		j := modeJob(t, llama, layout, "dgx-h100", mode)
		P := j.Layout.PP
		// the links must be shared for the test to mean anything
		pp := map[int]bool{}
		for _, pr := range j.ppPairs(P-1, 0) {
			for _, lid := range j.Cluster.Route(pr[0], pr[1]) {
				pp[int(lid)] = true
			}
		}
		shared := 0
		for _, lid := range j.dpLinks(P-1, true, j.dpPeers(P-1), j.expertDPPeers(P-1), nil) {
			if pp[lid] {
				shared++
			}
		}
		if shared == 0 {
			t.Fatalf("%s: the last stage's sends and its data-parallel rings share no link", mode)
		}
		res, err := Simulate(j)
		if err != nil {
			t.Fatal(err)
		}
		iters = append(iters, res.IterationTime)
		if mode != ModeReduced {
			continue
		}
		var dp, sends []CommSpan
		for _, c := range res.Ranks[P-1].Comm {
			switch {
			case c.Kind == CommDP && c.End > c.Start:
				dp = append(dp, c)
			case c.Kind == CommPP && strings.HasPrefix(c.What, "send gradient"):
				sends = append(sends, c)
			}
		}
		if len(dp) == 0 || len(sends) < 2 {
			t.Fatalf("%s: %d data-parallel spans, %d gradient sends", mode, len(dp), len(sends))
		}
		alone := sends[0].End - sends[0].Start
		last := sends[len(sends)-1]
		met := false
		for _, d := range dp {
			if last.Start < d.End && d.Start < last.End {
				met = true
			}
		}
		const tol = 1e-9
		took := last.End - last.Start
		if !met || !(took > alone*(1+tol) && took <= 2*alone*(1+tol)) {
			t.Errorf("%s: the last gradient send [%.6f, %.6f] met a collective: %v; took %.3g s, alone %.3g s: want more, at most twice", mode, last.Start, last.End, met, took, alone)
		}
	}
	if d := relDiff(iters[0], iters[1]); d > symTol {
		t.Errorf("reduced %.6f s, full %.6f s: %.3f %% apart", iters[0], iters[1], 100*d)
	}
}
