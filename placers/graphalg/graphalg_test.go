package graphalg_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// tol is the tolerance for times computed two ways.
const tol = 1e-9

// build makes a graph with the named ops (measured times on any device)
// and edges given as "from->to" pairs of names.
func build(t *testing.T, names []string, times []float64, edges [][2]string, bytes int64) *workloads.Graph {
	t.Helper()
	g := workloads.NewGraph("test", 1)
	id := map[string]int{}
	for i, n := range names {
		id[n] = g.AddOp(workloads.Op{Name: n, Type: "compute", OutputBytes: bytes,
			Measured: map[string]float64{workloads.MeasuredAny: times[i]}})
	}
	for _, e := range edges {
		g.AddEdge(id[e[0]], id[e[1]], bytes)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// twoDiamonds is our stand-in for Celeritas' Figure 3 (whose drawing is not
// in the text): two independent diamonds a and b. Placed in Kahn's
// breadth-first order on two devices (first half, second half), 4 edges
// are cut; in DFS-TOPO order none.
func twoDiamonds(t *testing.T) (*workloads.Graph, *graphalg.DAG, *graphalg.Costs) {
	names := []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}
	w := []float64{1, 2, 3, 1, 1, 1, 1, 1}
	g := build(t, names, w, [][2]string{
		{"a1", "a2"}, {"a1", "a3"}, {"a2", "a4"}, {"a3", "a4"},
		{"b1", "b2"}, {"b1", "b3"}, {"b2", "b4"}, {"b3", "b4"},
	}, 1)
	d := graphalg.NewDAG(g)
	c := &graphalg.Costs{W: w, Comm: make([]float64, d.NumDeps())}
	for k := range c.Comm {
		c.Comm[k] = 1
	}
	return g, d, c
}

func names(g *workloads.Graph, order []int) []string {
	s := make([]string, len(order))
	for i, v := range order {
		s[i] = g.Ops[v].Name
	}
	return s
}

func TestLevelsAndOrders(t *testing.T) {
	g, d, c := twoDiamonds(t)
	topo, err := graphalg.KahnOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	tl := graphalg.TLevel(d, c, topo)
	bl := graphalg.BLevel(d, c, topo)
	// by hand, with unit communication:
	// tlevel a1 0, a2 = a3 = 0+1+1 = 2, a4 = max(2+2+1, 2+3+1) = 6
	// blevel a4 1, a2 = 2+1+1 = 4, a3 = 3+1+1 = 5, a1 = 1+max(1+4, 1+5) = 7
	wantTL := []float64{0, 2, 2, 6, 0, 2, 2, 4}
	wantBL := []float64{7, 4, 5, 1, 5, 3, 3, 1}
	for i := range wantTL {
		if !scalar.EqualWithinAbsOrRel(tl[i], wantTL[i], tol, tol) || !scalar.EqualWithinAbsOrRel(bl[i], wantBL[i], tol, tol) {
			t.Errorf("%s: tlevel %g blevel %g, want %g %g", g.Ops[i].Name, tl[i], bl[i], wantTL[i], wantBL[i])
		}
	}
	path, length := graphalg.CriticalPath(d, c, topo)
	if got := names(g, path); !reflect.DeepEqual(got, []string{"a1", "a3", "a4"}) || !scalar.EqualWithinAbsOrRel(length, 7, tol, tol) {
		t.Errorf("critical path %v length %g, want [a1 a3 a4] 7", got, length)
	}
	dfs, err := graphalg.DFSTopo(d)
	if err != nil {
		t.Fatal(err)
	}
	cpd, err := graphalg.CPDTopo(d, graphalg.CPath(tl, bl))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		order []int
		want  []string
		cut   int
	}{
		// m-TOPO's FIFO queue interleaves the diamonds
		{"kahn", topo, []string{"a1", "b1", "a2", "a3", "b2", "b3", "a4", "b4"}, 4},
		// children at the queue's head: one diamond, then the other
		{"dfs-topo", dfs, []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}, 0},
		// cpath a1 7, a2 6, a3 7, a4 7, b* 5: a3 (on the critical path) before a2
		{"cpd-topo", cpd, []string{"a1", "a3", "a2", "a4", "b1", "b2", "b3", "b4"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(g, tc.order); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("order %v, want %v", got, tc.want)
			}
			// fill two devices in order, half each (Figure 3)
			dev := make([]int, len(tc.order))
			for i, v := range tc.order {
				dev[v] = i * 2 / len(tc.order)
			}
			cut := 0
			for _, e := range g.Edges {
				if dev[e.From] != dev[e.To] {
					cut++
				}
			}
			if cut != tc.cut {
				t.Fatalf("%d edges cut, want %d", cut, tc.cut)
			}
		})
	}
}

