package tarnawski

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/workloads"
)

// evalTol is the relative tolerance between the DP's value, summed from
// prefix sums, and the direct evaluation of its split.
const evalTol = 1e-9

// randomDAG is a small random DAG with random times, sizes and output
// bytes; some ops are CPU-only when cpuOnly is set, and some out-edges of
// an op carry different sizes (non-uniform costs).
func randomDAG(seed uint64, n int, cpuOnly bool) *workloads.Graph {
	r := rand.New(rand.NewPCG(seed, 99))
	g := workloads.NewGraph(fmt.Sprintf("random%d", seed), 1)
	for i := 0; i < n; i++ {
		op := workloads.Op{Name: fmt.Sprintf("v%d", i), ParamBytes: int64(r.IntN(4)) << 30,
			Measured: map[string]float64{workloads.MeasuredAccelerator: 1e-3 * (0.1 + r.Float64()), workloads.MeasuredCPU: 1e-3 * (0.5 + 4*r.Float64())}}
		op.CPUOnly = cpuOnly && r.IntN(8) == 0
		g.AddOp(op)
	}
	for v := 1; v < n; v++ {
		u := r.IntN(v)
		b := int64(r.IntN(8)) << 22
		g.AddEdge(u, v, b)
		if w := r.IntN(v); w != u && r.IntN(2) == 0 {
			g.AddEdge(w, v, b+int64(r.IntN(2))<<20)
		}
	}
	return g
}

func tinyRequest(t testing.TB, g *workloads.Graph, k, l int, mem int64) *placers.Request {
	t.Helper()
	c, err := devices.AccCPU("tiny", k, l, mem)
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Exact})
	if err != nil {
		t.Fatal(err)
	}
	return &placers.Request{Graph: g, Cluster: c, Estimates: est}
}

// reach[u][v]: v is reachable from u (u included).
func reachability(g *workloads.Graph) [][]bool {
	n := len(g.Ops)
	order, _ := g.TopoOrder()
	reach := make([][]bool, n)
	for i := n - 1; i >= 0; i-- {
		u := order[i]
		reach[u] = make([]bool, n)
		reach[u][u] = true
		for _, eid := range g.Out(u) {
			for w, ok := range reach[g.Edges[eid].To] {
				reach[u][w] = reach[u][w] || ok
			}
		}
	}
	return reach
}

// contiguous is Definition 3.1: no u, w in S and v outside with v
// reachable from u and w reachable from v.
func contiguous(reach [][]bool, in []bool) bool {
	n := len(in)
	for u := 0; u < n; u++ {
		if !in[u] {
			continue
		}
		for v := 0; v < n; v++ {
			if in[v] || !reach[u][v] {
				continue
			}
			for w := 0; w < n; w++ {
				if in[w] && reach[v][w] {
					return false
				}
			}
		}
	}
	return true
}

// bruteForce returns the smallest max-load over all assignments (only
// those whose every part is contiguous when contig is set).
func bruteForce(m *maxload.Model, contig bool) float64 {
	g := m.Graph
	n, nd := len(g.Ops), m.K()+m.L()
	reach := reachability(g)
	assign := make([]int, n)
	best := math.Inf(1)
	var rec func(int)
	rec = func(i int) {
		if i == n {
			if contig {
				for d := 0; d < nd; d++ {
					in := make([]bool, n)
					for op, x := range assign {
						in[op] = x == d
					}
					if !contiguous(reach, in) {
						return
					}
				}
			}
			if ml, _, err := m.Evaluate(assign); err == nil && ml < best {
				best = ml
			}
			return
		}
		for d := 0; d < nd; d++ {
			assign[i] = d
			rec(i + 1)
		}
	}
	rec(0)
	return best
}

// TestDPBruteForce checks the DP against an exhaustive search over
// contiguous splits on small random DAGs, with memory limits, CPU-only ops
// and non-uniform output sizes.
func TestDPBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := randomDAG(seed, 7, seed%3 == 0)
			req := tinyRequest(t, g, 2, 1, 5<<30)
			m, err := maxload.New(req)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(m, true)
			sol, err := (&DP{maxMemory: DefaultMaxMemoryMiB << 20}).solve(context.Background(), m)
			if math.IsInf(want, 1) {
				if err == nil {
					t.Fatalf("DP found %g, brute force found no contiguous split", sol.res.value)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinAbsOrRel(sol.res.value, want, 1e-15, evalTol) {
				t.Errorf("DP %.9g, brute force %.9g", sol.res.value, want)
			}
		})
	}
}

// TestDPValueIsExact checks, on the shared workloads, that the DP's value
// (prefix sums and the crossing-hyperedge formula) equals the direct
// evaluation of the split it returns.
func TestDPValueIsExact(t *testing.T) {
	for _, file := range []string{"LayerGraphs/resnet50_training.json", "OperatorGraphs/bert_l-3_training.json", "OperatorGraphs/resnet50_training.json"} {
		t.Run(file, func(t *testing.T) {
			g := loadShared(t, file)
			req := tinyRequest(t, g, g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory)
			m, err := maxload.New(req)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := (&DP{maxMemory: DefaultMaxMemoryMiB << 20}).solve(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			ml, _, err := m.Evaluate(sol.assign)
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinRel(ml, sol.res.value, evalTol) {
				t.Errorf("DP value %.12g, its split evaluates to %.12g", sol.res.value, ml)
			}
		})
	}
}
