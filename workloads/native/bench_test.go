package native_test

import (
	"testing"

	"placesim/workloads"
	"placesim/workloads/native"
)

// BenchmarkParse reads a 36k-op graph (the size of the Celeritas
// Transformer training graph); ops/s is ops decoded per second.
func BenchmarkParse(b *testing.B) {
	g := workloads.RandomLayered(36000, 100, 1)
	data, err := native.Marshal(g)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := native.Parse(data, "bench.json"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkMarshal writes the same graph.
func BenchmarkMarshal(b *testing.B) {
	g := workloads.RandomLayered(36000, 100, 1)
	for b.Loop() {
		if _, err := native.Marshal(g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
