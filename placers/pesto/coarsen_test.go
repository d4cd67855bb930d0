package pesto

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/placers/graphalg"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// tol is the relative tolerance of sums computed in a different order.
const tol = 1e-9

// levelOf builds a level from edges over n vertices.
func levelOf(n int, edges [][2]int) *level {
	l := &level{succ: make([][]Edge, n), pred: make([][]int, n)}
	for _, e := range edges {
		l.succ[e[0]] = append(l.succ[e[0]], Edge{To: e[1], Bytes: 1})
	}
	for u := range l.succ {
		s := l.succ[u]
		for i := 1; i < len(s); i++ {
			for j := i; j > 0 && s[j].To < s[j-1].To; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		for _, e := range s {
			l.pred[e.To] = append(l.pred[e.To], u)
		}
	}
	return l
}

func TestTheorem35Refusals(t *testing.T) {
	const A, B, C, D = 0, 1, 2, 3
	tests := []struct {
		name    string
		n       int
		edges   [][2]int
		chosen  [][2]int // pairs accepted first
		pair    [2]int
		allowed bool
	}{
		// Figure 6: (A, C) and (B, D) each merge alone, but not together
		{"figure 6 first pair", 4, [][2]int{{A, C}, {A, D}, {B, C}, {B, D}}, nil, [2]int{A, C}, true},
		{"figure 6 second pair refused", 4, [][2]int{{A, C}, {A, D}, {B, C}, {B, D}}, [][2]int{{A, C}}, [2]int{B, D}, false},
		// u -> w -> v and u -> v: (u, v) is not the only path (Theorem 3.2)
		{"second path refused", 3, [][2]int{{0, 1}, {1, 2}, {0, 2}}, nil, [2]int{0, 2}, false},
		{"second path: first edge allowed", 3, [][2]int{{0, 1}, {1, 2}, {0, 2}}, nil, [2]int{0, 1}, true},
		// a vertex is in one pair at most (condition (i))
		{"matching", 3, [][2]int{{0, 1}, {1, 2}}, [][2]int{{0, 1}}, [2]int{1, 2}, false},
		// out-degree 1 makes the edge the only path even with a longer one
		// into v: 0 -> 1 -> 2 -> 3 and 1 -> 3; merging (2, 3) is fine
		{"out-degree one", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {1, 3}}, nil, [2]int{2, 3}, true},
		// every other successor of u higher than v: u=0 -> v=3 with H(u)=1,
		// H(v)=3 (through 1 -> 2 -> 3), and u's other successor 4 after v
		{"other successors higher", 5, [][2]int{{1, 2}, {2, 3}, {0, 3}, {0, 4}, {3, 4}}, nil, [2]int{0, 3}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := levelOf(tc.n, tc.edges)
			h, err := l.heights()
			if err != nil {
				t.Fatal(err)
			}
			b := newBatch(l, h)
			for _, p := range tc.chosen {
				if !b.allows(p[0], p[1]) {
					t.Fatalf("setup pair %v refused", p)
				}
				b.add(p[0], p[1])
			}
			if got := b.allows(tc.pair[0], tc.pair[1]); got != tc.allowed {
				t.Fatalf("allows(%v) = %v, want %v (heights %v)", tc.pair, got, tc.allowed, h)
			}
			if !tc.allowed && tc.name != "matching" {
				// the refused merge would indeed create a cycle
				b.mate[tc.pair[0]], b.mate[tc.pair[1]] = tc.pair[1], tc.pair[0]
				_, nl := l.contract(b.mate)
				if _, err := nl.heights(); err == nil {
					t.Fatalf("refused merge %v leaves the graph acyclic: the test shows nothing", tc.pair)
				}
			}
		})
	}
}

// TestBatchesStayAcyclic merges random batches that the conditions allow
// on random DAGs and checks every result is a DAG: the conditions (with
// (iii) as the proof needs it) are sufficient.
func TestBatchesStayAcyclic(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 6 + r.IntN(30)
		var edges [][2]int
		for v := 1; v < n; v++ {
			for u := 0; u < v; u++ {
				if r.Float64() < 0.25 {
					edges = append(edges, [2]int{u, v})
				}
			}
		}
		l := levelOf(n, edges)
		for round := 0; round < 4 && l.n() > 1; round++ {
			h, err := l.heights()
			if err != nil {
				t.Fatalf("seed %d round %d: %v", seed, round, err)
			}
			b := newBatch(l, h)
			var all [][2]int
			for u := range l.succ {
				for _, e := range l.succ[u] {
					all = append(all, [2]int{u, e.To})
				}
			}
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			for _, p := range all {
				if b.allows(p[0], p[1]) {
					b.add(p[0], p[1])
				}
			}
			_, l = l.contract(b.mate)
			if _, err := l.heights(); err != nil {
				t.Fatalf("seed %d round %d: a batch of allowed merges made a cycle: %v", seed, round, err)
			}
		}
	}
}

