package pesto

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"placesim/devices"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// CoarsenOptions tune Coarsen.
type CoarsenOptions struct {
	// Target is the vertex count at which merging stops (section 3.3:
	// about 200); a graph already that small is not merged.
	Target int
	// GroupCap bounds, as a fraction of the graph's total, the estimated
	// compute of a placement group (the vertices that colocation ties to
	// one device) that a merge may create, and MemCap its memory; 0 is no
	// bound.
	// Training graphs colocate every op with its gradient ops, so merging
	// forward ops also ties their backward ops: without a bound a few
	// merges can tie most of the graph to one device and leave the ILP
	// nothing to balance ("maintaining parallelizability").
	GroupCap, MemCap float64
	// VertexCap bounds a merged vertex's estimated compute, as a multiple
	// of the mean compute per vertex at the target (total / Target); 0 is
	// no bound. Heavy-edge merging alone grows a few vertices along the
	// main tensor flow until they swallow parallel branches; a bound keeps
	// the vertices comparable so the coarse graph stays parallel. When a
	// batch can merge nothing within the bound, the bound doubles.
	VertexCap float64
}

// Edge is a dependency between two coarse vertices.
type Edge struct {
	To int
	// Bytes is the sum of the bytes of the fine dependencies it stands for
	// (the cut edges' bytes).
	Bytes int64
}

// Coarse is a graph coarsened by Coarsen: each vertex is a set of fine ops
// (a merged vertex), with the summed estimated compute and memory of its
// members; edges carry the bytes of the fine dependencies between them.
// Placement groups join vertices whose ops share a colocation unit: a group
// goes to one device.
type Coarse struct {
	// Fine is the graph that was coarsened.
	Fine *workloads.Graph
	// Members lists each vertex's fine ops in a topological order of Fine.
	Members [][]int
	// Of maps a fine op to its vertex.
	Of []int
	// Succ lists each vertex's successors (by increasing vertex), Pred its
	// predecessors (increasing).
	Succ [][]Edge
	Pred [][]int
	// Group maps a vertex to its placement group; NumGroups is their count.
	Group     []int
	NumGroups int
	// GroupCPU tells, per group, that its ops must run on a CPU device.
	GroupCPU []bool
	// Compute is each vertex's summed estimated time (the members' mean
	// time over their target devices), Memory its summed footprint
	// (graphalg.OpMemories: parameters, and the activations a
	// training step keeps for its backward ops).
	Compute []float64
	Memory  []int64
	// Batches is the number of merge batches run.
	Batches int
}

// Len is the number of vertices.
func (c *Coarse) Len() int { return len(c.Members) }

// level is the graph of one coarsening batch.
type level struct {
	succ [][]Edge
	pred [][]int
}

func (l *level) n() int { return len(l.succ) }

// heights is Definition 3.4: the number of vertices on the longest path
// from a root to v (roots have height 1), by Kahn's algorithm removing all
// ready vertices at once (footnote 1). It fails on a cycle.
func (l *level) heights() ([]int, error) {
	n := l.n()
	h := make([]int, n)
	indeg := make([]int, n)
	var ready []int
	for v := 0; v < n; v++ {
		indeg[v] = len(l.pred[v])
		if indeg[v] == 0 {
			h[v] = 1
			ready = append(ready, v)
		}
	}
	seen := 0
	for len(ready) > 0 {
		var next []int
		for _, v := range ready {
			seen++
			for _, e := range l.succ[v] {
				if h[v]+1 > h[e.To] {
					h[e.To] = h[v] + 1
				}
				if indeg[e.To]--; indeg[e.To] == 0 {
					next = append(next, e.To)
				}
			}
		}
		ready = next
	}
	if seen != n {
		return nil, fmt.Errorf("coarse graph has a cycle through %d of its %d vertices", n-seen, n)
	}
	return h, nil
}

