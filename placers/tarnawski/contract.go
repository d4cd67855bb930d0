package tarnawski

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"placesim/placers/maxload"
	"placesim/workloads"
)

// dpGraph is the graph the DP runs on, after the preprocessing of
// Appendix E: every node is a forward part (a contracted colour class or
// strongly connected component) together with its backward image, or an
// artificial forward node standing for orphaned backward nodes.
type dpGraph struct {
	name string
	n    int
	// ops of each node: its forward ops and their backward images
	ops [][]int
	// artificial marks nodes with no forward op (orphans' images)
	artificial []bool
	// pred and succ are the DP edges (forward edges and mirror edges)
	pred, succ [][]int32
	// sums over each node's ops
	pAcc, pCPU []float64
	size       []int64
	cpuOnly    []int32
	// hyper are the hyperedges over DP nodes (merged when equal)
	hyper []dpHyper
	// nodeOf maps an op to its DP node
	nodeOf []int32
}

type dpHyper struct {
	nodes []int32
	cost  float64
}

// unionFind over ints.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

func (u unionFind) find(x int) int {
	for int(u[x]) != x {
		u[x] = u[u[x]]
		x = int(u[x])
	}
	return x
}

// union joins the sets of a and b (the smaller root wins, so results do
// not depend on the order of calls) and reports whether they were apart.
func (u unionFind) union(a, b int) bool {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return false
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u[rb] = int32(ra)
	return true
}

func isForward(op *workloads.Op) bool { return op.Role == workloads.Forward }

// zeroTime is the time (seconds) below which the trivial-node merges take
// a node's cost as zero: 1e-6 ms, the threshold of the artifact's
// performTrivialNodeOptimizations (throughput-dp/dp.cpp).
const zeroTime = 1e-9

// classEdge is an edge of the forward graph between two colour classes: a
// forward edge, or the mirror image of a backward edge at an orphan.
type classEdge struct {
	from, to int32
	mirror   bool
}

// buildDPGraph runs the preprocessing of Appendix E, as the artifact's
// throughput-dp/dp.cpp does it, on the model's graph. A colour class is an
// op's colocation group (an op without one is a class of its own, the
// artifact's default); backward and update ops are the backward side.
//
//  1. Each class's forward ops are contracted into one forward node and
//     its backward ops into one backward node; the DP splits the forward
//     nodes and takes each class's backward node along with its forward
//     node (and counts its costs on the same device).
//  2. A class with backward ops only (orphaned) gets an artificial forward
//     node, and every backward edge (u', v') at an orphan is mirrored as
//     the forward edge (v, u) between the images, so that the artificial
//     nodes are not isolated.
//  3. The strongly connected components of the forward graph are merged
//     into one class each: a colocation-respecting contiguous split keeps
//     them together.
//  4. Trivial-node merges, repeated until none applies: a forward node
//     whose ops take no time, with no edge to or from a backward node and
//     exactly one forward neighbour, and whose class's backward ops take
//     no time, is merged with its class into that neighbour's class.
//
// The DP nodes are the classes (forward node and backward image), numbered
// in the order of their first op.
func buildDPGraph(m *maxload.Model) (*dpGraph, error) {
	g := m.Graph
	n := len(g.Ops)
	cls := make([]int32, n)
	byName := map[string]int32{}
	C := 0
	for i := range g.Ops {
		if c := g.Ops[i].Colocation; c != "" {
			if id, ok := byName[c]; ok {
				cls[i] = id
				continue
			}
			byName[c] = int32(C)
		}
		cls[i] = int32(C)
		C++
	}
	hasFwd := make([]bool, C)
	for i := range g.Ops {
		if isForward(&g.Ops[i]) {
			hasFwd[cls[i]] = true
		}
	}
	// 1-2. the forward graph over classes, with the mirror edges
	var edges []classEdge
	for _, e := range g.Edges {
		a, b := cls[e.From], cls[e.To]
		if a == b {
			continue
		}
		fa, fb := isForward(&g.Ops[e.From]), isForward(&g.Ops[e.To])
		switch {
		case fa && fb:
			edges = append(edges, classEdge{a, b, false})
		case !fa && !fb && (!hasFwd[a] || !hasFwd[b]):
			edges = append(edges, classEdge{b, a, true})
		}
	}
	// 3. strongly connected components
	uf := newUnionFind(C)
	succ := make([][]int, C)
	for _, e := range edges {
		succ[e.from] = append(succ[e.from], int(e.to))
	}
	for i := range succ {
		slices.Sort(succ[i])
		succ[i] = slices.Compact(succ[i])
	}
	for _, comp := range sccs(succ) {
		for _, v := range comp[1:] {
			uf.union(comp[0], v)
		}
	}
	// 4. trivial-node merges
	trivialMerges(m, cls, edges, uf)
	return numberDPGraph(m, cls, edges, uf)
}

