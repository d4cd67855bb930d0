package engine_test

import (
	"fmt"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// A placer that splits a training graph into one part per device emits a
// pipelined plan by adding a schedule to its device assignment.
func ExampleSimulate_pipeline() {
	// a 4-layer chain and its training step (gradients, updates)
	fwd := workloads.Chain(4, []float64{4e-3}, 1<<20)
	fwd.Batch = 64 // 8 samples per micro-batch (a graph of batch 1 plays each micro-batch as a whole sample)
	for i := range fwd.Ops {
		fwd.Ops[i].ParamBytes = 1 << 20
	}
	g, err := workloads.DeriveTraining(fwd)
	if err != nil {
		panic(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		panic(err)
	}
	// layer i and its gradient and update on gpu i
	dev, stages, err := engine.EvenStages(g, []int{0, 1, 2, 3})
	if err != nil {
		panic(err)
	}
	plan := &engine.Plan{Device: dev,
		Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 8, Stages: stages}}
	r, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		panic(err)
	}
	p := r.Pipeline
	fmt.Printf("%d stages, %d micro-batches\n", len(p.Stages), p.MicroBatches)
	fmt.Printf("period %.2f ms per micro-batch, bubble %.0f%%\n", p.Period*1e3, 100*p.BubbleFraction)
	// f + b = 0.5 + 1 ms per micro-batch and stage, plus the transfers;
	// the bubble is about (p-1)/(m+p-1) = 27 %

	// Output:
	// 4 stages, 8 micro-batches
	// period 1.51 ms per micro-batch, bubble 28%
}
