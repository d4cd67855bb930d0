package pesto

import (
	"context"
	"testing"
	"time"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/mip/miptest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// BenchmarkCoarsen coarsens NMT-4 training (21,670 ops) to 200 vertices;
// it reports fine ops coarsened per second.
func BenchmarkCoarsen(b *testing.B) {
	g, err := zoo.Build("zoo:gnmt?layers=4&hidden=1024&batch=128&training=true")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Coarsen(context.Background(), g, est, CoarsenOptions{Target: 200, GroupCap: 0.25, MemCap: 0.5, VertexCap: DefaultVertexCap}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkBuildILP builds the ILP of RNNLM-2 training coarsened to 200
// vertices, with its m-ETF warm start; it reports rows per second.
func BenchmarkBuildILP(b *testing.B) {
	g, err := zoo.Build("zoo:rnnlm?layers=2&hidden=2048&batch=128&training=true")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	pr, o := testProblem(b, g, est, 200)
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		q, w := warmILP(b, pr, o)
		_ = q.start(w)
		rows += len(q.m.Constraints)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkPlace runs the whole placer (CBC included, 10 s limit) on a
// small RNNLM; it reports ops placed per second.
func BenchmarkPlace(b *testing.B) {
	miptest.Require(b)
	g, err := zoo.Build("zoo:rnnlm?layers=2&hidden=512&seq=10&batch=32&training=true")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	p, err := placers.Typed(New)(placers.Options{"vertices": "60", "timelimit": (10 * time.Second).String()})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// testProblem coarsens g to target vertices (the placer's default caps)
// and returns its problem with the ILP options of memory balance.
func testProblem(tb testing.TB, g *workloads.Graph, est *devices.Estimates, target int) (*problem, ILPOptions) {
	tb.Helper()
	co, err := Coarsen(context.Background(), g, est, CoarsenOptions{Target: target, GroupCap: 0.25, MemCap: 0.5, VertexCap: DefaultVertexCap})
	if err != nil {
		tb.Fatal(err)
	}
	pr, err := newProblem(co, est)
	if err != nil {
		tb.Fatal(err)
	}
	o := ILPOptions{Memory: MemoryBalance, Slack: DefaultSlack}
	o.bounds = pr.memBounds(o.Memory, o.Slack)
	return pr, o
}

// warmILP builds the ILP of pr with its m-ETF warm start's makespan as the
// horizon, and returns it with the warm start's timing.
func warmILP(tb testing.TB, pr *problem, o ILPOptions) (*ilp, *timing) {
	tb.Helper()
	dev, orders, err := pr.warmStart(context.Background(), o.bounds)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := pr.evaluate(dev, orders)
	if err != nil {
		tb.Fatal(err)
	}
	q, err := buildILP(pr, o, w.makespan)
	if err != nil {
		tb.Fatal(err)
	}
	return q, w
}

// BenchmarkLayerSearch runs 50 simulations of the layer search on NMT-2
// training (12,452 ops, 10 layers) on the Pesto testbed; it reports
// simulations per second.
func BenchmarkLayerSearch(b *testing.B) {
	g, err := zoo.Build("zoo:gnmt?layers=2&hidden=1024&batch=128&training=true&framework=tf1-graph")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	eg := estimatedGraph(g, c, est)
	b.ResetTimer()
	evals := 0
	for i := 0; i < b.N; i++ {
		r, ok := layerSearch(context.Background(), g, eg, c, est, 50)
		if !ok {
			b.Fatal("no plan")
		}
		evals += r.evals
	}
	b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "sims/s")
}

// nmt2SlowNVLink is the Figure 8b point the search benchmarks run: NMT-2
// training (12,452 ops) on 2 V100s with NVLink at 0.1x, its estimates and
// its estimated graph, and the layer search's result within layerBudget
// simulations.
func nmt2SlowNVLink(b *testing.B, layerBudget int) (*workloads.Graph, *workloads.Graph, *devices.Cluster, *devices.Estimates, layerSearchResult) {
	g, err := zoo.Build("zoo:gnmt?layers=2&hidden=1024&batch=128&training=true&framework=tf1-graph")
	if err != nil {
		b.Fatal(err)
	}
	c, err := devices.NewPreset("2xV100-nvlink+cpu")
	if err != nil {
		b.Fatal(err)
	}
	for i := range c.Topology.Links {
		if l := &c.Topology.Links[i]; l.Family == "nvlink" {
			l.Bandwidth *= 0.1
		}
	}
	if err := c.Rebuild(); err != nil {
		b.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	eg := estimatedGraph(g, c, est)
	ls, ok := layerSearch(context.Background(), g, eg, c, est, layerBudget)
	if !ok {
		b.Fatal("layer search: no plan")
	}
	return g, eg, c, est, ls
}

// BenchmarkOrderSearch runs 40 simulations of the order search on the
// layer search's plan of NMT-2 training (12,452 ops) at 0.1x NVLink (the
// Figure 8b point); it reports simulations per second.
func BenchmarkOrderSearch(b *testing.B) {
	_, eg, c, _, ls := nmt2SlowNVLink(b, 20)
	b.ResetTimer()
	evals := 0
	for i := 0; i < b.N; i++ {
		evals += orderSearch(context.Background(), eg, c, ls.plan, ls.time, 40).evals
	}
	b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "sims/s")
}

// BenchmarkRangeSearch runs 60 simulations of the range search from the
// layer search's plans of NMT-2 training (12,452 ops) at 0.1x NVLink (the
// Figure 8b point); it reports simulations per second.
func BenchmarkRangeSearch(b *testing.B) {
	g, eg, c, est, ls := nmt2SlowNVLink(b, 100)
	b.ResetTimer()
	evals := 0
	for i := 0; i < b.N; i++ {
		r, _ := rangeSearch(context.Background(), g, eg, c, est, ls, 60)
		evals += r.evals
	}
	b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "sims/s")
}
