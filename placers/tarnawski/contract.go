package tarnawski

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"placesim/placers/tarnawski/maxload"
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

// buildDPGraph runs the preprocessing of Appendix E on the model's graph:
//
//  1. contract each colour class's forward nodes into one node and its
//     backward nodes into another (backward and update ops are the
//     backward side);
//  2. contract strongly connected components of the contracted graph
//     (a colocation-respecting contiguous split keeps them together);
//  3. keep the forward and backward parts of a device-colocated set as
//     one forward node and its backward image, merging parts that must
//     share a device, and repeat 2-3 until nothing changes;
//  4. give every backward part without a forward one (orphaned) an
//     artificial forward node, and mirror the backward edges at orphans
//     as forward edges so the artificial nodes are not isolated;
//  5. contract any cycle the mirror edges create.
//
// The DP then splits the forward graph; a forward part's backward image
// goes with it and its costs count on the same device.
func buildDPGraph(m *maxload.Model) (*dpGraph, error) {
	g := m.Graph
	n := len(g.Ops)
	uf := newUnionFind(n)
	type key struct {
		colo string
		fwd  bool
	}
	first := map[key]int{}
	for i := range g.Ops {
		op := &g.Ops[i]
		if op.Colocation == "" {
			continue
		}
		k := key{op.Colocation, isForward(op)}
		if j, ok := first[k]; ok {
			uf.union(i, j)
		} else {
			first[k] = i
		}
	}
	// pairs of forward and backward parts of one colour class
	var pairs [][2]int
	for k, i := range first {
		if k.fwd {
			if j, ok := first[key{k.colo, false}]; ok {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return a[0] - b[0] })
	var dev unionFind
	for iter := 0; ; iter++ {
		if iter > n+1 {
			return nil, fmt.Errorf("tarnawski: preprocessing of graph %q did not converge", g.Name)
		}
		changed := false
		// 2. strongly connected components of the contracted graph
		for _, comp := range sccs(contractedSuccs(g, uf)) {
			for _, v := range comp[1:] {
				changed = uf.union(comp[0], v) || changed
			}
		}
		// 3. device-colocated sets: a colour class's two parts, and the
		// forward and backward members of a part
		dev = append(unionFind(nil), uf...)
		for _, p := range pairs {
			dev.union(p[0], p[1])
		}
		fwdRoot := map[int]int{} // device set -> its forward part
		bwdRoot := map[int]int{}
		hasFwd := make([]bool, n)
		for i := range g.Ops {
			if isForward(&g.Ops[i]) {
				hasFwd[uf.find(i)] = true
			}
		}
		for i := 0; i < n; i++ {
			if uf.find(i) != i {
				continue
			}
			d := dev.find(i)
			side := bwdRoot
			if hasFwd[i] {
				side = fwdRoot
			}
			if r, ok := side[d]; ok {
				changed = uf.union(r, i) || changed
			} else {
				side[d] = i
			}
		}
		if !changed {
			break
		}
		// a merge can create new cycles or join parts: go again
		for i := 0; i < n; i++ {
			uf.find(i)
		}
	}
	return finishDPGraph(m, uf, dev)
}

// contractedSuccs is the graph of the parts (indexed by op; a non-root
// op has no edges): an edge between two parts for every op edge between
// them.
func contractedSuccs(g *workloads.Graph, uf unionFind) [][]int {
	succ := make([][]int, len(g.Ops))
	for _, e := range g.Edges {
		a, b := uf.find(e.From), uf.find(e.To)
		if a != b {
			succ[a] = append(succ[a], b)
		}
	}
	for i := range succ {
		slices.Sort(succ[i])
		succ[i] = slices.Compact(succ[i])
	}
	return succ
}

// finishDPGraph numbers the device sets as DP nodes, adds the forward and
// mirror edges, contracts cycles and sums the costs.
func finishDPGraph(m *maxload.Model, uf, dev unionFind) (*dpGraph, error) {
	g := m.Graph
	n := len(g.Ops)
	fwdPart := make([]bool, n) // part root -> has a forward op
	for i := range g.Ops {
		if isForward(&g.Ops[i]) {
			fwdPart[uf.find(i)] = true
		}
	}
	// number the device sets in order of their first op
	setNode := map[int]int{}
	nodeOfOp := make([]int, n)
	for i := 0; i < n; i++ {
		d := dev.find(i)
		id, ok := setNode[d]
		if !ok {
			id = len(setNode)
			setNode[d] = id
		}
		nodeOfOp[i] = id
	}
	nn := len(setNode)
	hasFwd := make([]bool, nn)
	for i := 0; i < n; i++ {
		if fwdPart[uf.find(i)] {
			hasFwd[nodeOfOp[i]] = true
		}
	}
	edges := map[[2]int]bool{}
	for _, e := range g.Edges {
		pu, pv := uf.find(e.From), uf.find(e.To)
		a, b := nodeOfOp[e.From], nodeOfOp[e.To]
		if a == b {
			continue
		}
		switch {
		case fwdPart[pu] && fwdPart[pv]:
			edges[[2]int{a, b}] = true
		case !fwdPart[pu] && !fwdPart[pv] && (!hasFwd[a] || !hasFwd[b]):
			// mirror of a backward edge at an orphan
			edges[[2]int{b, a}] = true
		}
	}
	// 5. contract cycles of the DP graph (only mirror edges can make them)
	succ := make([][]int, nn)
	for e := range edges {
		succ[e[0]] = append(succ[e[0]], e[1])
	}
	for i := range succ {
		slices.Sort(succ[i])
	}
	merge := newUnionFind(nn)
	for _, comp := range sccs(succ) {
		for _, v := range comp[1:] {
			merge.union(comp[0], v)
		}
	}
	final := map[int]int{}
	dg := &dpGraph{name: g.Name, nodeOf: make([]int32, n)}
	for i := 0; i < n; i++ {
		r := merge.find(nodeOfOp[i])
		id, ok := final[r]
		if !ok {
			id = len(final)
			final[r] = id
			dg.ops = append(dg.ops, nil)
		}
		dg.nodeOf[i] = int32(id)
		dg.ops[id] = append(dg.ops[id], i)
	}
	dg.n = len(final)
	dg.artificial = make([]bool, dg.n)
	for i := range dg.artificial {
		dg.artificial[i] = true
	}
	for i := 0; i < n; i++ {
		if isForward(&g.Ops[i]) {
			dg.artificial[dg.nodeOf[i]] = false
		}
	}
	dg.pred = make([][]int32, dg.n)
	dg.succ = make([][]int32, dg.n)
	seen := map[[2]int32]bool{}
	keys := make([][2]int, 0, len(edges))
	for e := range edges {
		keys = append(keys, e)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, e := range keys {
		a, b := int32(final[merge.find(e[0])]), int32(final[merge.find(e[1])])
		if a == b || seen[[2]int32{a, b}] {
			continue
		}
		seen[[2]int32{a, b}] = true
		dg.succ[a] = append(dg.succ[a], b)
		dg.pred[b] = append(dg.pred[b], a)
	}
	for v := range dg.succ {
		slices.Sort(dg.succ[v])
		slices.Sort(dg.pred[v])
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
