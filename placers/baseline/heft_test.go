package baseline_test

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/links"
	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/placers/graphalg"
	"placesim/placers/placertest"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// tol is the tolerance for schedule times computed two ways.
const tol = 1e-9

// topcuoglu is the example of Topcuoglu, Hariri and Wu (2002), Fig. 2: ten
// tasks on three processors; cost[i][p] is task i+1's computation cost on
// processor p+1, comm the edges' communication costs.
var topcuoglu = struct {
	cost [10][3]float64
	comm []struct {
		from, to int
		c        float64
	}
}{
	cost: [10][3]float64{
		{14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17}, {12, 13, 10},
		{13, 16, 9}, {7, 15, 11}, {5, 11, 14}, {18, 12, 20}, {21, 7, 16},
	},
	comm: []struct {
		from, to int
		c        float64
	}{
		{1, 2, 18}, {1, 3, 12}, {1, 4, 9}, {1, 5, 11}, {1, 6, 14},
		{2, 8, 19}, {2, 9, 16}, {3, 7, 23}, {4, 8, 27}, {4, 9, 23},
		{5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13},
	},
}

// topcuogluGraph is the example as a workload whose measured times are per
// device kind P1, P2, P3 and whose edge bytes equal the communication cost
// times bw, so that on a full mesh of links of bandwidth bw an edge's
// transfer takes its cost.
func topcuogluGraph(bw float64) *workloads.Graph {
	g := workloads.NewGraph("topcuoglu2002", 1)
	for i, c := range topcuoglu.cost {
		g.AddOp(workloads.Op{Name: fmt.Sprintf("n%d", i+1), Type: "task",
			Measured: map[string]float64{"P1": c[0], "P2": c[1], "P3": c[2]}})
	}
	for _, e := range topcuoglu.comm {
		b := int64(e.c * bw)
		g.Ops[e.from-1].OutputBytes = max(g.Ops[e.from-1].OutputBytes, b)
		g.AddEdge(e.from-1, e.to-1, b)
	}
	return g
}

