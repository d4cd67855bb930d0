package engine

import (
	"testing"

	"placesim/devices"
)

// TestChooseLinkEfficiency: choose models every candidate's chunks as the
// engine plays them (wireBytes): with the NCCL model's LinkEfficiency the
// hierarchical all-reduce on two DGX A100 nodes moves its intra-node
// phases at 20 of an NVLink's 25 GB/s, so its modelled time is longer
// than without it, as the ring candidate's is; with it off, the chunks
// move at the links' raw bandwidth.
func TestChooseLinkEfficiency(t *testing.T) {
	c, err := devices.NewSystem("dgx-a100-80gb:nodes=2")
	if err != nil {
		t.Fatal(err)
	}
	topo := newCollectiveTopo(c, c.Accelerators())
	if len(topo.groups) != 2 {
		t.Fatalf("%d nodes, want 2", len(topo.groups))
	}
	const S = 256 << 20
	raw := NCCLModel()
	raw.LinkEfficiency = false
	for _, m := range []*CollectiveModel{NCCLModel(), raw} {
		if algo, _ := topo.choose(S, m); algo != AlgoHierarchical {
			t.Fatalf("link efficiency %v: %s for %d bytes, want %s", m.LinkEfficiency, algo, S, AlgoHierarchical)
		}
	}
	_, eff := topo.choose(S, NCCLModel())
	_, plain := topo.choose(S, raw)
	if !(eff > plain) {
		t.Errorf("hierarchical %d bytes: %.6g s with NCCL's link efficiency, %.6g s without; want longer with it", S, eff, plain)
	}
}
