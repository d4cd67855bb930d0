package engine_test

import (
	"fmt"
	"runtime"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// BenchmarkSimulate plays random layered DAGs over 4 GPUs with ops dealt
// round robin, so most edges cross devices and become transfers on the
// PCIe switch's link queues. Reports simulated ops per second of wall time
// and allocations per simulated op.
func BenchmarkSimulate(b *testing.B) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			g, plan := randomStep(n)
			if err := g.Validate(); err != nil {
				b.Fatal(err)
			}
			benchSimulate(b, g, c, plan)
		})
	}
}

// BenchmarkSimulateTransformer plays a training step of the Celeritas
// Transformer at op granularity as TensorFlow 1 runs it (unfused,
// framework=tf1-graph; 16 heads, hidden 2048, batch 64) cut into four
// contiguous parts in topological order on 4xV100-pcie: 12 layers (21,248
// ops, Celeritas' configuration in this zoo) and 20 layers (35,384 ops,
// the size of the 36,352-op graph of Celeritas' Table 4).
func BenchmarkSimulateTransformer(b *testing.B) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	for _, layers := range []int{12, 20} {
		g, err := zoo.Build(fmt.Sprintf("transformer?layers=%d&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph", layers))
		if err != nil {
			b.Fatal(err)
		}
		plan, err := quarters(g)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("layers=%d/ops=%d", layers, len(g.Ops)), func(b *testing.B) {
			benchSimulate(b, g, c, plan)
		})
	}
}

// benchSimulate simulates plan and reports simulated ops per second,
// transfers and allocations per simulated op.
func benchSimulate(b *testing.B, g *workloads.Graph, c *devices.Cluster, plan *engine.Plan) {
	b.ReportAllocs()
	var transfers int
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r, err := engine.Simulate(g, c, plan, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		transfers = r.TransferCount
	}
	runtime.ReadMemStats(&after)
	n := float64(len(g.Ops)) * float64(b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/simop")
	b.ReportMetric(float64(transfers), "transfers")
}
