package pesto

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// TestOrderSearchBeatsListSchedule: on GPU 0 a root feeds a producer of
// 1 GiB for a short op on GPU 1 and a producer of 1 KiB for a 10 ms op on
// GPU 1. The list schedule by upward rank (HEFT's, as the layer search
// plays) runs the big producer first, since its transfer is long, and the
// FCFS link then holds the small transfer behind the big one, so the
// 10 ms op starts only when the gigabyte has crossed. Running the small
// producer first (the order of transfers on the link that section
// 3.2.2's congestion constraints let Pesto's ILP choose) hides the 10 ms
// behind the big transfer. The order search must find a faster plan,
// with a strict per-device order the engine plays as it is, within its
// budget; with no budget it returns its start.
func TestOrderSearchBeatsListSchedule(t *testing.T) {
	const gib = 1 << 30
	g := workloads.NewGraph("big-then-small", 1)
	ms := func(x float64) map[string]float64 { return map[string]float64{workloads.MeasuredAny: x * 1e-3} }
	root := g.AddOp(workloads.Op{Name: "root", Type: "op", Measured: ms(1), OutputBytes: 1 << 10})
	big := g.AddOp(workloads.Op{Name: "big", Type: "op", Measured: ms(1), OutputBytes: gib})
	small := g.AddOp(workloads.Op{Name: "small", Type: "op", Measured: ms(1), OutputBytes: 1 << 10})
	y := g.AddOp(workloads.Op{Name: "y", Type: "op", Measured: ms(1), OutputBytes: 1 << 10})
	z := g.AddOp(workloads.Op{Name: "z", Type: "op", Measured: ms(10), OutputBytes: 1 << 10})
	g.AddEdge(root, big, 1<<10)
	g.AddEdge(root, small, 1<<10)
	g.AddEdge(big, y, gib)
	g.AddEdge(small, z, 1<<10)
	c, est := testbed(t, g)
	acc, _ := placers.Targets(c)
	dev := []int{acc[0], acc[0], acc[0], acc[1], acc[1]}
	order, err := g.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	list := &engine.Plan{Device: dev, Priority: make([]float64, len(dev))}
	upwardRank(g, est, dev, order, list.Priority)
	if list.Priority[big] <= list.Priority[small] {
		t.Fatalf("upward rank: big %.6g, small %.6g: the list schedule must run the big producer first for this test", list.Priority[big], list.Priority[small])
	}
	eg := estimatedGraph(g, c, est)
	t0, err := simulateEstimated(eg, c, list)
	if err != nil {
		t.Fatal(err)
	}
	xfer := est.TransferTime(acc[0], acc[1], gib)
	const budget = 20
	r := orderSearch(context.Background(), eg, c, list, t0, budget)
	if r.evals > budget {
		t.Errorf("order search ran %d simulations, budget %d", r.evals, budget)
	}
	if r.moves == 0 || r.plan.Priority == nil {
		t.Fatalf("order search kept no move: %.6gs from the list schedule's %.6gs", r.time, t0)
	}
	// the 10 ms op no longer waits for the gigabyte: most of its 10 ms is
	// saved
	const saved = 8e-3
	if r.time > t0-saved {
		t.Errorf("order search: %.6gs, list schedule %.6gs (1 GiB transfer %.6gs): want at least %.3gs faster", r.time, t0, xfer, saved)
	}
	tt, err := simulateEstimated(eg, c, r.plan)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-9 // the same plan played twice
	if !scalar.EqualWithinAbsOrRel(tt, r.time, tol, tol) {
		t.Errorf("the order search's plan plays %.6gs, it reported %.6gs", tt, r.time)
	}
	if r0 := orderSearch(context.Background(), eg, c, list, t0, 0); r0.plan != list || r0.evals != 0 {
		t.Errorf("order search with no budget: %d simulations, plan changed %v", r0.evals, r0.plan != list)
	}
}