// trivialMerges applies the trivial-node merges of buildDPGraph (step 4)
// to the classes in uf until none applies. Each pass merges every node
// that qualifies at its start: two such merges never conflict, since a
// qualifying node's one neighbour is its only link to the graph.
func trivialMerges(m *maxload.Model, cls []int32, edges []classEdge, uf unionFind) {
	g := m.Graph
	C := len(uf)
	noCPU := m.L() == 0
	opZero := func(i int) bool {
		return m.AccTime[i] < zeroTime && (noCPU || m.CPUTime[i] < zeroTime)
	}
	fwdZero := make([]bool, C)
	bwdZero := make([]bool, C)
	bwdNbr := make([]bool, C)
	count := make([]int32, C)
	nbr := make([]int32, C)
	var keys []uint64
	for {
		for c := range fwdZero {
			fwdZero[c], bwdZero[c], bwdNbr[c], count[c] = true, true, false, 0
		}
		for i := range g.Ops {
			r := uf.find(int(cls[i]))
			if isForward(&g.Ops[i]) {
				fwdZero[r] = fwdZero[r] && opZero(i)
			} else {
				bwdZero[r] = bwdZero[r] && opZero(i)
			}
		}
		for _, e := range g.Edges {
			fa, fb := isForward(&g.Ops[e.From]), isForward(&g.Ops[e.To])
			switch {
			case fa && !fb:
				bwdNbr[uf.find(int(cls[e.From]))] = true
			case !fa && fb:
				bwdNbr[uf.find(int(cls[e.To]))] = true
			}
		}
		// forward neighbours: distinct (neighbour, kind) pairs, as the
		// artifact keeps true and artificial edges apart
		keys = keys[:0]
		for _, e := range edges {
			a, b := uint64(uf.find(int(e.from))), uint64(uf.find(int(e.to)))
			if a == b {
				continue
			}
			k := uint64(0)
			if e.mirror {
				k = 1
			}
			keys = append(keys, a<<33|b<<1|k, b<<33|a<<1|k)
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, k := range keys {
			a := k >> 33
			count[a]++
			nbr[a] = int32(k >> 1 & (1<<32 - 1))
		}
		merged := false
		for c := 0; c < C; c++ {
			if uf.find(c) != c || !fwdZero[c] || !bwdZero[c] || bwdNbr[c] || count[c] != 1 {
				continue
			}
			merged = uf.union(c, int(nbr[c])) || merged
		}
		if !merged {
			return
		}
	}
}

// numberDPGraph makes the DP graph of the classes in uf: one node per
// class, numbered in the order of its first op, with the forward and
// mirror edges between classes.
func numberDPGraph(m *maxload.Model, cls []int32, edges []classEdge, uf unionFind) (*dpGraph, error) {
	g := m.Graph
	n := len(g.Ops)
	id := make([]int32, len(uf))
	for i := range id {
		id[i] = -1
	}
	dg := &dpGraph{name: g.Name, nodeOf: make([]int32, n)}
	for i := 0; i < n; i++ {
		r := uf.find(int(cls[i]))
		if id[r] < 0 {
			id[r] = int32(len(dg.ops))
			dg.ops = append(dg.ops, nil)
		}
		dg.nodeOf[i] = id[r]
		dg.ops[id[r]] = append(dg.ops[id[r]], i)
	}
	dg.n = len(dg.ops)
	dg.artificial = make([]bool, dg.n)
	for i := range dg.artificial {
		dg.artificial[i] = true
	}
	for i := 0; i < n; i++ {
		if isForward(&g.Ops[i]) {
			dg.artificial[dg.nodeOf[i]] = false
		}
	}
	keys := make([]uint64, 0, len(edges))
	for _, e := range edges {
		a, b := uint64(id[uf.find(int(e.from))]), uint64(id[uf.find(int(e.to))])
		if a != b {
			keys = append(keys, a<<32|b)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	dg.pred = make([][]int32, dg.n)
	dg.succ = make([][]int32, dg.n)
	for _, k := range keys {
		a, b := int32(k>>32), int32(k&(1<<32-1))
		dg.succ[a] = append(dg.succ[a], b)
		dg.pred[b] = append(dg.pred[b], a)
	}
	for v := range dg.pred {
		slices.Sort(dg.pred[v])
	}
	if !dg.acyclic() {
		return nil, fmt.Errorf("tarnawski: internal error: the contracted forward graph of %q has a cycle", g.Name)
	}
	dg.sumCosts(m)
	return dg, nil
}

// sumCosts fills the per-node sums and the hyperedges over DP nodes
// (equal node sets merged, costs summed; a hyperedge inside one node is
// never cut and is dropped).
func (dg *dpGraph) sumCosts(m *maxload.Model) {
	dg.pAcc = make([]float64, dg.n)
	dg.pCPU = make([]float64, dg.n)
	dg.size = make([]int64, dg.n)
	dg.cpuOnly = make([]int32, dg.n)
	for v, ops := range dg.ops {
		for _, op := range ops {
			if m.AccTime[op] >= 1e300 {
				dg.cpuOnly[v]++
			} else {
				dg.pAcc[v] += m.AccTime[op]
			}
			dg.pCPU[v] += m.CPUTime[op]
			dg.size[v] += m.Size[op]
		}
	}
	index := map[string]int{}
	for _, h := range m.Comm {
		var nodes []int32
		for _, op := range h.Ops {
			if v := dg.nodeOf[op]; !slices.Contains(nodes, v) {
				nodes = append(nodes, v)
			}
		}
		if len(nodes) < 2 {
			continue
		}
		slices.Sort(nodes)
		var b strings.Builder
		for _, v := range nodes {
			b.WriteString(strconv.Itoa(int(v)))
			b.WriteByte(',')
		}
		k := b.String()
		if i, ok := index[k]; ok {
			dg.hyper[i].cost += h.Cost
			continue
		}
		index[k] = len(dg.hyper)
		dg.hyper = append(dg.hyper, dpHyper{nodes: nodes, cost: h.Cost})
	}
}

// acyclic reports whether the DP graph's edges form a DAG (Kahn's
// algorithm).
func (dg *dpGraph) acyclic() bool {
	indeg := make([]int32, dg.n)
	var queue []int32
	for v := range dg.pred {
		indeg[v] = int32(len(dg.pred[v]))
		if indeg[v] == 0 {
			queue = append(queue, int32(v))
		}
	}
	seen := 0
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		seen++
		for _, w := range dg.succ[v] {
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	return seen == dg.n
}

// linearize adds a path of artificial edges along a DFS topological order
// (section 5.1.2, DPL): the graph then has one topological order and its
// ideals are its prefixes.
func (dg *dpGraph) linearize() {
	order := dg.dfsOrder()
	for i := 0; i+1 < len(order); i++ {
		a, b := order[i], order[i+1]
		if !slices.Contains(dg.succ[a], b) {
			dg.succ[a] = append(dg.succ[a], b)
			dg.pred[b] = append(dg.pred[b], a)
		}
	}
}

// dfsOrder is the reverse postorder of a depth-first search from the
// sources in index order, successors in index order: a topological order
// that keeps branches together.
func (dg *dpGraph) dfsOrder() []int32 {
	state := make([]uint8, dg.n)
	post := make([]int32, 0, dg.n)
	type frame struct{ v, next int32 }
	var stack []frame
	for s := 0; s < dg.n; s++ {
		if state[s] != 0 || len(dg.pred[s]) > 0 {
			continue
		}
		stack = append(stack, frame{int32(s), 0})
		state[s] = 1
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			succ := dg.succ[top.v]
			if int(top.next) < len(succ) {
				w := succ[top.next]
				top.next++
				if state[w] == 0 {
					state[w] = 1
					stack = append(stack, frame{w, 0})
				}
				continue
			}
			state[top.v] = 2
			post = append(post, top.v)
			stack = stack[:len(stack)-1]
		}
	}
	slices.Reverse(post)
	return post
}
