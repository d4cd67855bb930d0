package graphalg_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// TestCoarseMemoryProperties fuses random training graphs (seeded; the
// training derivation makes colocation units that span the forward and
// backward passes, and some forward ops share units at random) and places
// the coarse graph at random, one device per coarse colocation group.
// Whatever the placement: no fine colocation unit is split, every fine op
// runs on its own coarse op's device, the memory per device of the
// expanded plan (fine OpMemories) equals the coarse plan's (coarse
// OpMemories), OpMemories of the coarse graph sums to the fine graph's,
// and every cluster of more than one op carries at most eq. 6's M.
func TestCoarseMemoryProperties(t *testing.T) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			fwd := workloads.RandomLayered(150+rng.IntN(150), 3+rng.IntN(12), seed)
			for i := range fwd.Ops {
				fwd.Ops[i].ParamBytes = rng.Int64N(64 << 20)
				if rng.IntN(8) == 0 { // a weight shared with another op
					fwd.Ops[i].Colocation = fmt.Sprintf("shared%d", rng.IntN(6))
				}
			}
			g, err := workloads.DeriveTraining(fwd)
			if err != nil {
				t.Fatal(err)
			}
			est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := graphalg.NewProblem(&placers.Request{Graph: g, Cluster: c, Estimates: est})
			if err != nil {
				t.Fatal(err)
			}
			fo := graphalg.FusionOptions{Range: 10 + rng.IntN(60), MemFraction: 0.002 + 0.01*rng.Float64()}
			co, err := graphalg.Fuse(context.Background(), p, fo)
			if err != nil {
				t.Fatal(err)
			}
			fineMem := graphalg.OpMemories(g, est)
			ce, err := co.Estimates(c)
			if err != nil {
				t.Fatal(err)
			}
			coarseMem := graphalg.OpMemories(co.Graph, ce)
			if a, b := sum(fineMem), sum(coarseMem); a != b {
				t.Fatalf("OpMemories: fine graph %d B, coarse graph %d B", a, b)
			}
			// eq. 6: a cluster's memory, whole units once, within M
			limit := int64(fo.MemFraction * float64(c.Devices[0].Memory))
			perCluster := map[int]int64{}
			opsIn := map[int]int{}
			for x := range co.Members {
				perCluster[co.Cluster[x]] += co.Graph.Ops[x].ParamBytes
				opsIn[co.Cluster[x]] += len(co.Members[x])
			}
			for k, m := range perCluster {
				if opsIn[k] > 1 && m > limit {
					t.Errorf("cluster %d of %d ops carries %d B, M = %d B", k, opsIn[k], m, limit)
				}
			}
			// a random placement of the coarse graph that keeps its colocation
			unitOf, units := placers.Groups(co.Graph)
			unitDev := make([]int, len(units))
			for u := range unitDev {
				unitDev[u] = rng.IntN(len(c.Devices))
			}
			cp := &engine.Plan{Device: make([]int, len(co.Graph.Ops))}
			for x := range cp.Device {
				cp.Device[x] = unitDev[unitOf[x]]
			}
			plan, err := co.Expand(cp)
			if err != nil {
				t.Fatal(err)
			}
			if err := plan.Validate(g, c); err != nil {
				t.Fatal(err)
			}
			fineDev := make([]int64, len(c.Devices))
			coarseDev := make([]int64, len(c.Devices))
			for op, d := range plan.Device {
				if d != cp.Device[co.Of[op]] {
					t.Fatalf("op %q on device %d, its coarse op on %d", g.Ops[op].Name, d, cp.Device[co.Of[op]])
				}
				fineDev[d] += fineMem[op]
			}
			for x, d := range cp.Device {
				coarseDev[d] += coarseMem[x]
			}
			for d := range fineDev {
				if fineDev[d] != coarseDev[d] {
					t.Errorf("device %d: expanded plan %d B, coarse plan %d B", d, fineDev[d], coarseDev[d])
				}
			}
			_, funits := placers.Groups(g)
			for u, ops := range funits {
				for _, op := range ops[1:] {
					if plan.Device[op] != plan.Device[ops[0]] {
						t.Fatalf("unit %d (%q) split: %q on %d, %q on %d", u, g.Ops[ops[0]].Name,
							g.Ops[ops[0]].Name, plan.Device[ops[0]], g.Ops[op].Name, plan.Device[op])
					}
				}
			}
			if len(co.Graph.Ops) >= len(g.Ops) {
				t.Fatalf("%d coarse ops for %d ops: nothing fused", len(co.Graph.Ops), len(g.Ops))
			}
		})
	}
}

func sum(x []int64) int64 {
	var s int64
	for _, v := range x {
		s += v
	}
	return s
}
