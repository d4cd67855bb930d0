package tarnawski

import (
	"context"
	"fmt"
	"math"

	"placesim/engine"
	"placesim/placers"
)

var (
	_ placers.Placer   = (*PipeDream)(nil)
	_ placers.Reporter = (*PipeDream)(nil)
)

// PipeDream is the partitioning optimizer of PipeDream (Narayanan et al.,
// SOSP'19, section 3.1) as Tarnawski et al. run it as a baseline (section
// 6): it needs a linear chain of layers, so every branching of the graph
// is contracted to one node (the nodes between two consecutive nodes that
// are comparable with all others), and it splits the chain into
// consecutive stages on the accelerators with its dynamic program without
// replication:
//
//	A(j, 1) = T(1..j);  A(j, m) = min over i < j of max(A(i, m-1), C(i), T(i+1..j))
//
// where T is a stage's compute (forward and backward) and C(i) the
// communication across the cut after chain node i, a pipeline step of its
// own (PipeDream overlaps communication with compute). The split is then
// scored, like every other, in the max-load model.
type PipeDream struct{ pipe pipelineOpts }

// NewPipeDream makes the pipedream placer (options pipeline, micro-batches).
func NewPipeDream(a PipelineArgs) (placers.Placer, error) { return &PipeDream{pipe: a.Pipeline}, nil }

// Name implements placers.Placer.
func (*PipeDream) Name() string { return "pipedream" }

// MemoryAware implements placers.MemoryAware: every stage fits its
// device's memory in the max-load model, or Place fails with
// placers.ErrDoesNotFit.
func (*PipeDream) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (p *PipeDream) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := p.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter.
func (p *PipeDream) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	m, err := prepare(p.Name(), req)
	if err != nil {
		return nil, nil, err
	}
	dg, err := buildDPGraph(m)
	if err != nil {
		return nil, nil, err
	}
	for v := 0; v < dg.n; v++ {
		if dg.cpuOnly[v] > 0 {
			return nil, nil, fmt.Errorf("pipedream places on accelerators only, and op %q cannot run on one", m.Graph.Ops[dg.ops[v][0]].Name)
		}
	}
	chain := chainSegments(dg)
	// prefix ideals of the chain: their sums and crossing costs
	T := len(chain)
	comp := make([]float64, T+1)
	mem := make([]int64, T+1)
	cut := make([]float64, T+1)
	in := make([]bool, dg.n)
	for j, seg := range chain {
		comp[j+1], mem[j+1] = comp[j], mem[j]
		for _, v := range seg {
			comp[j+1] += dg.pAcc[v]
			mem[j+1] += dg.size[v]
			in[v] = true
		}
		for _, h := range dg.hyper {
			k := 0
			for _, v := range h.nodes {
				if in[v] {
					k++
				}
			}
			if k > 0 && k < len(h.nodes) {
				cut[j+1] += h.cost
			}
		}
	}
	K := m.K()
	inf := math.Inf(1)
	A := make([][]float64, K+1)
	from := make([][]int, K+1)
	for s := range A {
		A[s] = make([]float64, T+1)
		from[s] = make([]int, T+1)
		for j := range A[s] {
			A[s][j] = inf
		}
	}
	A[0][0] = 0
	for s := 1; s <= K; s++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for j := 1; j <= T; j++ {
			for i := 0; i < j; i++ {
				if math.IsInf(A[s-1][i], 1) || mem[j]-mem[i] > m.AccMem {
					continue
				}
				v := math.Max(A[s-1][i], comp[j]-comp[i])
				if i > 0 {
					v = math.Max(v, cut[i])
				}
				if v < A[s][j] {
					A[s][j], from[s][j] = v, i
				}
			}
		}
	}
	best, bs := inf, 0
	for s := 1; s <= K; s++ {
		if A[s][T] < best {
			best, bs = A[s][T], s
		}
	}
	if math.IsInf(best, 1) {
		return nil, nil, infeasible(m, dg, "split of the contracted chain")
	}
	var parts []part
	for j, s := T, bs; s > 0; s-- {
		i := from[s][j]
		var nodes []int32
		for _, seg := range chain[i:j] {
			nodes = append(nodes, seg...)
		}
		parts = append(parts, part{nodes: nodes})
		j = i
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	notes := []string{fmt.Sprintf("chain of %d nodes after contracting branchings; PipeDream's objective %.6f ms", T, best*1e3)}
	return finish(m, assignParts(m, dg, parts), p.pipe, "max-load", notes)
}

// chainSegments contracts the branchings of dg to a path: a node that is
// an ancestor or descendant of every other node (an articulation point of
// the DAG) is a segment of its own; the nodes between two consecutive such
// nodes form one segment. Segments are in topological order.
//
// A node is comparable with every other when it has n-1 ancestors and
// descendants in all. They are counted 64 target nodes at a time: one pass
// in topological order carries, per node, the bits of the block's nodes it
// descends from (one word per node), and one in reverse order those it
// reaches, so the memory is linear in the graph and the time
// O(n (n + m) / 64).
func chainSegments(dg *dpGraph) [][]int32 {
	n := dg.n
	order := dg.dfsOrder()
	cmp := make([]int32, n) // ancestors plus descendants
	bits := make([]uint64, n)
	for lo := 0; lo < n; lo += 64 {
		in := func(u int32) uint64 {
			if int(u) >= lo && int(u) < lo+64 {
				return 1 << (uint(int(u) - lo))
			}
			return 0
		}
		clear(bits)
		for _, v := range order {
			var a uint64
			for _, u := range dg.pred[v] {
				a |= bits[u] | in(u)
			}
			bits[v] = a
			cmp[v] += int32(popcount(a))
		}
		clear(bits)
		for i := n - 1; i >= 0; i-- {
			v := order[i]
			var d uint64
			for _, s := range dg.succ[v] {
				d |= bits[s] | in(s)
			}
			bits[v] = d
			cmp[v] += int32(popcount(d))
		}
	}
	var segs [][]int32
	var cur []int32
	for _, v := range order {
		comparable := int(cmp[v])+1 == n
		if comparable {
			if len(cur) > 0 {
				segs = append(segs, cur)
				cur = nil
			}
			segs = append(segs, []int32{v})
			continue
		}
		cur = append(cur, v)
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}