// single is condition (ii) of Theorem 3.5 for merging edge (u, v): u has
// one successor, or v one predecessor, or H(v) = H(u) + 1, or every other
// successor w of u has H(w) > H(u) + d = H(v). Each makes (u, v) the only
// path from u to v (Theorem 3.2).
func (l *level) single(u, v int, h []int) bool {
	if len(l.succ[u]) == 1 || len(l.pred[v]) == 1 || h[v] == h[u]+1 {
		return true
	}
	for _, e := range l.succ[u] {
		if e.To != v && h[e.To] <= h[v] {
			return false
		}
	}
	return true
}

// batch is a set of pairs being chosen for one merge batch.
type batch struct {
	l      *level
	h      []int
	mate   []int // partner in the batch, -1
	asHead []bool
}

func newBatch(l *level, h []int) *batch {
	b := &batch{l: l, h: h, mate: make([]int, l.n()), asHead: make([]bool, l.n())}
	for i := range b.mate {
		b.mate[i] = -1
	}
	return b
}

// allows reports whether pair (u, v), an edge, may join the batch under
// Theorem 3.5: (i) u and v are in no chosen pair; (ii) single; (iii) for
// every chosen pair (u', v'), neither (u, v') nor (u', v) is an edge
// between pairs whose tails have the same height. The paper prints (iii)
// as "h(u_i) != h(v_j) + d_j or (u_i, v_j) not in E"; since d_j = H(v_j) -
// H(u_j), the condition its proof and Figure 6 need is h(u_i) != h(v_j) -
// d_j = h(u_j): a cycle after a batch of merges that each satisfy (ii) can
// only run u_i -> v_j -> (merged) u_j -> v_k ... with every tail at one
// height.
func (b *batch) allows(u, v int) bool {
	l, h := b.l, b.h
	if u == v || b.mate[u] >= 0 || b.mate[v] >= 0 || !l.single(u, v, h) {
		return false
	}
	for _, e := range l.succ[u] { // (u, v') with v' a chosen head
		if w := e.To; w != v && b.mate[w] >= 0 && !b.asHead[w] && h[b.mate[w]] == h[u] {
			return false
		}
	}
	for _, p := range l.pred[v] { // (u', v) with u' a chosen tail
		if p != u && b.mate[p] >= 0 && b.asHead[p] && h[p] == h[u] {
			return false
		}
	}
	return true
}

func (b *batch) add(u, v int) {
	b.mate[u], b.mate[v] = v, u
	b.asHead[u] = true
}

// contract merges the batch's pairs: it returns the new vertex of each old
// one and the contracted level (parallel edges summed, self loops of the
// merged edges dropped).
func (l *level) contract(mate []int) ([]int, *level) {
	n := l.n()
	newOf := make([]int, n)
	for i := range newOf {
		newOf[i] = -1
	}
	k := 0
	for v := 0; v < n; v++ {
		if newOf[v] >= 0 {
			continue
		}
		newOf[v] = k
		if m := mate[v]; m >= 0 {
			newOf[m] = k
		}
		k++
	}
	nl := &level{succ: make([][]Edge, k), pred: make([][]int, k)}
	for v := 0; v < n; v++ {
		a := newOf[v]
		for _, e := range l.succ[v] {
			if b := newOf[e.To]; b != a {
				nl.succ[a] = append(nl.succ[a], Edge{To: b, Bytes: e.Bytes})
			}
		}
	}
	for a := range nl.succ {
		s := nl.succ[a]
		slices.SortFunc(s, func(x, y Edge) int { return x.To - y.To })
		out := s[:0]
		for _, e := range s {
			if len(out) > 0 && out[len(out)-1].To == e.To {
				out[len(out)-1].Bytes += e.Bytes
				continue
			}
			out = append(out, e)
		}
		nl.succ[a] = out
		for _, e := range out {
			nl.pred[e.To] = append(nl.pred[e.To], a)
		}
	}
	return newOf, nl
}

// groups is a union-find of placement groups with their compute and memory.
type groups struct {
	parent  []int
	compute []float64
	memory  []int64
}

