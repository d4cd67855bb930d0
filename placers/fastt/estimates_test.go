package fastt

import (
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads/zoo"
)

// TestInternalSimulationUsesEstimates: FastT times its strategies (profile
// rounds, rollback) by simulating them with its cost model, which is built
// from the estimates only. With exact estimates that time is the engine's
// true step time; with seeded noisy estimates it is not, so the placer
// never sees the true costs through its simulation.
func TestInternalSimulationUsesEstimates(t *testing.T) {
	const tol = 1e-9
	g, err := zoo.Build("zoo:mlp?training=true")
	if err != nil {
		t.Fatal(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	// a placement over all four GPUs (colocation units kept), so that
	// compute and transfers count
	plan := placers.NewPlan(g)
	unitOf, units := placers.Groups(g)
	for op := range plan.Device {
		plan.Device[op] = units[unitOf[op]][0] % len(c.Devices)
	}
	truth, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  devices.EstimateOptions
		same bool
	}{
		{"exact", devices.EstimateOptions{Mode: devices.Exact}, true},
		{"noise", devices.EstimateOptions{Mode: devices.Noisy, Sigma: 0.3, Seed: 5}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			est, err := devices.NewEstimates(g, c, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			cm, err := NewCostModel(est)
			if err != nil {
				t.Fatal(err)
			}
			w := modelWork(g)
			got, oom, err := cm.simulate(w, cm.opTimes(w), plan)
			if err != nil || oom != "" {
				t.Fatalf("simulate: %v %s", err, oom)
			}
			if same := scalar.EqualWithinAbsOrRel(got, truth.StepTime, tol, tol); same != tc.same {
				t.Fatalf("FastT's internal step time %.9g s, engine's true step time %.9g s: equal %v, want %v", got, truth.StepTime, same, tc.same)
			}
		})
	}
}
