package pesto

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads"
)

// unevenLayers builds two layers of independent 1 ms ops, "big" with six
// (and a weight, read by each of them, that owns 1 MiB of parameters) and
// "small" with two: whole layers on two GPUs take 6 ms at best (big on
// one, small on the other), while two of big's ops moved next to small
// make 4 ms, a cut of a layer that only the range search can express.
func unevenLayers() *workloads.Graph {
	g := workloads.NewGraph("uneven-layers", 1)
	w := g.AddOp(workloads.Op{Name: "big/w", Type: "variable", Layer: "big", ParamBytes: 1 << 20,
		Measured: map[string]float64{workloads.MeasuredAny: 0}, OutputBytes: 1 << 10})
	for i := 0; i < 6; i++ {
		id := g.AddOp(workloads.Op{Name: fmt.Sprintf("big/t_%d", i), Type: "op", Layer: "big",
			Measured: map[string]float64{workloads.MeasuredAny: 1e-3}, OutputBytes: 1 << 10})
		g.AddEdge(w, id, 1<<10)
	}
	for i := 0; i < 2; i++ {
		g.AddOp(workloads.Op{Name: fmt.Sprintf("small/t_%d", i), Type: "op", Layer: "small",
			Measured: map[string]float64{workloads.MeasuredAny: 1e-3}, OutputBytes: 1 << 10})
	}
	return g
}

// TestRangeSearch: from the layer search's plans (6 ms at best) the range
// search moves a run of big's ops to the other GPU and finds the 4 ms
// plan (plus the transfer of the weight's 1 KiB), keeps the weight on its
// layer's device, reports its plan's own simulated time and spends at
// most its budget; with budget 0 it does not run.
func TestRangeSearch(t *testing.T) {
	g := unevenLayers()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	c, est := testbed(t, g)
	eg := estimatedGraph(g, c, est)
	ctx := context.Background()
	ls, ok := layerSearch(ctx, g, eg, c, est, 100)
	if !ok {
		t.Fatal("layer search: no plan")
	}
	const tol = 0.02 // relative: the weight's transfer, a few microseconds
	if !scalar.EqualWithinRel(ls.time, 6e-3, tol) {
		t.Fatalf("layer search: %.6gs, want 6 ms (whole layers)", ls.time)
	}
	if _, ok := rangeSearch(ctx, g, eg, c, est, ls, 0); ok {
		t.Errorf("budget 0: the range search ran")
	}
	const budget = 50
	r, ok := rangeSearch(ctx, g, eg, c, est, ls, budget)
	if !ok {
		t.Fatal("range search: no plan")
	}
	if r.evals > budget {
		t.Errorf("%d simulations, budget %d", r.evals, budget)
	}
	got, err := simulateEstimated(eg, c, r.plan)
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(got, r.time, 1e-9) {
		t.Errorf("the plan plays %.6gs, the search says %.6gs", got, r.time)
	}
	if !scalar.EqualWithinRel(r.time, 4e-3, tol) || r.time >= ls.time {
		t.Errorf("range search: %.6gs in %d simulations (%d moves), want 4 ms, below the layer search's %.6gs", r.time, r.evals, r.moves, ls.time)
	}
	// the weight stays where its layer's start put it: with most of big's ops
	var with int
	for op := 1; op <= 6; op++ {
		if r.plan.Device[op] == r.plan.Device[0] {
			with++
		}
	}
	if with < 3 {
		t.Errorf("the weight is on device %d with %d of big's 6 ops, want it with the most", r.plan.Device[0], with)
	}
}

// TestStartKey: the range search's start key tells apart assignments
// that differ in a big unit's device, devices 256 apart included, and
// ignores the small units.
func TestStartKey(t *testing.T) {
	big := []bool{true, false, true}
	cases := []struct {
		a, b []int
		same bool
	}{
		{[]int{0, 1, 1}, []int{0, 0, 1}, true},    // only the small unit differs
		{[]int{0, 1, 1}, []int{1, 1, 0}, false},   // the mirror image
		{[]int{1, 0, 2}, []int{257, 0, 2}, false}, // 256 apart
		{[]int{1, 0, 300}, []int{1, 0, 44}, false},
	}
	for _, c := range cases {
		if got := startKey(c.a, big) == startKey(c.b, big); got != c.same {
			t.Errorf("startKey(%v) == startKey(%v): %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
