package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
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

// BenchmarkPipeline1F1B simulates a 32-micro-batch step of a 4-stage
// BERT-24 training graph (the zoo's, op granularity; stages of equal layer
// shares on a 4xV100-pcie box) under 1F1B, and GPipe and PipeDream for
// comparison, and of a synthetic 24-layer transformer graph; it reports
// simulated op instances (op x micro-batch) per second of wall time,
// unrolling included.
func BenchmarkPipeline1F1B(b *testing.B) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		b.Fatal(err)
	}
	bert, err := zoo.Build("bert?layers=24&training=true")
	if err != nil {
		b.Fatal(err)
	}
	graphs := []*workloads.Graph{bert, transformerTraining(24, 1)}
	for gi, g := range graphs {
		if err := g.Validate(); err != nil {
			b.Fatal(err)
		}
		dev, stages, err := engine.EvenStages(g, []int{0, 1, 2, 3})
		if err != nil {
			b.Fatal(err)
		}
		for _, sched := range []engine.Schedule{engine.OneFOneB, engine.GPipe, engine.PipeDream} {
			if gi > 0 && sched != engine.OneFOneB {
				continue
			}
			benchPipeline(b, g, c, &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: sched, MicroBatches: 32, Stages: stages}})
		}
	}
}

func benchPipeline(b *testing.B, g *workloads.Graph, c *devices.Cluster, plan *engine.Plan) {
	name := strings.SplitN(g.Name, "?", 2)[0]
	b.Run(fmt.Sprintf("%s/%s/ops=%d/m=%d", strings.TrimPrefix(name, "zoo:"), plan.Pipeline.Schedule, len(g.Ops), plan.Pipeline.MicroBatches), func(b *testing.B) {
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