func TestOrdersAreTopological(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		g := workloads.RandomLayered(400, 13, seed)
		d := graphalg.NewDAG(g)
		c := &graphalg.Costs{W: make([]float64, d.Len()), Comm: make([]float64, d.NumDeps())}
		for i := range c.W {
			c.W[i] = float64(i%7 + 1)
		}
		topo, err := graphalg.KahnOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		dfs, _ := graphalg.DFSTopo(d)
		cpd, _ := graphalg.CPDTopo(d, graphalg.CPath(graphalg.TLevel(d, c, topo), graphalg.BLevel(d, c, topo)))
		for name, order := range map[string][]int{"kahn": topo, "dfs": dfs, "cpd": cpd} {
			t.Run(fmt.Sprintf("seed%d/%s", seed, name), func(t *testing.T) {
				if len(order) != len(g.Ops) {
					t.Fatalf("%d ops ordered, want %d", len(order), len(g.Ops))
				}
				pos := graphalg.Positions(order)
				for _, e := range g.Edges {
					if pos[e.From] >= pos[e.To] {
						t.Fatalf("edge %d->%d goes backwards", e.From, e.To)
					}
				}
			})
		}
	}
}

func TestTimeline(t *testing.T) {
	var tl graphalg.Timeline
	tl.Reserve(0, 2)
	tl.Reserve(5, 1)
	tl.Reserve(3, 1) // out of order: kept sorted
	tests := []struct {
		name       string
		ready, dur float64
		insertion  bool
		want       float64
	}{
		{"gap before a busy interval", 2, 1, true, 2},
		{"too long for the gap 2-3, fits 4-5", 2, 1.5, false, 6},
		{"insertion into 4-5", 2.5, 1, true, 4},
		{"no gap long enough: after the last", 0, 2.5, true, 6},
		{"ready inside an interval", 1, 0.5, true, 2},
		{"without insertion: after the last", 0, 0.1, false, 6},
		{"later than everything", 9, 1, true, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tl.EarliestStart(tc.ready, tc.dur, tc.insertion); !scalar.EqualWithinAbsOrRel(got, tc.want, tol, tol) {
				t.Fatalf("EarliestStart(%g, %g, %v) = %g, want %g", tc.ready, tc.dur, tc.insertion, got, tc.want)
			}
		})
	}
	if !scalar.EqualWithinAbsOrRel(tl.Busy(), 4, tol, tol) || tl.End() != 6 || tl.Len() != 3 {
		t.Fatalf("busy %g end %g len %d", tl.Busy(), tl.End(), tl.Len())
	}
}

// figure4 is Celeritas' Figure 4: M -> N directly and through Y -> Z.
func figure4(t *testing.T) *workloads.Graph {
	return build(t, []string{"M", "Y", "Z", "N"}, []float64{1, 1, 1, 1},
		[][2]string{{"M", "N"}, {"M", "Y"}, {"Y", "Z"}, {"Z", "N"}}, 1<<20)
}

