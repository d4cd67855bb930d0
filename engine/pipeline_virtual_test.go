package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"placesim/engine"
	"placesim/workloads"
)

// TestNonContiguousSplit: a device holding two non-adjacent stages of a
// chain (stages 0 and 2 on gpu0, stage 1 on gpu1) runs them as two
// virtual stages (Tarnawski et al. §5.2); the pipeline's period is then
// the busiest device's total load, 2(f+b) on gpu0.
func TestNonContiguousSplit(t *testing.T) {
	c := freeCluster(t, 2)
	const m = 64
	for _, sched := range []engine.Schedule{engine.GPipe, engine.OneFOneB, engine.PipeDream} {
		t.Run(string(sched), func(t *testing.T) {
			u := uniformSpec{p: 3, m: m, f: 1e-3, b: 2e-3}
			g, plan := u.build()
			for i, d := range plan.Device {
				if d == 2 {
					plan.Device[i] = 0
				}
			}
			plan.Pipeline = &engine.Pipeline{Schedule: sched, MicroBatches: m}
			r, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.Pipeline.Stages); n != 3 {
				t.Fatalf("%d stages, want 3 (gpu0's part is not contiguous)", n)
			}
			want := 2 * (u.f + u.b)
			if !closeTo(r.Pipeline.Period, want, maxLoadTol) {
				t.Errorf("period %g, want gpu0's load 2(f+b) = %g", r.Pipeline.Period, want)
			}
			// gpu0 is busy all along but for the fill and drain
			if lower := float64(m) * want; r.StepTime < lower*(1-closedTol) || r.StepTime > lower*1.1 {
				t.Errorf("step %g, want between m·2(f+b) = %g and 10 %% more", r.StepTime, lower)
			}
		})
	}
}

// TestAnyPlacementPipelines: whatever devices a placer picks (random here,
// so parts are rarely contiguous), every schedule, with or without
// recomputation and data parallelism, runs to the end: merged virtual
// stages cannot deadlock.
func TestAnyPlacementPipelines(t *testing.T) {
	c := pairCluster(t, 8, nil, 10e9, 1e-6, "pcie-switch")
	for seed := uint64(1); seed <= 4; seed++ {
		fwd := workloads.RandomLayered(60, 6, seed)
		for i := range fwd.Ops {
			fwd.Ops[i].ParamBytes = 1 << 16
		}
		g, err := workloads.DeriveTraining(fwd)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 9))
		dev := make([]int, len(g.Ops))
		devOf := map[string]int{}
		for i, op := range g.Ops {
			d, ok := devOf[op.Colocation]
			if !ok {
				d = r.IntN(4)
				devOf[op.Colocation] = d
			}
			dev[i] = d
		}
		for _, sched := range engine.Schedules() {
			for _, rc := range []bool{false, true} {
				for _, reps := range []int{1, 2} {
					t.Run(fmt.Sprintf("seed%d/%s/recompute=%v/replicas=%d", seed, sched, rc, reps), func(t *testing.T) {
						plan := &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: sched, MicroBatches: 6, Recompute: rc}}
						if reps > 1 {
							plan.DataParallel = &engine.DataParallel{Replicas: reps}
						}
						res, err := engine.Simulate(g, c, plan, engine.Options{})
						if err != nil {
							t.Fatal(err)
						}
						if !(res.StepTime > 0) || len(res.Pipeline.Stages) < 1 {
							t.Errorf("step %g, %d stages", res.StepTime, len(res.Pipeline.Stages))
						}
					})
				}
			}
		}
	}
}
