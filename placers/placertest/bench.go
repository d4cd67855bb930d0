package placertest

import (
	"context"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// TransformerTF1 is Celeritas' Transformer (12 layers, 16 heads, hidden
// 2048) as a TensorFlow 1 training graph: 21,248 ops (the paper's graph
// has 36,352; the default PyTorch profile fuses it to 2,062). Its op count
// does not depend on the batch, and at batch 64 its activations fit
// 4 x V100 32 GB. The placement benchmarks of Table 4 use it.
const TransformerTF1 = "zoo:transformer?layers=12&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph"

// BenchPlace places g on 4 x V100 (PCIe) with the placer f makes (default
// options) b.N times, reporting allocations and the graph's ops.
func BenchPlace(b *testing.B, f placers.Factory, g *workloads.Graph) {
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
