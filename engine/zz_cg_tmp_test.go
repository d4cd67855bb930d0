package engine_test

import (
	"os"
	"strconv"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

func TestZZCGDriver(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CG_N"))
	if n == 0 {
		t.Skip()
	}
	c, _ := devices.NewPreset("4xV100-pcie")
	ops := 100000
	g := workloads.RandomLayered(ops, 64, 1)
	plan := &engine.Plan{Device: make([]int, ops)}
	for i := range plan.Device {
		plan.Device[i] = i % 4
	}
	for i := 0; i < n; i++ {
		if _, err := engine.Simulate(g, c, plan, engine.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