func TestCoarsenConserves(t *testing.T) {
	c, err := devices.NewPreset("2xV100-nvlink+cpu")
	if err != nil {
		t.Fatal(err)
	}
	rnn, err := zoo.Build("zoo:rnnlm?layers=2&hidden=256&seq=6&vocab=1000&batch=16&training=true")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		g      *workloads.Graph
		target int
		cap    float64
	}{
		{"random layered", workloads.RandomLayered(2000, 23, 3), 100, 0},
		{"random layered capped", workloads.RandomLayered(2000, 23, 4), 100, 0.05},
		{"rnnlm training", rnn, 60, 0.25},
		{"rnnlm training to 5", rnn, 5, 0},
		{"no merge needed", workloads.Diamond(1e-3, 1<<20), 10, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			co, err := Coarsen(context.Background(), g, est, CoarsenOptions{Target: tc.target, GroupCap: tc.cap, MemCap: tc.cap})
			if err != nil {
				t.Fatal(err)
			}
			if co.Len() > tc.target && tc.cap == 0 {
				t.Fatalf("%d vertices, target %d, no cap", co.Len(), tc.target)
			}
			// acyclic, and every fine edge goes forward in a topological
			// order of the coarse graph or stays inside a vertex
			l := &level{succ: co.Succ, pred: co.Pred}
			h, err := l.heights()
			if err != nil {
				t.Fatal(err)
			}
			d := graphalg.NewDAG(g)
			// members partition the ops
			seen := make([]bool, len(g.Ops))
			for v, ms := range co.Members {
				for _, op := range ms {
					if seen[op] || co.Of[op] != v {
						t.Fatalf("op %d listed twice or under the wrong vertex", op)
					}
					seen[op] = true
				}
			}
			// conservation: compute, memory, cut bytes
			tg, _ := graphalg.NewTargets(g, c)
			mem := graphalg.OpMemories(g, est)
			var fineC, coarseC float64
			var fineM, coarseM, fineCut, coarseCut int64
			for op := range g.Ops {
				var s float64
				for _, dv := range tg.Of(op) {
					s += est.OpTime(op, dv)
				}
				fineC += s / float64(len(tg.Of(op)))
				fineM += mem[op]
				lo, hi := d.PredRange(op)
				for k := lo; k < hi; k++ {
					a, b := co.Of[d.PredAt(k)], co.Of[op]
					if a != b {
						fineCut += d.BytesAt(k)
						if h[b] <= h[a] {
							t.Fatalf("fine edge %d -> %d runs against the coarse heights", d.PredAt(k), op)
						}
					}
				}
			}
			for v := 0; v < co.Len(); v++ {
				coarseC += co.Compute[v]
				coarseM += co.Memory[v]
				for _, e := range co.Succ[v] {
					coarseCut += e.Bytes
				}
			}
			if !scalar.EqualWithinAbsOrRel(fineC, coarseC, tol, tol) {
				t.Errorf("compute %g, fine %g", coarseC, fineC)
			}
			if fineM != coarseM {
				t.Errorf("memory %d, fine %d", coarseM, fineM)
			}
			if fineCut != coarseCut {
				t.Errorf("cut bytes %d, fine %d", coarseCut, fineCut)
			}
			// placement groups: ops of one colocation unit share a group
			unitGroup := map[int]int{}
			for op := range g.Ops {
				u, gr := tg.UnitOf[op], co.Group[co.Of[op]]
				if x, ok := unitGroup[u]; ok && x != gr {
					t.Fatalf("colocation unit of op %q split over groups %d and %d", g.Ops[op].Name, x, gr)
				}
				unitGroup[u] = gr
			}
			if tc.cap > 0 {
				gc := make([]float64, co.NumGroups)
				gm := make([]int64, co.NumGroups)
				for v := range co.Members {
					gc[co.Group[v]] += co.Compute[v]
					gm[co.Group[v]] += co.Memory[v]
				}
				for gr, x := range gc {
					// a single unit may exceed the caps; a merged group may not
					if countUnits(co, tg, gr) == 1 {
						continue
					}
					if x > tc.cap*fineC*(1+tol) || float64(gm[gr]) > tc.cap*float64(fineM)*(1+tol) {
						t.Fatalf("group %d holds %.3g of the compute and %.3g of the memory, cap %.3g", gr, x/fineC, float64(gm[gr])/float64(fineM), tc.cap)
					}
				}
			}
		})
	}
}

func countUnits(co *Coarse, tg *graphalg.Targets, gr int) int {
	units := map[int]bool{}
	for op := range co.Of {
		if co.Group[co.Of[op]] == gr {
			units[tg.UnitOf[op]] = true
		}
	}
	return len(units)
}

func TestCoarsenBadInput(t *testing.T) {
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	g := workloads.Diamond(1e-3, 1<<20)
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	for _, capv := range []float64{-0.1, 1.5} {
		t.Run(fmt.Sprint(capv), func(t *testing.T) {
			if _, err := Coarsen(context.Background(), g, est, CoarsenOptions{Target: 2, GroupCap: capv}); err == nil {
				t.Fatal("bad cap accepted")
			}
		})
	}
	empty := workloads.NewGraph("empty", 1)
	eest, _ := devices.NewEstimates(empty, c, devices.EstimateOptions{})
	if _, err := Coarsen(context.Background(), empty, eest, CoarsenOptions{Target: 2}); err == nil {
		t.Fatal("empty graph accepted")
	}
}
