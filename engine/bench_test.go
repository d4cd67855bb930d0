package engine_test

import (
	"fmt"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// BenchmarkSimulate plays random layered DAGs over 4 GPUs with ops dealt
// round robin, so most edges cross devices and become transfers on the
// PCIe switch's link queues. Reports simulated ops per second of wall time.
func BenchmarkSimulate(b *testing.B) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10_000, 100_000} {
		g := workloads.RandomLayered(n, 64, 1)
		if err := g.Validate(); err != nil {
			b.Fatal(err)
		}
		plan := &engine.Plan{Device: make([]int, n)}
		for i := range plan.Device {
			plan.Device[i] = i % 4
		}
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var transfers int
			for b.Loop() {
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				transfers = r.TransferCount
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(transfers), "transfers")
		})
	}
}
