package workloads_test

import (
	"errors"
	"strings"
	"testing"

	"placesim/workloads"
)

func TestValidateErrors(t *testing.T) {
	base := func() *workloads.Graph { return workloads.Chain(4, []float64{1e-3}, 8) }
	tests := []struct {
		name   string
		mutate func(g *workloads.Graph)
		want   string
		cycle  bool
	}{
		{"batch", func(g *workloads.Graph) { g.Batch = 0 }, "field batch = 0 (valid range: >= 1)", false},
		{"duplicate name", func(g *workloads.Graph) { g.Ops[2].Name = "op1" }, `duplicate op name "op1"`, false},
		{"empty name", func(g *workloads.Graph) { g.Ops[1].Name = "" }, "ops[1]: field name is empty", false},
		{"negative output", func(g *workloads.Graph) { g.Ops[3].OutputBytes = -1 }, `op "op3" (ops[3]): field outputBytes = -1`, false},
		{"negative flops", func(g *workloads.Graph) { g.Ops[0].FLOPs = -2 }, "field flops = -2", false},
		{"negative time", func(g *workloads.Graph) { g.Ops[0].Measured["*"] = -1 }, `measured["*"] = -1`, false},
		{"dangling edge", func(g *workloads.Graph) { g.AddEdge(1, 9, 1) }, "edges[3] 1->9: endpoint out of range [0, 4) (dangling edge)", false},
		{"negative edge", func(g *workloads.Graph) { g.AddEdge(0, 2, -4) }, "field bytes = -4", false},
		{"self loop", func(g *workloads.Graph) { g.AddEdge(2, 2, 1) }, `self-loop on op "op2"`, false},
		{"cycle", func(g *workloads.Graph) { g.AddEdge(3, 1, 1) }, `op "op1" is on the cycle "op1" -> "op2" -> "op3" -> "op1"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := base()
			tc.mutate(g)
			err := g.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if errors.Is(err, workloads.ErrCycle) != tc.cycle {
				t.Fatalf("ErrCycle = %v, want %v", errors.Is(err, workloads.ErrCycle), tc.cycle)
			}
		})
	}
}

func TestTopoOrderAndClone(t *testing.T) {
	g := workloads.ForkJoin(3, 2, 1, 1)
	order, err := g.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int, len(order))
	for i, v := range order {
		pos[v] = i
	}
	for _, e := range g.Edges {
		if pos[e.From] >= pos[e.To] {
			t.Fatalf("edge %d->%d against the order", e.From, e.To)
		}
	}
	c := g.Clone()
	c.Ops[0].Measured["*"] = 99
	if g.Ops[0].Measured["*"] == 99 {
		t.Fatal("Clone shares Measured maps")
	}
	if len(c.Out(0)) != 3 || len(c.In(len(c.Ops)-1)) != 3 {
		t.Fatal("clone adjacency wrong")
	}
	// adjacency stays right when Edges are assigned directly
	g2 := workloads.NewGraph("direct", 1)
	g2.Ops = []workloads.Op{{Name: "a"}, {Name: "b"}}
	g2.Edges = []workloads.Edge{{From: 0, To: 1}}
	if err := g2.Validate(); err != nil || len(g2.In(1)) != 1 {
		t.Fatalf("direct assignment: %v, in %v", err, g2.In(1))
	}
}

func TestRandomLayeredDeterministic(t *testing.T) {
	a, b := workloads.RandomLayered(500, 16, 3), workloads.RandomLayered(500, 16, 3)
	if len(a.Edges) != len(b.Edges) || a.Edges[100] != b.Edges[100] || a.Ops[7].OutputBytes != b.Ops[7].OutputBytes {
		t.Fatal("same seed, different graphs")
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
}
