package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/builtin"
	"placesim/workloads/fiddle"
)

// TestScheduleRelaxedWhenStrictOrderDeadlocks: the msr-fiddle operator
// graphs of training steps have backward ops whose inputs run against the
// stage order a pipeline schedule assumes, so a strict 1F1B order can wait
// forever. The engine then plays the schedule as a priority and says so;
// every instance still runs once, after its inputs.
func TestScheduleRelaxedWhenStrictOrderDeadlocks(t *testing.T) {
	files := layerGraphs(t)
	path := filepath.Join(filepath.Dir(filepath.Dir(files[0])), "OperatorGraphs", "bert_l-3_training.json")
	g, err := fiddle.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.AccCPU("msr-fiddle", g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.New("tarnawski-dp", nil)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Pipeline == nil {
		t.Fatal("the DP's plan is not pipelined")
	}
	r, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatalf("a pipelined plan must simulate: %v", err)
	}
	if !strings.Contains(r.OrderRelaxed, "deadlock") {
		t.Fatalf("OrderRelaxed = %q: this graph's strict 1F1B order is expected to deadlock and be relaxed", r.OrderRelaxed)
	}
	in := r.Instances
	for x := range in.Op {
		if in.End[x] < in.Start[x] || in.End[x] > r.StepTime {
			t.Fatalf("instance %d: [%g, %g] outside the step %g", x, in.Start[x], in.End[x], r.StepTime)
		}
	}
	// a user's strict order that deadlocks stays an error
	p2 := &engine.Plan{Device: make([]int, len(g.Ops)), Order: [][]int{}}
	for d := range c.Devices {
		p2.Order = append(p2.Order, nil)
		_ = d
	}
	order, _ := g.TopoOrder()
	for i := len(order) - 1; i >= 0; i-- {
		p2.Order[0] = append(p2.Order[0], order[i])
	}
	if _, err := engine.Simulate(g, c, p2, engine.Options{}); err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Fatalf("a reversed strict order must be a deadlock error, got %v", err)
	}
}