func (g *groups) find(x int) int {
	for g.parent[x] != x {
		g.parent[x] = g.parent[g.parent[x]]
		x = g.parent[x]
	}
	return x
}

// join unites the groups of a and b when the result stays within the caps;
// it reports whether they are (now) one group.
func (g *groups) join(a, b int, capC float64, capM int64) bool {
	ra, rb := g.find(a), g.find(b)
	if ra == rb {
		return true
	}
	if g.compute[ra]+g.compute[rb] > capC || g.memory[ra]+g.memory[rb] > capM {
		return false
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	g.parent[rb] = ra
	g.compute[ra] += g.compute[rb]
	g.memory[ra] += g.memory[rb]
	return true
}

// Coarsen merges vertices of g in batches (section 3.3) until at most
// o.Target remain or no merge is allowed. Each batch computes the heights
// and walks the edges by decreasing bytes (the estimated communication the
// merge saves), choosing every edge that Theorem 3.5 allows with the pairs
// chosen so far, whose two ends need the same kind of device (accelerator
// or CPU), and whose merge keeps the placement group within
// o.GroupCap and o.MemCap; it stops early once the batch reaches the target. Every
// batch is checked to leave the graph acyclic. Ties break by vertex
// number, so the result is deterministic.
func Coarsen(ctx context.Context, g *workloads.Graph, est *devices.Estimates, o CoarsenOptions) (*Coarse, error) {
	if len(g.Ops) == 0 {
		return nil, fmt.Errorf("coarsen %q: the graph has no ops", g.Name)
	}
	for _, x := range []float64{o.GroupCap, o.MemCap} {
		if x < 0 || x > 1 || math.IsNaN(x) {
			return nil, fmt.Errorf("coarsen %q: group cap %g (valid range: [0, 1])", g.Name, x)
		}
	}
	if o.VertexCap < 0 || math.IsNaN(o.VertexCap) {
		return nil, fmt.Errorf("coarsen %q: vertex cap %g (valid: >= 0)", g.Name, o.VertexCap)
	}
	tg, err := graphalg.NewTargets(g, est.Cluster)
	if err != nil {
		return nil, fmt.Errorf("coarsen %q: %w", g.Name, err)
	}
	d := graphalg.NewDAG(g)
	order, err := graphalg.KahnOrder(d)
	if err != nil {
		return nil, fmt.Errorf("coarsen %q: %w", g.Name, err)
	}
	n := len(g.Ops)
	c := &Coarse{Fine: g, Of: make([]int, n)}
	// fine weights
	compute := make([]float64, n)
	memory := graphalg.OpMemories(g, est)
	var totC float64
	var totM int64
	for v := 0; v < n; v++ {
		var s float64
		targets := tg.Of(v)
		for _, dev := range targets {
			s += est.OpTime(v, dev)
		}
		if len(targets) > 0 {
			compute[v] = s / float64(len(targets))
		}
		if math.IsInf(compute[v], 0) || math.IsNaN(compute[v]) {
			return nil, fmt.Errorf("coarsen %q: op %q has no finite time on its target devices", g.Name, g.Ops[v].Name)
		}
		totC += compute[v]
		totM += memory[v]
	}
	capC, capM := math.Inf(1), int64(math.MaxInt64)
	if o.GroupCap > 0 {
		capC = o.GroupCap * totC
	}
	if o.MemCap > 0 {
		capM = int64(o.MemCap * float64(totM))
	}
	// placement groups start as the colocation units
	gr := &groups{parent: make([]int, len(tg.Units)), compute: make([]float64, len(tg.Units)), memory: make([]int64, len(tg.Units))}
	unitCPU := make([]bool, len(tg.Units))
	for u, ops := range tg.Units {
		gr.parent[u] = u
		for _, op := range ops {
			gr.compute[u] += compute[op]
			gr.memory[u] += memory[op]
		}
		unitCPU[u] = tg.NeedsCPU(ops[0])
	}
	// level 0: the fine DAG; vertex v's unit (any member's unit stands for
	// the vertex's group, since members share a group)
	l := &level{succ: make([][]Edge, n), pred: make([][]int, n)}
	for v := 0; v < n; v++ {
		lo, hi := d.SuccRange(v)
		for j := lo; j < hi; j++ {
			l.succ[v] = append(l.succ[v], Edge{To: d.SuccAt(j), Bytes: d.BytesAt(d.DepOfSucc(j))})
		}
		slices.SortFunc(l.succ[v], func(x, y Edge) int { return x.To - y.To })
		for _, e := range l.succ[v] {
			l.pred[e.To] = append(l.pred[e.To], v)
		}
	}
	capV := math.Inf(1)
	if o.VertexCap > 0 && o.Target > 0 {
		capV = o.VertexCap * totC / float64(o.Target)
	}
	vc := append([]float64(nil), compute...) // current vertices' compute
	unitOfV := make([]int, n)                // a unit of each current vertex
	for v := range c.Of {
		c.Of[v] = v
		unitOfV[v] = tg.UnitOf[v]
	}
	type cand struct {
		u, v  int
		bytes int64
	}
	var cands []cand
	for l.n() > o.Target {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := l.heights()
		if err != nil {
			return nil, fmt.Errorf("coarsen %q: batch %d: %w", g.Name, c.Batches, err)
		}
		cands = cands[:0]
		for u := range l.succ {
			for _, e := range l.succ[u] {
				cands = append(cands, cand{u, e.To, e.Bytes})
			}
		}
		sort.Slice(cands, func(i, j int) bool {
			a, b := cands[i], cands[j]
			if a.bytes != b.bytes {
				return a.bytes > b.bytes
			}
			if a.u != b.u {
				return a.u < b.u
			}
			return a.v < b.v
		})
		b := newBatch(l, h)
		left := l.n()
		for _, e := range cands {
			if left <= o.Target {
				break
			}
			uu, uv := unitOfV[e.u], unitOfV[e.v]
			if unitCPU[uu] != unitCPU[uv] || vc[e.u]+vc[e.v] > capV || !b.allows(e.u, e.v) {
				continue
			}
			if !gr.join(uu, uv, capC, capM) {
				continue
			}
			b.add(e.u, e.v)
			left--
		}
		if left == l.n() {
			if !math.IsInf(capV, 1) {
				capV *= 2
				if capV > totC {
					capV = math.Inf(1)
				}
				continue
			}
			break // no merge allowed
		}
		newOf, nl := l.contract(b.mate)
		if _, err := nl.heights(); err != nil {
			return nil, fmt.Errorf("coarsen %q: batch %d produced a cycle (a bug in the merge conditions): %w", g.Name, c.Batches, err)
		}
		nu := make([]int, nl.n())
		nvc := make([]float64, nl.n())
		for v, a := range newOf {
			nu[a] = unitOfV[v]
			nvc[a] += vc[v]
		}
		vc = nvc
		for i := range c.Of {
			c.Of[i] = newOf[c.Of[i]]
		}
		l, unitOfV = nl, nu
		c.Batches++
	}
	// vertices, members in the fine topological order
	nv := l.n()
	c.Members = make([][]int, nv)
	for _, op := range order {
		a := c.Of[op]
		c.Members[a] = append(c.Members[a], op)
	}
	c.Succ, c.Pred = l.succ, l.pred
	c.Compute = make([]float64, nv)
	c.Memory = make([]int64, nv)
	for op := 0; op < n; op++ {
		a := c.Of[op]
		c.Compute[a] += compute[op]
		c.Memory[a] += memory[op]
	}
	// groups: number the union-find roots of the vertices' units
	c.Group = make([]int, nv)
	id := map[int]int{}
	for a := 0; a < nv; a++ {
		r := gr.find(unitOfV[a])
		k, ok := id[r]
		if !ok {
			k = len(id)
			id[r] = k
			c.GroupCPU = append(c.GroupCPU, unitCPU[r])
		}
		c.Group[a] = k
	}
	c.NumGroups = len(id)
	return c, nil
}
