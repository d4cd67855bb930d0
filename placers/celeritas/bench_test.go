package celeritas_test

import (
	"context"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/celeritas"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// transformerSpec is Celeritas' Transformer (12 layers, 16 heads, hidden
// 2048) as a TensorFlow 1 training graph: 21,248 ops (the paper's graph
// has 36,352; the default PyTorch profile fuses it to 2,062). Its op count
// does not depend on the batch, and at batch 64 its activations fit
// 4 x V100 32 GB.
const transformerSpec = "zoo:transformer?layers=12&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph"

func benchPlace(b *testing.B, f placers.Factory, g *workloads.Graph) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := f(nil)
	if err != nil {
		b.Fatal(err)
	}
	req := &placers.Request{Graph: g, Cluster: c, Estimates: est}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Place(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Ops)), "ops")
}

// BenchmarkPlaceTransformer21k is the placement time of Table 4 (the paper:
// Celeritas 95 s, Order-Place 93 s on a 36,352-op Transformer).
func BenchmarkPlaceTransformer21k(b *testing.B) {
	g, err := zoo.Build(transformerSpec)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("celeritas", func(b *testing.B) { benchPlace(b, celeritas.NewCeleritas, g) })
	b.Run("order-place", func(b *testing.B) { benchPlace(b, celeritas.NewOrderPlace, g) })
}

// BenchmarkPlaceRandom36k places a random layered graph of 36,000 ops, the
// size of the paper's Transformer.
func BenchmarkPlaceRandom36k(b *testing.B) {
	g := workloads.RandomLayered(36000, 60, 1)
	b.Run("celeritas", func(b *testing.B) { benchPlace(b, celeritas.NewCeleritas, g) })
}
