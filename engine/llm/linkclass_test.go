package llm

import (
	"math"
	"testing"

	"placesim/collectives"
)

// The 70B must-show of issue 26: TP4 PP4 CP2 DP2 VP5 on 8 DGX H100, on
// the rail-optimised fabric and on 4:1 oversubscribed fat-trees; the
// exposed DP and PP time split over the link classes.
func TestExposedByLink70B(t *testing.T) {
	const layout = "tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,mbs=1,gbs=128"
	const tol = 1e-9 // seconds: the split must sum to the simulator's figure
	run := func(system string) (*Job, *Result, *LinkExposure) {
		j := job(t, "zoo:llama3.1-70b", layout, system)
		r, err := Simulate(j)
		if err != nil {
			t.Fatal(err)
		}
		e, err := r.ExposedByLink(j)
		if err != nil {
			t.Fatal(err)
		}
		var dp, pp float64
		for _, c := range LinkClasses() {
			dp += e.DP[c]
			pp += e.PP[c]
		}
		if math.Abs(dp-r.Exposed[CommDP]) > tol || math.Abs(pp-r.Exposed[CommPP]) > tol {
			t.Errorf("%s: split DP %g PP %g, simulator DP %g PP %g", system, dp, pp, r.Exposed[CommDP], r.Exposed[CommPP])
		}
		if !e.Exact {
			t.Errorf("%s: PP exposure not found wait by wait", system)
		}
		t.Logf("%s: iteration %.3f s, DP %v, PP %v (groups %s, PP in %s out %s)", system, r.IterationTime, e.DP, e.PP, e.DPClass, e.PPFrom, e.PPTo)
		return j, r, e
	}
	// rail-optimised: 8 nodes on one leaf per rail, nothing crosses a
	// leaf's uplinks
	_, rail, er := run("dgx-h100:nodes=8")
	if er.DPClass != Adapters || er.PP[LeafUplinks] != 0 || er.DP[LeafUplinks] != 0 {
		t.Errorf("rail: DP over %s, PP %v: want adapters only", er.DPClass, er.PP)
	}
	// fat-tree, 32-port leaves (4 nodes each): the DP pairs (nodes 2k,
	// 2k+1) stay under a leaf, the sends from stage 1 to 2 (node 2 to 4)
	// and 3 to 0 cross it
	_, ft, ef := run("dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4")
	if ef.DPClass != Adapters {
		t.Errorf("fat-tree leaf 32: DP over %s, want adapters (nodes 2k, 2k+1 share a leaf)", ef.DPClass)
	}
	if ef.PPFrom != LeafUplinks && ef.PPTo != LeafUplinks {
		t.Errorf("fat-tree leaf 32: PP in %s out %s, want one crossing leaves", ef.PPFrom, ef.PPTo)
	}
	if ft.Exposed[CommPP] <= rail.Exposed[CommPP] {
		t.Errorf("fat-tree PP exposed %g <= rail %g", ft.Exposed[CommPP], rail.Exposed[CommPP])
	}
	// one node per leaf: every DP group crosses the 4:1 uplinks
	j8, r8, e8 := run("dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4,leaf=8")
	if e8.DPClass != LeafUplinks || e8.DP[LeafUplinks] != r8.Exposed[CommDP] {
		t.Errorf("fat-tree leaf 8: DP over %s %v, want all on leaf uplinks", e8.DPClass, e8.DP)
	}
	if r8.Exposed[CommDP] <= rail.Exposed[CommDP] {
		t.Errorf("fat-tree leaf 8 DP exposed %g <= rail %g", r8.Exposed[CommDP], rail.Exposed[CommDP])
	}
	// what 4:1 costs the DP reduction itself: the TP=4 groups of a node
	// pair (2 GPUs of each node, data x context parallel) reduce 100 MB
	// each at once; each moves its bus bandwidth over its 2 adapters, and
	// the node's traffic shares the leaf's uplinks of 8 x 400 Gb/s / 4,
	// so the bandwidth term stretches by 4 x busBW / uplink (just under
	// 4x: the groups nearly fill the adapters)
	jr := job(t, "zoo:llama3.1-70b", layout, "dgx-h100:nodes=8")
	const bytes = 100e6
	alone, err := collectives.Concurrent(jr.Cluster, jr.dpPeers(0), AllReduce, bytes)
	if err != nil {
		t.Fatal(err)
	}
	over, err := collectives.Concurrent(j8.Cluster, j8.dpPeers(0), AllReduce, bytes)
	if err != nil {
		t.Fatal(err)
	}
	uplink := 8 * 400e9 / 8 / 4 // bytes/s
	want := float64(len(jr.dpPeers(0))) * alone[0].BusBW / uplink
	got := over[0].Seconds / alone[0].Seconds
	t.Logf("DP all-reduce of 100 MB: rail %.3f ms (busBW %.1f GB/s), fat-tree 4:1 across leaves %.3f ms: x%.2f (bandwidth share predicts x%.2f)",
		alone[0].Seconds*1e3, alone[0].BusBW/1e9, over[0].Seconds*1e3, got, want)
	const ratioTol = 0.05 // the latency term does not stretch
	if got < want*(1-ratioTol) || got > want*(1+ratioTol) || got < 3 {
		t.Errorf("4:1 stretches the DP all-reduce x%.2f, want x%.2f within %.0f %% and >= 3", got, want, 100*ratioTol)
	}
}
