package baechi_test

import (
	"context"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/baechi"
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

// BenchmarkPlaceTransformer21k is the placement time of Celeritas' Table 4
// for Baechi's placers (the paper: m-SCT 129 s on a 36,352-op Transformer).
// m-SCT solves its LP with CBC in windows (tens of seconds): run it with
// -bench PlaceTransformer21k/m-sct -benchtime 1x.
func BenchmarkPlaceTransformer21k(b *testing.B) {
	g, err := zoo.Build(transformerSpec)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("m-topo", func(b *testing.B) { benchPlace(b, baechi.NewMTopo, g) })
	b.Run("m-etf", func(b *testing.B) { benchPlace(b, baechi.NewMETF, g) })
	b.Run("m-sct", func(b *testing.B) { benchPlace(b, baechi.NewMSCT, g) })
}

// BenchmarkPlaceRandom36k places a random layered graph of 36,000 ops, the
// size of the paper's Transformer.
func BenchmarkPlaceRandom36k(b *testing.B) {
	g := workloads.RandomLayered(36000, 60, 1)
	b.Run("m-etf", func(b *testing.B) { benchPlace(b, baechi.NewMETF, g) })
}
