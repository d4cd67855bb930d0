package pesto

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads/zoo"
)

// TestFineSimMatchesEngine: the op-level replay with exact estimates that
// picks the plan's order plays like the engine on the Pesto testbed
// (direct links), with fixed orders and with priorities, on the
// TensorFlow graphs Pesto places (framework=tf1-graph, as the pesto
// scenarios). Under the pytorch profile the "alternate" placement meets an
// exact tie (an op's end and a transfer's delivery on one device at the
// same instant, to 1e-18 s) that the replay and the engine break in
// different orders (their sums round differently): the replay does not
// order simultaneous events as the engine does.
func TestFineSimMatchesEngine(t *testing.T) {
	g, err := zoo.Build("zoo:gnmt?layers=2&hidden=128&seq=4&vocab=500&batch=8&training=true&framework=tf1-graph")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Exact})
	topo, _ := g.TopoOrder()
	f := newFineSim(g, est)
	for _, tc := range []struct {
		name string
		dev  func(op int) int
	}{
		{"alternate", func(op int) int { return op % 2 }},
		{"halves", func(op int) int { return op * 2 / len(g.Ops) }},
		{"by layer name length", func(op int) int { return len(g.Ops[op].Layer) % 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := make([]int, len(g.Ops))
			orders := make([][]int, len(c.Devices))
			prio := make([]float64, len(g.Ops))
			for i, op := range topo {
				dev[op] = tc.dev(op)
				orders[dev[op]] = append(orders[dev[op]], op)
				prio[op] = float64((op*7919)%101) - float64(i)/1e3
			}
			for _, mode := range []string{"order", "priority"} {
				plan := &engine.Plan{Device: dev}
				var ms float64
				var err error
				if mode == "order" {
					plan.Order = orders
					ms, _, err = f.run(dev, orders, nil)
				} else {
					plan.Priority = prio
					ms, _, err = f.run(dev, nil, prio)
				}
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !scalar.EqualWithinAbsOrRel(ms, res.StepTime, exactTol, exactTol) {
					t.Errorf("%s: replay %.6f ms, engine %.6f ms", mode, ms*1e3, res.StepTime*1e3)
				}
			}
		})
	}
}
