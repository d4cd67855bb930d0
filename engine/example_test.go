package engine_test

import (
	"fmt"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// Place a diamond on two GPUs of a PCIe box and simulate one step.
func ExampleSimulate() {
	g := workloads.Diamond(1e-3, 64<<20) // four 1 ms ops, 64 MiB outputs
	if err := g.Validate(); err != nil {
		panic(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		panic(err)
	}
	plan := &engine.Plan{Device: []int{0, 0, 1, 0}} // branch c on gpu1
	r, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("step %.3f ms, %d transfers, %d MiB moved, OOM: %v\n",
		r.StepTime*1e3, r.TransferCount, r.BytesMoved>>20, r.OOM != nil)
	// a ends at 1 ms; a->gpu1 through the switch takes 2 us + 64 MiB / 15.75 GB/s
	// = 4.263 ms; c runs 5.263-6.263 ms; c->gpu0 lands at 10.526; d ends 11.526.

	// Output: step 11.526 ms, 2 transfers, 128 MiB moved, OOM: false
}
