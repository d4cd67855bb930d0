package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// transformerTraining is a synthetic BERT-like training graph: layers
// transformer layers of 12 forward ops each (three parallel projections,
// attention, output projection, residual add, layer norm, two feed-forward
// matmuls with an activation, residual add, layer norm), seeded measured
// times and activation sizes, then workloads.DeriveTraining (a gradient op
// per forward op, an update op per op with parameters).
func transformerTraining(layers int, seed uint64) *workloads.Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	g := workloads.NewGraph(fmt.Sprintf("transformer%d", layers), 32)
	act := int64(32 * 512 * 1024 * 2)
	add := func(layer, name string, params int64, in ...int) int {
		id := g.AddOp(workloads.Op{Name: layer + "/" + name, Type: name, Layer: layer, Role: workloads.Forward,
			OutputBytes: act, ParamBytes: params,
			Measured: map[string]float64{workloads.MeasuredAny: 50e-6 + 400e-6*r.Float64()}})
		for _, u := range in {
			g.AddEdge(u, id, act)
		}
		return id
	}
	prev := add("embed", "lookup", 64<<20)
	for l := 0; l < layers; l++ {
		ln := fmt.Sprintf("layer%d", l)
		q, k, v := add(ln, "q", 2<<20, prev), add(ln, "k", 2<<20, prev), add(ln, "v", 2<<20, prev)
		a := add(ln, "attention", 0, q, k, v)
		o := add(ln, "out", 2<<20, a)
		r1 := add(ln, "residual1", 0, o, prev)
		n1 := add(ln, "norm1", 8<<10, r1)
		f1 := add(ln, "ffn1", 8<<20, n1)
		ge := add(ln, "gelu", 0, f1)
		f2 := add(ln, "ffn2", 8<<20, ge)
		r2 := add(ln, "residual2", 0, f2, n1)
		prev = add(ln, "norm2", 8<<10, r2)
	}
	add("head", "loss", 0, prev)
	t, err := workloads.DeriveTraining(g)
	if err != nil {
		panic(err)
	}
	return t
}

// BenchmarkPipeline1F1B simulates a 32-micro-batch 1F1B step of a 4-stage
// 24-layer transformer training graph (synthetic, BERT-24-like; stages of
// 6 layers each on a 4xV100-pcie box) and reports simulated op instances
// (op x micro-batch) per second of wall time, unrolling included.
func BenchmarkPipeline1F1B(b *testing.B) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	g := transformerTraining(24, 1)
	if err := g.Validate(); err != nil {
		b.Fatal(err)
	}
	dev, stages, err := engine.EvenStages(g, []int{0, 1, 2, 3})
	if err != nil {
		b.Fatal(err)
	}
	for _, sched := range []engine.Schedule{engine.OneFOneB, engine.GPipe, engine.PipeDream} {
		plan := &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: sched, MicroBatches: 32, Stages: stages}}
		b.Run(fmt.Sprintf("%s/ops=%d/m=32", sched, len(g.Ops)), func(b *testing.B) {
			b.ReportAllocs()
			var instances int
			for b.Loop() {
				r, err := engine.Simulate(g, c, plan, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				instances = 0
				for _, op := range r.Instances.Op {
					if op >= 0 {
						instances++
					}
				}
			}
			b.ReportMetric(float64(instances)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(instances), "instances")
		})
	}
}
