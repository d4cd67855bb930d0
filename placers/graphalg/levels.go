package graphalg

// TLevel is the top level of every op (Celeritas eq. 2): the longest path
// from a source to the op, excluding the op's own time,
//
//	tlevel(v) = 0 for a source, max over p in pred(v) of tlevel(p) + w_p + c_{p,v}.
//
// order must be a topological order of d (e.g. KahnOrder).
func TLevel(d *DAG, c *Costs, order []int) []float64 {
	tl := make([]float64, d.Len())
	for _, v := range order {
		lo, hi := d.PredRange(v)
		m := 0.0
		for k := lo; k < hi; k++ {
			p := d.PredAt(k)
			if x := tl[p] + c.W[p] + c.Comm[k]; x > m {
				m = x
			}
		}
		tl[v] = m
	}
	return tl
}

// BLevel is the bottom level of every op (Celeritas eq. 3; HEFT's upward
// rank with mean costs): the longest path from the op to a sink, including
// the op's own time,
//
//	blevel(v) = w_v + max over s in succ(v) of c_{v,s} + blevel(s)  (w_v for a sink).
//
// order must be a topological order of d.
func BLevel(d *DAG, c *Costs, order []int) []float64 {
	bl := make([]float64, d.Len())
	for i := len(order) - 1; i >= 0; i-- {
		v := order[i]
		lo, hi := d.SuccRange(v)
		m := 0.0
		for j := lo; j < hi; j++ {
			s := d.SuccAt(j)
			if x := c.Comm[d.DepOfSucc(j)] + bl[s]; x > m {
				m = x
			}
		}
		bl[v] = c.W[v] + m
	}
	return bl
}

// CPath is tlevel + blevel per op: the length of the longest path through
// it (Celeritas section 5.1.3, cpath).
func CPath(tl, bl []float64) []float64 {
	cp := make([]float64, len(tl))
	for i := range cp {
		cp[i] = tl[i] + bl[i]
	}
	return cp
}

// CriticalPath returns a longest source-to-sink path (ops in order) and its
// length, with computation and communication: it starts at the source of
// largest blevel and follows, at each op, the successor s maximising
// c_{v,s} + blevel(s) (ties: the smaller op ID).
func CriticalPath(d *DAG, c *Costs, order []int) (path []int, length float64) {
	if d.Len() == 0 {
		return nil, 0
	}
	bl := BLevel(d, c, order)
	v := -1
	for u := 0; u < d.Len(); u++ {
		if d.InDegree(u) == 0 && (v < 0 || bl[u] > bl[v]) {
			v = u
		}
	}
	length = bl[v]
	for v >= 0 {
		path = append(path, v)
		lo, hi := d.SuccRange(v)
		next, best := -1, -1.0
		for j := lo; j < hi; j++ {
			s := d.SuccAt(j)
			x := c.Comm[d.DepOfSucc(j)] + bl[s]
			if x > best || (x == best && s < next) {
				next, best = s, x
			}
		}
		v = next
	}
	return path, length
}
