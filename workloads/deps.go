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
// consumer), in d's arrays where they have room.
func (g *Graph) unique(out bool, d Deps, mark, pos []int32) Deps {
	n := len(g.Ops)
	// mark[u] == v+1 when u is already a dependency of v, at pos[u]
	if cap(d.Start) < n+1 {
		d.Start = make([]int32, n+1)
	}
	d.Start = d.Start[:n+1]
	if cap(d.Ops) < len(g.Edges) {
		d.Ops, d.Bytes = make([]int32, 0, len(g.Edges)), make([]int64, 0, len(g.Edges))
	}
	d.Ops, d.Bytes = d.Ops[:0], d.Bytes[:0]
	g.ensureAdj()
	lists := g.in
	if out {
		lists = g.out
	}
	for v, list := range lists[:n] {
		d.Start[v] = int32(len(d.Ops))
		for _, eid := range list {
			e := &g.Edges[eid]
			u := int32(e.From)
			if out {
				u = int32(e.To)
			}
			if mark[u] != int32(v)+1 {
				mark[u] = int32(v) + 1
				pos[u] = int32(len(d.Ops))
				d.Ops = append(d.Ops, u)
				d.Bytes = append(d.Bytes, e.Bytes)
			} else if e.Bytes > d.Bytes[pos[u]] {
				d.Bytes[pos[u]] = e.Bytes
			}
		}
	}
	d.Start[n] = int32(len(d.Ops))
	return d
}
