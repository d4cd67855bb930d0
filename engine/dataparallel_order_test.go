package engine_test

import (
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// TestOrderWithUpdatesEarlyPlaysDataParallel: a strict order made for one
// step may run each update op as soon as its gradient is ready, before the
// backward ops of earlier layers on the same device. Replicated, every
// update waits for its stage's all-reduce, which waits for the whole
// backward pass: the engine runs the updates after the device's other ops
// (keeping their order) instead of deadlocking (issue 28: pesto's plan of
// zoo:mlp in dp:4, "88 of 184 ops never ran").
func TestOrderWithUpdatesEarlyPlaysDataParallel(t *testing.T) {
	g, err := workloads.DeriveTraining(workloads.MLP(32, []int{256, 512, 512, 10}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.Resolve("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := g.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	// each update right after the last of its predecessors
	var order []int
	placed := make([]bool, len(g.Ops))
	updates := 0
	for _, v := range topo {
		if g.Ops[v].Role == workloads.Update {
			continue
		}
		order = append(order, v)
		placed[v] = true
		for _, w := range topo {
			if g.Ops[w].Role != workloads.Update || placed[w] {
				continue
			}
			ready := true
			for _, e := range g.In(w) {
				ready = ready && placed[g.Edges[e].From]
			}
			if ready {
				order = append(order, w)
				placed[w] = true
				updates++
			}
		}
	}
	if updates == 0 || len(order) != len(g.Ops) {
		t.Fatalf("test order: %d ops of %d, %d updates", len(order), len(g.Ops), updates)
	}
	plan := &engine.Plan{Device: make([]int, len(g.Ops)), Order: [][]int{order, nil, nil, nil}}
	step, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("step: %v", err)
	}
	plan.DataParallel = &engine.DataParallel{Replicas: 2}
	dp, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("data parallel x2 with the step's order: %v", err)
	}
	if !(dp.StepTime >= step.StepTime) {
		t.Fatalf("replicated step %g s shorter than one replica's %g s", dp.StepTime, step.StepTime)
	}
}
