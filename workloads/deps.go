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
	// mark[u] == v+1 when u is already a predecessor of v, at pos[u]
	mark := make([]int32, n)
	pos := make([]int32, n)
	d := Deps{Start: make([]int32, n+1), Ops: make([]int32, 0, len(g.Edges)), Bytes: make([]int64, 0, len(g.Edges))}
	for v := 0; v < n; v++ {
		d.Start[v] = int32(len(d.Ops))
		for _, eid := range g.In(v) {
			e := &g.Edges[eid]
			u := int32(e.From)
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
