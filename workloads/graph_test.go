package workloads_test

import (
	"errors"
	"math"
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
		{"output bytes total overflows", func(g *workloads.Graph) { g.Ops[2].OutputBytes = math.MaxInt64 }, `ops[2].outputBytes = 9223372036854775807): the graph's total`, false},
		{"param bytes total overflows", func(g *workloads.Graph) { g.Ops[1].ParamBytes = math.MaxInt64 - 8 }, `ops[1].paramBytes = 9223372036854775799`, false},
		{"two halves overflow", func(g *workloads.Graph) { g.Ops[0].TempBytes = 1 << 62; g.Ops[3].GradBytes = 1 << 62 }, `ops[3].gradBytes`, false},
		{"edge bytes total overflows", func(g *workloads.Graph) { g.Edges[1].Bytes = math.MaxInt64 }, `edges[1].bytes = 9223372036854775807`, false},
		{"bytes accessed total overflows", func(g *workloads.Graph) { g.Ops[0].BytesAccessed = 1 << 62; g.Ops[1].BytesAccessed = 1 << 62 }, `ops[1].bytesAccessed`, false},
		{"flops total infinite", func(g *workloads.Graph) { g.Ops[0].FLOPs = math.MaxFloat64; g.Ops[1].FLOPs = math.MaxFloat64 }, `ops[1].flops = 1.7976931348623157e+308): the graph's total FLOPs is not finite`, false},
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

// TestValidateTotalsAtTheEdge checks that a graph whose size total is
// exactly 2^63-1 is valid and one byte more is refused.
func TestValidateTotalsAtTheEdge(t *testing.T) {
	g := workloads.Chain(2, []float64{1e-3}, 0)
	g.Ops[0].OutputBytes = math.MaxInt64 - 5
	g.Ops[1].ParamBytes = 5
	if err := g.Validate(); err != nil {
		t.Fatalf("total of exactly 2^63-1 refused: %v", err)
	}
	if total, ok := g.SizeTotal(); !ok || total != math.MaxInt64 {
		t.Fatalf("SizeTotal = %d, %v", total, ok)
	}
	g.Ops[1].ParamBytes = 6
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "ops[1].paramBytes = 6") {
		t.Fatalf("total of 2^63 accepted or misreported: %v", err)
	}
	if _, ok := g.SizeTotal(); ok {
		t.Fatal("SizeTotal did not report the overflow")
	}
	if _, err := workloads.DeriveTraining(g); err == nil || !strings.Contains(err.Error(), "64 PiB") {
		t.Fatalf("DeriveTraining of an overflowing graph: %v", err)
	}
}

func TestUniquePreds(t *testing.T) {
	t.Parallel()
	g := workloads.NewGraph("repeats", 1)
	for _, n := range []string{"a", "b", "c", "d"} {
		g.AddOp(workloads.Op{Name: n})
	}
	g.AddEdge(0, 2, 10)
	g.AddEdge(1, 2, 5)
	g.AddEdge(0, 2, 30) // repeat: the larger bytes win
	g.AddEdge(0, 2, 20) // repeat: smaller, ignored
	g.AddEdge(2, 3, 7)
	g.AddEdge(1, 3, 0)
	g.AddEdge(1, 3, 4)
	d := g.UniquePreds()
	want := map[int][]struct {
		op    int32
		bytes int64
	}{
		0: nil, 1: nil,
		2: {{0, 30}, {1, 5}},
		3: {{2, 7}, {1, 4}},
	}
	for v := range g.Ops {
		ops, bytes := d.Of(v)
		if len(ops) != len(want[v]) {
			t.Fatalf("op %d: predecessors %v, want %v", v, ops, want[v])
		}
		for i, w := range want[v] {
			if ops[i] != w.op || bytes[i] != w.bytes {
				t.Errorf("op %d predecessor %d: %d (%d bytes), want %d (%d bytes)", v, i, ops[i], bytes[i], w.op, w.bytes)
			}
		}
	}
	// the same rule by producer, in the order of each op's first edge out
	s := g.UniqueSuccs()
	wantS := map[int][]struct {
		op    int32
		bytes int64
	}{
		0: {{2, 30}},
		1: {{2, 5}, {3, 4}},
		2: {{3, 7}},
		3: nil,
	}
	for v := range g.Ops {
		ops, bytes := s.Of(v)
		if len(ops) != len(wantS[v]) {
			t.Fatalf("op %d: successors %v, want %v", v, ops, wantS[v])
		}
		for i, w := range wantS[v] {
			if ops[i] != w.op || bytes[i] != w.bytes {
				t.Errorf("op %d successor %d: %d (%d bytes), want %d (%d bytes)", v, i, ops[i], bytes[i], w.op, w.bytes)
			}
		}
	}
}
