package workloads

// Deps are a graph's unique dependencies in compressed sparse rows: op
// v's are Ops[Start[v]:Start[v+1]], each with Bytes, the largest of the
// edges between the two ops. Several edges between two ops are one
// dependency (the engine sends one tensor per producer and destination
// device, and a consumer waits for its producer once). This is the one
// implementation of that rule: the engine's unrolling, graphalg's DAG
// and anything else that needs unique dependencies build on it.
type Deps struct {
	Start []int32
	Ops   []int32
	Bytes []int64
}

// Of lists v's dependencies and their bytes.
func (d *Deps) Of(v int) (ops []int32, bytes []int64) {
	lo, hi := d.Start[v], d.Start[v+1]
	return d.Ops[lo:hi], d.Bytes[lo:hi]
}

// UniquePreds returns each op's unique predecessors, in the order of
// their first edge in g.In, each with the bytes of the largest edge from
// it. g's edges must reference existing ops (a validated graph).
func (g *Graph) UniquePreds() Deps {
	n := len(g.Ops)
	return g.unique(false, Deps{}, make([]int32, n), make([]int32, n))
}

// UniqueSuccs returns each op's unique successors, in the order of their
// first edge in g.Out, each with the bytes of the largest edge to it:
// UniquePreds' rule, by producer (the engine wires a step's ops from it).
// g's edges must reference existing ops (a validated graph).
func (g *Graph) UniqueSuccs() Deps {
	n := len(g.Ops)
	return g.unique(true, Deps{}, make([]int32, n), make([]int32, n))
}

// UniqueSuccsInto is UniqueSuccs written into dst's arrays where they are
// large enough (a caller that wires the same graph many times keeps
// them), with mark and pos as scratch: len(g.Ops) each, mark all zero.
func (g *Graph) UniqueSuccsInto(dst Deps, mark, pos []int32) Deps {
	return g.unique(true, dst, mark, pos)
}

// unique is UniquePreds (out false: each op's edges in, by their
// producer) and UniqueSuccs (out true: each op's edges out, by their
// consumer), in d's arrays where they have room. The edges are grouped by
// op in one pass over g.Edges (a stable counting sort: each op's in
// g.In's or g.Out's order, both edge order), read in order rather than
// through each op's list of edge indices (at 100k ops that chase was 13 %
// of a simulated step); then each op's group keeps the first edge to each
// other op, with the largest bytes of the edges between them.
func (g *Graph) unique(out bool, d Deps, mark, pos []int32) Deps {
	n := len(g.Ops)
	if cap(d.Start) < n+1 {
		d.Start = make([]int32, n+1)
	}
	start := d.Start[:n+1]
	clear(start)
	m := len(g.Edges)
	if cap(d.Ops) < m {
		d.Ops, d.Bytes = make([]int32, m), make([]int64, m)
	}
	ops, bytes := d.Ops[:m], d.Bytes[:m]
	key := func(e *Edge) (int, int32) { // the op it is grouped by, the other end
		if out {
			return e.From, int32(e.To)
		}
		return e.To, int32(e.From)
	}
	for i := range g.Edges {
		v, _ := key(&g.Edges[i])
		start[v+1]++
	}
	for v := 0; v < n; v++ {
		start[v+1] += start[v]
	}
	// pos is the sort's cursor here, each op's next slot
	copy(pos, start[:n])
	for i := range g.Edges {
		e := &g.Edges[i]
		v, u := key(e)
		k := pos[v]
		ops[k], bytes[k] = u, e.Bytes
		pos[v]++
	}
	// mark[u] == v+1 when u is already a dependency of v, kept at pos[u]
	w := int32(0)
	for v := 0; v < n; v++ {
		lo, hi := start[v], start[v+1]
		start[v] = w
		for k := lo; k < hi; k++ {
			u, b := ops[k], bytes[k]
			if mark[u] != int32(v)+1 {
				mark[u] = int32(v) + 1
				pos[u] = w
				ops[w], bytes[w] = u, b
				w++
			} else if b > bytes[pos[u]] {
				bytes[pos[u]] = b
			}
		}
	}
	start[n] = w
	d.Start, d.Ops, d.Bytes = start, ops[:w], bytes[:w]
	return d
}