func TestHEFTTopcuoglu(t *testing.T) {
	const bw = 1 << 20
	g := topcuogluGraph(bw)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	d := graphalg.NewDAG(g)
	// the paper's model: a fixed cost per edge, computation costs averaged
	// over the processors for the rank
	costs := &graphalg.Costs{W: make([]float64, 10), Comm: make([]float64, d.NumDeps())}
	for i, c := range topcuoglu.cost {
		costs.W[i] = (c[0] + c[1] + c[2]) / 3
	}
	for v := 0; v < d.Len(); v++ {
		lo, hi := d.PredRange(v)
		for k := lo; k < hi; k++ {
			for _, e := range topcuoglu.comm {
				if e.from-1 == d.PredAt(k) && e.to-1 == v {
					costs.Comm[k] = e.c
				}
			}
		}
	}
	topo, _ := graphalg.KahnOrder(d)
	rank := graphalg.BLevel(d, costs, topo)
	// the paper's Table: rank_u(n1) = 108, rank_u(n10) = 14.667
	if !scalar.EqualWithinAbsOrRel(rank[0], 108, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(rank[9], 44.0/3, 1e-9, 1e-9) {
		t.Fatalf("ranks n1 %g n10 %g, want 108 and 14.667", rank[0], rank[9])
	}
	s := graphalg.NewSchedule(d, 3, func(v, p int) float64 { return topcuoglu.cost[v][p] }, graphalg.FixedComm(costs.Comm))
	all := []int{0, 1, 2}
	if err := baseline.ScheduleHEFT(context.Background(), s, rank, topo, func(int) []int { return all }, nil); err != nil {
		t.Fatal(err)
	}
	if m := s.Makespan(); !scalar.EqualWithinAbsOrRel(m, 80, tol, tol) {
		t.Fatalf("makespan %g, want 80", m)
	}
	// the published schedule (Fig. 4a): processor and start of each task
	want := []struct {
		proc  int
		start float64
	}{{3, 0}, {1, 27}, {3, 9}, {2, 18}, {3, 28}, {2, 26}, {3, 38}, {1, 57}, {2, 56}, {2, 73}}
	for i, w := range want {
		if s.Dev[i]+1 != w.proc || !scalar.EqualWithinAbsOrRel(s.Start[i], w.start, tol, tol) {
			t.Errorf("n%d on P%d at %g, want P%d at %g", i+1, s.Dev[i]+1, s.Start[i], w.proc, w.start)
		}
	}
	// the plan simulates on three processors joined by a full mesh of links
	// (the engine's links are FCFS queues and one transfer per producer and
	// destination device carries its largest edge, so the step is not 80)
	c := meshCluster(t, bw)
	res, err := engine.Simulate(g, c, s.Plan(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.StepTime >= 80-tol) {
		t.Fatalf("simulated step %g, want >= the contention-free makespan 80", res.StepTime)
	}
	t.Logf("HEFT on Topcuoglu et al.'s example: makespan 80, simulated step %g", res.StepTime)
}

// meshCluster is three devices of kinds P1, P2, P3 joined pairwise by
// links of bandwidth bw and no latency.
func meshCluster(t *testing.T, bw float64) *devices.Cluster {
	t.Helper()
	topo := links.NewTopology()
	var devs []devices.Device
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("p%d", i)
		ep, err := topo.AddEndpoint(name, links.GPU)
		if err != nil {
			t.Fatal(err)
		}
		k := devices.V100_32GB
		k.Name = fmt.Sprintf("P%d", i)
		devs = append(devs, devices.Device{Name: name, Kind: k, Endpoint: ep})
	}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if err := topo.ConnectCustom(links.EndpointID(i), links.EndpointID(j), "mesh", "test", bw, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := devices.NewCluster("mesh3", topo, devs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHEFTPlacerOnExample(t *testing.T) {
	// through the placer: estimates from the workload's measured times and
	// the mesh's transfer times reproduce the paper's model exactly
	const bw = 1 << 20
	g := topcuogluGraph(bw)
	c := meshCluster(t, bw)
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := placers.Typed(baseline.NewHEFT)(nil)
	plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, 0, 2, 1, 2, 1, 2, 0, 1, 1}
	for i, d := range want {
		if plan.Device[i] != d {
			t.Fatalf("n%d on device %d, want %d (plan %v)", i+1, plan.Device[i], d, plan.Device)
		}
	}
}

func TestListSchedulersConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    placers.Factory
		opts placers.Options
	}{
		{"heft", placers.Typed(baseline.NewHEFT), nil},
		{"etf", placers.Typed(baseline.NewETF), nil},
		{"heft-coarse", placers.Typed(baseline.NewHEFT), placers.Options{"coarsen": "true", "range": "4"}},
		{"etf-coarse", placers.Typed(baseline.NewETF), placers.Options{"coarsen": "true", "range": "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.f(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			placertest.Run(t, p, placertest.Config{})
		})
	}
}

func TestListSchedulerOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts placers.Options
	}{
		{"coarsen not a bool", placers.Options{"coarsen": "maybe"}},
		{"range 0", placers.Options{"range": "0"}},
		{"memfrac over 1", placers.Options{"memfrac": "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []placers.Factory{placers.Typed(baseline.NewHEFT), placers.Typed(baseline.NewETF)} {
				if _, err := f(tc.opts); err == nil {
					t.Fatalf("options %v accepted", tc.opts)
				}
			}
		})
	}
}

// BenchmarkPlaceTransformer21k is HEFT's and ETF's placement time on
// Celeritas' Transformer training graph (12 layers, 16 heads, hidden 2048)
// as a TensorFlow 1 graph of 21,248 ops (reported as the ops metric).
func BenchmarkPlaceTransformer21k(b *testing.B) {
	g, err := zoo.Build("zoo:transformer?layers=12&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := devices.NewPreset("4xV100-pcie")
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    placers.Factory
	}{{"heft", placers.Typed(baseline.NewHEFT)}, {"etf", placers.Typed(baseline.NewETF)}} {
		b.Run(tc.name, func(b *testing.B) {
			p, _ := tc.f(nil)
			req := &placers.Request{Graph: g, Cluster: c, Estimates: est}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := p.Place(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(g.Ops)), "ops")
		})
	}
}
