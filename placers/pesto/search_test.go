package pesto

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// TestGroupSearch: two independent chains of 4 ms and 3 ms, both started
// on one GPU (7 ms): moving the 3 ms chain's placement group to the other
// GPU gives 4 ms, which the search must find; it never returns a plan
// slower than its start, and spends at most its budget.
func TestGroupSearch(t *testing.T) {
	g := workloads.NewGraph("two-chains", 1)
	for i, ms := range []float64{2, 2, 1.5, 1.5} {
		g.AddOp(workloads.Op{Name: string(rune('a' + i)), Type: "op", Measured: map[string]float64{workloads.MeasuredAny: ms * 1e-3}, OutputBytes: 1 << 10})
	}
	g.AddEdge(0, 1, 1<<10)
	g.AddEdge(2, 3, 1<<10)
	c, est := testbed(t, g)
	pr, _ := testProblem(t, g, est, 30)
	acc, _ := placers.Targets(c)
	start := &engine.Plan{Device: []int{acc[0], acc[0], acc[0], acc[0]}}
	eg := estimatedGraph(g, c, est)
	t0, err := simulateEstimated(eg, c, start)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-6 // relative; the transfer-free times are exact sums
	if !scalar.EqualWithinRel(t0, 7e-3, tol) {
		t.Fatalf("start plays %.6gs, want 7 ms", t0)
	}
	for _, budget := range []int{0, 1, 50} {
		r := groupSearch(context.Background(), eg, c, pr, start, t0, budget)
		if r.evals > budget {
			t.Errorf("budget %d: %d simulations", budget, r.evals)
		}
		if r.time > t0*(1+tol) {
			t.Errorf("budget %d: search returned %.6gs, slower than its start's %.6gs", budget, r.time, t0)
		}
		got, err := simulateEstimated(eg, c, r.plan)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinRel(got, r.time, tol) {
			t.Errorf("budget %d: the plan plays %.6gs, the search says %.6gs", budget, got, r.time)
		}
		if budget >= 50 && !scalar.EqualWithinRel(r.time, 4e-3, tol) {
			t.Errorf("budget %d: search found %.6gs (%d moves), want 4 ms (one chain per GPU)", budget, r.time, r.moves)
		}
	}
}