func TestTheorem1(t *testing.T) {
	g := figure4(t)
	d := graphalg.NewDAG(g)
	topo, _ := graphalg.KahnOrder(d)
	pos := graphalg.Positions(topo)
	const m, y, z, n = 0, 1, 2, 3
	tests := []struct {
		name string
		u, v int
		want bool
	}{
		{"M,N: another path through Y and Z", m, n, false},
		{"M,Y: the only path", m, y, true},
		{"Y,Z: the only path", y, z, true},
		{"Y,N: not an edge", y, n, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := graphalg.CanMerge(d, pos, tc.u, tc.v); got != tc.want {
				t.Fatalf("CanMerge = %v, want %v", got, tc.want)
			}
		})
	}
	// the coarse graph of the refused fusion has the loop X -> Y -> Z -> X
	c, _ := devices.NewPreset("4xV100-pcie")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	tg, _ := graphalg.NewTargets(g, c)
	_, err := graphalg.NewCoarse(g, d, est, tg, [][]int{{m, n}, {y}, {z}})
	if !errors.Is(err, graphalg.ErrLoop) {
		t.Fatalf("merging M and N: %v, want ErrLoop", err)
	}
	// optimal fusion only merges runs of a topological order: whatever R,
	// a cluster with M and N holds Y and Z too
	cost := make([]float64, d.NumDeps())
	for k := range cost {
		cost[k] = 1
	}
	for r := 1; r <= 4; r++ {
		cl, _, err := graphalg.OptimalFusion(context.Background(), d, topo, cost, make([]int64, 4), graphalg.FusionConfig{Range: r, MaxMemory: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := graphalg.NewCoarse(g, d, est, tg, cl); err != nil {
			t.Fatalf("R=%d: clusters %v: %v", r, cl, err)
		}
	}
}

func TestOptimalFusion(t *testing.T) {
	// a chain 0..5 whose edges cost 5, 1, 5, 1, 5
	g := build(t, []string{"v0", "v1", "v2", "v3", "v4", "v5"}, []float64{1, 1, 1, 1, 1, 1},
		[][2]string{{"v0", "v1"}, {"v1", "v2"}, {"v2", "v3"}, {"v3", "v4"}, {"v4", "v5"}}, 1)
	d := graphalg.NewDAG(g)
	topo, _ := graphalg.KahnOrder(d)
	comm := []float64{0, 5, 1, 5, 1, 5} // by dependency: v_i's only input
	// dependencies are numbered by consumer: k = consumer - 1
	comm = comm[1:]
	tests := []struct {
		name string
		r    int
		mem  []int64
		m    int64
		want [][]int
		cost float64
	}{
		{"R=2: cut the cheap edges", 2, make([]int64, 6), 0, [][]int{{0, 1}, {2, 3}, {4, 5}}, 2},
		{"R=3: still the cheap edges", 3, make([]int64, 6), 0, [][]int{{0, 1}, {2, 3}, {4, 5}}, 2},
		{"R=6: one cluster", 6, make([]int64, 6), 0, [][]int{{0, 1, 2, 3, 4, 5}}, 0},
		// v2 alone exceeds M: a cluster of its own, cut on both sides
		{"M isolates v2", 6, []int64{1, 1, 10, 1, 1, 1}, 4, [][]int{{0, 1}, {2}, {3, 4, 5}}, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl, cost, err := graphalg.OptimalFusion(context.Background(), d, topo, comm, tc.mem, graphalg.FusionConfig{Range: tc.r, MaxMemory: tc.m})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cl, tc.want) || !scalar.EqualWithinAbsOrRel(cost, tc.cost, tol, tol) {
				t.Fatalf("clusters %v cost %g, want %v %g", cl, cost, tc.want, tc.cost)
			}
		})
	}
	if _, _, err := graphalg.OptimalFusion(context.Background(), d, topo, comm, make([]int64, 6), graphalg.FusionConfig{Range: 0}); err == nil {
		t.Fatal("R=0 accepted")
	}
}

func TestCoarsenRandom(t *testing.T) {
	c, _ := devices.NewPreset("4xV100-pcie")
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := workloads.RandomLayered(600, 17, seed)
			d := graphalg.NewDAG(g)
			est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
			tg, _ := graphalg.NewTargets(g, c)
			costs := graphalg.MeanCosts(d, est, tg)
			topo, _ := graphalg.KahnOrder(d)
			cpd, _ := graphalg.CPDTopo(d, graphalg.CPath(graphalg.TLevel(d, costs, topo), graphalg.BLevel(d, costs, topo)))
			mem := graphalg.OpMemories(g, est)
			cl, cut, err := graphalg.OptimalFusion(context.Background(), d, cpd, costs.Comm, mem, graphalg.FusionConfig{Range: 40, MaxMemory: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			co, err := graphalg.NewCoarse(g, d, est, tg, cl)
			if err != nil {
				t.Fatal(err)
			}
			var total, inside float64
			for _, ops := range cl {
				if len(ops) > 40 {
					t.Fatalf("cluster of %d ops with R=40", len(ops))
				}
				var m int64
				for _, op := range ops {
					m += mem[op]
					total += est.OpTime(op, 0)
				}
				if len(ops) > 1 && m > 64<<20 {
					t.Fatalf("cluster memory %d over M", m)
				}
			}
			for i := range co.Graph.Ops {
				inside += co.Graph.Ops[i].Measured[c.Devices[0].Kind.Name]
			}
			if !scalar.EqualWithinAbsOrRel(total, inside, tol, tol) {
				t.Fatalf("coarse time %g, fine %g", inside, total)
			}
			// the cut communication is what the coarse edges would cost: at most
			// the sum of fine dependencies between clusters
			var between float64
			for v := 0; v < d.Len(); v++ {
				lo, hi := d.PredRange(v)
				for k := lo; k < hi; k++ {
					if co.Of[d.PredAt(k)] != co.Of[v] {
						between += costs.Comm[k]
					}
				}
			}
			if !scalar.EqualWithinAbsOrRel(between, cut, 1e-6, 1e-6) {
				t.Fatalf("DP cost %g, communication between clusters %g", cut, between)
			}
			if len(co.Graph.Ops) >= len(g.Ops)/10 {
				t.Fatalf("%d coarse ops for %d", len(co.Graph.Ops), len(g.Ops))
			}
		})
	}
}
