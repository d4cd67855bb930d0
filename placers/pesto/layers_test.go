package pesto

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers"
	"placesim/workloads"
)

// layeredChains builds four layers of two ops each, added in the order
// a, c, b, d: a and b of 1.5 ms ops, c and d of 0.5 ms ops; b reads a's
// output and d reads c's, each 1 GiB (about 20 ms over the NVLink pair),
// while a and c are independent. Both starts of the layer search cut the
// heavy edges (largest first to the least loaded GPU deals a and b apart;
// equal shares in topological order put a and c on one GPU, b and d on
// the other) and no single-layer move mends both cuts: the 6 ms plan, a
// then b on one GPU and c then d on the other, takes two moves or a swap,
// where keeping the first faster move piles every layer onto one GPU
// (8 ms).
func layeredChains() *workloads.Graph {
	g := workloads.NewGraph("layered-chains", 1)
	last := map[string]int{}
	add := func(layer string, ms float64, after string) {
		prev, ok := last[after]
		if !ok {
			prev = -1
		}
		for i := 0; i < 2; i++ {
			id := g.AddOp(workloads.Op{Name: layer + string(rune('0'+i)), Type: "op", Layer: layer,
				Measured: map[string]float64{workloads.MeasuredAny: ms * 1e-3}, OutputBytes: 1 << 30})
			if prev >= 0 {
				g.AddEdge(prev, id, 1<<30)
			}
			prev = id
		}
		last[layer] = prev
	}
	add("a", 1.5, "")
	add("c", 0.5, "")
	add("b", 1.5, "a")
	add("d", 0.5, "c")
	return g
}

// TestLayerUnits: ops group by layer; a colocation group spanning two
// layers joins them; an op without a layer is a unit with its colocation
// group.
func TestLayerUnits(t *testing.T) {
	g := workloads.NewGraph("units", 1)
	for _, op := range []workloads.Op{
		{Name: "a0", Layer: "a"}, {Name: "a1", Layer: "a", Colocation: "w"},
		{Name: "b0", Layer: "b", Colocation: "w"}, {Name: "c0", Layer: "c"},
		{Name: "n0", Colocation: "v"}, {Name: "n1", Colocation: "v"}, {Name: "n2"},
	} {
		op.Type = "op"
		g.AddOp(op)
	}
	unitOf, units := layerUnits(g)
	same := func(a, b int) bool { return unitOf[a] == unitOf[b] }
	switch {
	case len(units) != 4:
		t.Errorf("%d units, want 4 (a+b joined by w, c, n0+n1, n2): %v", len(units), units)
	case !same(0, 1) || !same(1, 2):
		t.Errorf("layers a and b, joined by colocation group w, are not one unit: %v", units)
	case same(0, 3):
		t.Errorf("layer c joined a: %v", units)
	case !same(4, 5) || same(4, 6):
		t.Errorf("ops without a layer: want n0+n1 (colocation v) and n2 apart: %v", units)
	}
	for u, ops := range units {
		for _, op := range ops {
			if unitOf[op] != u {
				t.Errorf("op %d listed in unit %d, unitOf says %d", op, u, unitOf[op])
			}
		}
	}
}

// TestLayerSearch: the search finds the 6 ms plan of layeredChains from
// its starts, keeps each layer on one device, reports the plan's own
// simulated time and spends at most its budget.
func TestLayerSearch(t *testing.T) {
	g := layeredChains()
	c, est := testbed(t, g)
	eg := estimatedGraph(g, c, est)
	acc, _ := placers.Targets(c)
	const tol = 1e-9 // relative: no transfer in the best plan
	for _, budget := range []int{0, 1, 100} {
		r, ok := layerSearch(context.Background(), g, eg, c, est, budget)
		if budget == 0 {
			if ok {
				t.Errorf("budget 0: the search ran")
			}
			continue
		}
		if !ok {
			t.Fatalf("budget %d: no plan", budget)
		}
		if r.evals > budget {
			t.Errorf("budget %d: %d simulations", budget, r.evals)
		}
		got, err := simulateEstimated(eg, c, r.plan)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinRel(got, r.time, 1e-9) {
			t.Errorf("budget %d: the plan plays %.6gs, the search says %.6gs", budget, got, r.time)
		}
		for op := range g.Ops {
			if d := r.plan.Device[op]; !contains(acc, d) {
				t.Errorf("budget %d: op %s on device %d, not an accelerator", budget, g.Ops[op].Name, d)
			}
			for _, other := range g.Ops {
				if other.Layer == g.Ops[op].Layer && r.plan.Device[other.ID] != r.plan.Device[op] {
					t.Fatalf("budget %d: layer %s split over devices", budget, g.Ops[op].Layer)
				}
			}
		}
		if budget >= 100 && !scalar.EqualWithinRel(r.time, 6e-3, tol) {
			t.Errorf("budget %d: search found %.6gs in %d simulations, want 6 ms (a with b, c with d)", budget, r.time, r.evals)
		}
	}
}
