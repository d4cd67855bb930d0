package fastt

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/workloads"
)

// tol is the tolerance of time comparisons.
const tol = 1e-9

// handGraph is the fork-join S -> {A, B} -> E with measured times of 1,
// 3, 3 and 1 ms and bytes edges.
func handGraph(bytes int64) *workloads.Graph {
	g := workloads.NewGraph("hand", 1)
	for _, x := range []struct {
		name string
		t    float64
	}{{"S", 1e-3}, {"A", 3e-3}, {"B", 3e-3}, {"E", 1e-3}} {
		g.AddOp(workloads.Op{Name: x.name, Type: "compute", Measured: map[string]float64{workloads.MeasuredAny: x.t}})
	}
	g.AddEdge(0, 1, bytes)
	g.AddEdge(0, 2, bytes)
	g.AddEdge(1, 3, bytes)
	g.AddEdge(2, 3, bytes)
	return g
}

// TestDPOSHandComputed checks Algorithm 1 on the fork-join graph on two
// accelerators, where a transfer takes c. By hand: rank E = 1, rank A =
// rank B = 3 + c + 1, rank S = 1 + c + rank A; the critical path is S, A
// (the first of the tied successors), E, on gpu0 (equal averages: the
// lower index). In rank order: S on gpu0 [0, 1]; A on gpu0 [1, 4]; B
// finishes first on gpu1, [1+c, 4+c] (gpu0 frees only at 4);
// E is a critical-path op: gpu0, from max(4, 4+2c) to 5+2c, although
// gpu1 would finish it at 5+c — the critical path stays on its device.
func TestDPOSHandComputed(t *testing.T) {
	c, err := devices.AccCPU("2acc", 2, 0, 16<<30)
	if err != nil {
		t.Fatal(err)
	}
	for _, bytes := range []int64{1 << 20, 8 << 20} {
		g := handGraph(bytes)
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
		cm, err := NewCostModel(est)
		if err != nil {
			t.Fatal(err)
		}
		comm := cm.Transfer(0, 1, bytes)
		if !scalar.EqualWithinAbsOrRel(comm, c.TransferTime(0, 1, bytes), tol, tol) {
			t.Fatalf("regression: %g s, the route takes %g s", comm, c.TransferTime(0, 1, bytes))
		}
		p, err := newProblem(modelWork(g), cm)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := dpos(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		const s, a, b, e = 0, 1, 2, 3
		tests := []struct {
			name          string
			op, dev       int
			start, finish float64
		}{
			{"S on the critical path", s, 0, 0, 1e-3},
			{"A on the critical path", a, 0, 1e-3, 4e-3},
			{"B at its earliest finish", b, 1, 1e-3 + comm, 4e-3 + comm},
			{"E kept on the critical-path device", e, 0, 4e-3 + 2*comm, 5e-3 + 2*comm},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if sc.s.Dev[tc.op] != tc.dev {
					t.Fatalf("device %d, want %d", sc.s.Dev[tc.op], tc.dev)
				}
				if !scalar.EqualWithinAbsOrRel(sc.s.Start[tc.op], tc.start, tol, tol) || !scalar.EqualWithinAbsOrRel(sc.s.Finish[tc.op], tc.finish, tol, tol) {
					t.Fatalf("[%g, %g], want [%g, %g]", sc.s.Start[tc.op], sc.s.Finish[tc.op], tc.start, tc.finish)
				}
			})
		}
		if want := []int{s, a, e}; len(sc.cp) != 3 || sc.cp[0] != want[0] || sc.cp[1] != want[1] || sc.cp[2] != want[2] {
			t.Fatalf("critical path %v, want %v", sc.cp, want)
		}
		if !scalar.EqualWithinAbsOrRel(sc.finish, 5e-3+2*comm, tol, tol) {
			t.Fatalf("FT(o_exit) %g, want %g", sc.finish, 5e-3+2*comm)
		}
		// order enforcement: each device runs its ops by scheduled start
		plan := sc.plan(true, g)
		if plan.Graph != nil || plan.Priority[s] <= plan.Priority[a] || plan.Priority[a] <= plan.Priority[e] {
			t.Fatalf("plan %+v: want no rewritten graph and priorities S > A > E", plan)
		}
	}
}
