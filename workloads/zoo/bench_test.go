package zoo_test

import (
	"testing"

	"placesim/workloads/zoo"
)

// BenchmarkBuildTransformerTraining builds the Celeritas Transformer (12
// layers, 16 heads, hidden 2048, batch 256) training step at operator
// granularity (the goal is < 50 ms).
func BenchmarkBuildTransformerTraining(b *testing.B) {
	ops := 0
	for b.Loop() {
		g, err := zoo.Build(celeritasTransformer)
		if err != nil {
			b.Fatal(err)
		}
		ops = len(g.Ops)
	}
	b.ReportMetric(float64(ops), "ops")
}

// BenchmarkBuildZoo builds every model's default training step at operator
// granularity.
func BenchmarkBuildZoo(b *testing.B) {
	ops := 0
	for b.Loop() {
		ops = 0
		for _, name := range zoo.Names() {
			g, err := zoo.Build(name + "?training=true")
			if err != nil {
				b.Fatal(err)
			}
			ops += len(g.Ops)
		}
	}
	b.ReportMetric(float64(ops), "ops")
}
