package workloads

import "fmt"

// DeriveTraining returns the training step of a forward graph: for every
// forward op a gradient op (twice its FLOPs), in reverse dependency order,
// reading the forward op's inputs (activations kept for backward) and the
// gradients of its consumers; and an optimizer update op for every op with
// parameters. An op, its gradient and its update share a colocation group.
func DeriveTraining(fwd *Graph) (*Graph, error) {
	if fwd.Training {
		return nil, fmt.Errorf("graph %q is already a training graph", fwd.Name)
	}
	if _, err := fwd.TopoOrder(); err != nil {
		return nil, err
	}
	g := fwd.Clone()
	g.Training = true
	n := len(fwd.Ops)
	grad := make([]int, n)
	for i := range grad {
		grad[i] = -1
	}
	colo := func(i int) string {
		if c := fwd.Ops[i].Colocation; c != "" {
			return c
		}
		return fwd.Ops[i].Name
	}
	for i := range g.Ops {
		g.Ops[i].Colocation = colo(i)
	}
	order, _ := fwd.TopoOrder()
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		f := &fwd.Ops[i]
		if f.FLOPs == 0 && f.ParamBytes == 0 && len(fwd.In(i)) == 0 {
			continue // an input: no gradient to compute
		}
		b := Op{Name: f.Name + "/grad", Type: f.Type + "-grad", Layer: f.Layer, Role: Backward,
			FLOPs: 2 * f.FLOPs, BytesAccessed: 2 * f.BytesAccessed,
			OutputBytes: inputBytes(fwd, i) + f.ParamBytes, TempBytes: f.TempBytes, Colocation: colo(i)}
		for key, t := range f.Measured {
			if b.Measured == nil {
				b.Measured = map[string]float64{}
			}
			b.Measured[key] = 2 * t
		}
		grad[i] = g.AddOp(b)
		// the activations a gradient needs: the forward op's inputs and output
		for _, eid := range fwd.In(i) {
			e := fwd.Edges[eid]
			g.AddEdge(e.From, grad[i], e.Bytes)
		}
		g.AddEdge(i, grad[i], f.OutputBytes)
		// the gradients flowing back from its consumers
		for _, eid := range fwd.Out(i) {
			e := fwd.Edges[eid]
			if gc := grad[e.To]; gc >= 0 {
				g.AddEdge(gc, grad[i], e.Bytes)
			}
		}
		if f.ParamBytes > 0 {
			u := g.AddOp(Op{Name: f.Name + "/update", Type: "apply-gradient", Layer: f.Layer, Role: Update,
				FLOPs: 4 * float64(f.ParamBytes) / 4, BytesAccessed: 3 * f.ParamBytes, Colocation: colo(i)})
			g.AddEdge(grad[i], u, f.ParamBytes)
		}
	}
	return g, nil
}

// inputBytes is the size of the gradients w.r.t. an op's inputs.
func inputBytes(g *Graph, op int) int64 {
	var s int64
	for _, eid := range g.In(op) {
		s += g.Edges[eid].Bytes
	}
	return s
}
