package tarnawski

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// linearReference is the DP over the ideals of dg linearised along its
// DFS order, with nothing pruned: DPL as it was computed before runDPL.
func linearReference(t testing.TB, m *maxload.Model) float64 {
	t.Helper()
	dg, err := buildDPGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	dg.linearize()
	lim := dpLimits{K: m.K(), L: m.L(), accMem: m.AccMem, cpuMem: m.CPUMem, bound: math.Inf(1)}
	ids, err := enumerateIdeals(context.Background(), dg, (lim.K+1)*(lim.L+1), 1<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ids.count() != dg.n+1 {
		t.Fatalf("linearised graph has %d ideals, want %d", ids.count(), dg.n+1)
	}
	res, err := runDP(context.Background(), dg, ids, lim, 1)
	if err != nil {
		t.Fatal(err)
	}
	return res.value
}

func modelFor(t testing.TB, g *workloads.Graph, cluster string) *maxload.Model {
	t.Helper()
	c, err := devices.NewPreset(cluster)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Exact})
	if err != nil {
		t.Fatal(err)
	}
	m, err := maxload.New(&placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDPLMatchesLinearDP checks that runDPL (prefix sums, the bounded
// sweep, device-count spans) finds the optimum of the unpruned DP over the
// linearised graph's ideals, on the shared workloads and on zoo graphs,
// and that its split evaluates to its value.
func TestDPLMatchesLinearDP(t *testing.T) {
	type tc struct {
		name string
		m    func(t *testing.T) *maxload.Model
	}
	var cases []tc
	for _, f := range []string{"LayerGraphs/bert24_training.json", "LayerGraphs/resnet50_inference.json", "OperatorGraphs/bert_l-3_training.json", "OperatorGraphs/resnet50_training.json"} {
		cases = append(cases, tc{f, func(t *testing.T) *maxload.Model {
			g := loadShared(t, f)
			m, err := maxload.New(tinyRequest(t, g, g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}})
	}
	for _, z := range []struct{ spec, cluster string }{
		{"zoo:transformer?granularity=op&training=true&layers=1", "6xacc+1cpu"},
		{"zoo:inception_v3?granularity=layer&training=true", "6xacc+1cpu"},
		{"zoo:gnmt?granularity=layer", "4xV100-pcie"},
		{"zoo:resnet50?granularity=op", "2xV100-nvlink+cpu"},
	} {
		cases = append(cases, tc{z.spec + "@" + z.cluster, func(t *testing.T) *maxload.Model {
			g, err := zoo.Build(z.spec)
			if err != nil {
				t.Fatal(err)
			}
			return modelFor(t, g, z.cluster)
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			want := linearReference(t, m)
			dg, err := buildDPGraph(m)
			if err != nil {
				t.Fatal(err)
			}
			lim := dpLimits{K: m.K(), L: m.L(), accMem: m.AccMem, cpuMem: m.CPUMem, bound: math.Inf(1)}
			res, err := runDPL(context.Background(), dg, dg.dfsOrder(), lim)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d DP nodes: DPL %.9g s, reference %.9g s, %d segments", dg.n, res.value, want, res.pairs)
			if !scalar.EqualWithinAbsOrRel(res.value, want, 1e-15, evalTol) {
				t.Fatalf("runDPL %.12g, unpruned linear DP %.12g", res.value, want)
			}
			if math.IsInf(want, 1) {
				return
			}
			ml, _, err := m.Evaluate(assignParts(m, dg, res.parts))
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinRel(ml, res.value, evalTol) {
				t.Errorf("DPL value %.12g, its split evaluates to %.12g", res.value, ml)
			}
		})
	}
}

// TestDPMemoryLimit checks that a DP whose ideals would not fit in the
// memory limit stops with ErrTooManyIdeals naming the ideal count and the
// memory, and that tarnawski-dpl still solves the graph.
func TestDPMemoryLimit(t *testing.T) {
	// 40 independent chains of 2: 3^40 ideals
	g := workloads.NewGraph("wide", 1)
	for i := 0; i < 80; i++ {
		g.AddOp(workloads.Op{Name: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Measured: map[string]float64{workloads.MeasuredAccelerator: 1e-3, workloads.MeasuredCPU: 1e-2}})
		if i%2 == 1 {
			g.AddEdge(i-1, i, 1<<20)
		}
	}
	m, err := maxload.New(tinyRequest(t, g, 2, 1, 1<<34))
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&DP{maxMemory: 1 << 20}).solve(context.Background(), m)
	if !errors.Is(err, ErrTooManyIdeals) {
		t.Fatalf("error %v, want ErrTooManyIdeals", err)
	}
	for _, want := range []string{`"wide"`, "more than", "ideals", "would need more than", "limit 1.0 MiB", "max-memory-mib"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	sol, err := (&DP{maxMemory: 1 << 20, linearize: true}).solve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if sol.res.ideals != 81 {
		t.Errorf("DPL: %d ideals, want 81", sol.res.ideals)
	}
}

// TestTrivialMerges checks the trivial-node merges on hand-made graphs: a
// zero-cost forward node with one forward neighbour joins it; one with a
// cost, with two neighbours, with a backward neighbour, or whose class has
// backward cost, stays.
func TestTrivialMerges(t *testing.T) {
	op := func(name string, role workloads.Role, ms float64, colo string) workloads.Op {
		return workloads.Op{Name: name, Role: role, Colocation: colo,
			Measured: map[string]float64{workloads.MeasuredAccelerator: ms / 1e3, workloads.MeasuredCPU: ms / 1e3}}
	}
	tests := []struct {
		name  string
		ops   []workloads.Op
		edges [][2]int
		nodes int // DP nodes after preprocessing
	}{
		{"zero source joins its consumer", []workloads.Op{op("in", workloads.Forward, 0, ""), op("a", workloads.Forward, 1, ""), op("b", workloads.Forward, 1, "")},
			[][2]int{{0, 1}, {1, 2}}, 2},
		{"chain of zeros collapses", []workloads.Op{op("z1", workloads.Forward, 0, ""), op("z2", workloads.Forward, 0, ""), op("a", workloads.Forward, 1, ""), op("b", workloads.Forward, 1, "")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}, 2},
		{"costly node stays", []workloads.Op{op("in", workloads.Forward, 0.5, ""), op("a", workloads.Forward, 1, "")},
			[][2]int{{0, 1}}, 2},
		{"two neighbours stay", []workloads.Op{op("a", workloads.Forward, 1, ""), op("z", workloads.Forward, 0, ""), op("b", workloads.Forward, 1, "")},
			[][2]int{{0, 1}, {1, 2}}, 3},
		{"backward neighbour stays", []workloads.Op{op("z", workloads.Forward, 0, ""), op("a", workloads.Forward, 1, "A"), op("a'", workloads.Backward, 1, "A")},
			[][2]int{{0, 1}, {1, 2}, {0, 2}}, 2},
		{"class with backward cost stays", []workloads.Op{op("z", workloads.Forward, 0, "Z"), op("a", workloads.Forward, 1, "A"), op("a'", workloads.Backward, 1, "A"), op("z'", workloads.Backward, 1, "Z")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}, 2},
		{"class with free backward joins", []workloads.Op{op("z", workloads.Forward, 0, "Z"), op("a", workloads.Forward, 1, "A"), op("a'", workloads.Backward, 1, "A"), op("z'", workloads.Backward, 0, "Z")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := workloads.NewGraph(tc.name, 1)
			for _, o := range tc.ops {
				g.AddOp(o)
			}
			for _, e := range tc.edges {
				g.AddEdge(e[0], e[1], 1<<20)
			}
			m, err := maxload.New(tinyRequest(t, g, 2, 1, 1<<34))
			if err != nil {
				t.Fatal(err)
			}
			dg, err := buildDPGraph(m)
			if err != nil {
				t.Fatal(err)
			}
			if dg.n != tc.nodes {
				t.Errorf("%d DP nodes (%v), want %d", dg.n, dg.ops, tc.nodes)
			}
		})
	}
}
