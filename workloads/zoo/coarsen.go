package zoo

import (
	"placesim/workloads"
)

// layerGraph is a graph with what the training derivation needs to know
// about its parameters.
type layerGraph struct {
	g *workloads.Graph
	// tensors: parameter tensor sizes (bytes) by op ID, for ops with several.
	tensors map[int][]int64
	// state: bytes of ParamBytes that are not trained (moving statistics).
	state map[int]int64
}

// opGraph returns the operator-granularity graph with its parameter facts.
func (n *net) opGraph() layerGraph {
	st := map[int]int64{}
	for i := range n.g.Ops {
		op := &n.g.Ops[i]
		if op.ParamBytes > 0 && workloads.GradRuleFor(op.Type).NoGradient {
			st[i] = op.ParamBytes
		}
	}
	return layerGraph{g: n.g, tensors: n.tensors, state: st}
}

// coarsen returns the layer-granularity graph: one op per block with the
// block's summed FLOPs, bytes accessed and parameters, and one edge per
// pair of blocks carrying the distinct tensors that cross it.
//
// Memory: a block's output buffer holds the tensors its ops send to other
// blocks and, in a training step, the tensors inside the block that the
// backward pass reads (by the types' GradRuleFor): those live until the
// block's gradient has run, as they would op by op. The block's other
// intermediate tensors are workspace (TempBytes), an upper bound of what
// the ops in sequence need at once.
func (n *net) coarsen() layerGraph {
	src := n.g
	nb := len(n.blocks)
	members := make([][]int, nb)
	for i := range src.Ops {
		b := n.blockOf[i]
		members[b] = append(members[b], i)
	}
	// saved[u]: u's output is read by a gradient
	saved := make([]bool, len(src.Ops))
	external := make([]bool, len(src.Ops))
	for v := range src.Ops {
		r := workloads.GradRuleFor(src.Ops[v].Type)
		if r.NoGradient {
			continue
		}
		if r.Saved == workloads.SavedOutput || r.Saved == workloads.SavedInputsOutput {
			saved[v] = true
		}
		readsIn := r.Saved == workloads.SavedInputs || r.Saved == workloads.SavedInputsOutput || r.Saved == workloads.SavedOthers
		for _, eid := range src.In(v) {
			u := src.Edges[eid].From
			if readsIn {
				saved[u] = true
			}
			if n.blockOf[u] != n.blockOf[v] {
				external[u] = true
			}
		}
	}

	g := workloads.NewGraph(src.Name, src.Batch)
	lg := layerGraph{g: g, tensors: map[int][]int64{}, state: map[int]int64{}}
	newID := make([]int, nb)
	for b, ms := range members {
		newID[b] = -1
		if len(ms) == 0 {
			continue
		}
		bl := n.blocks[b]
		op := workloads.Op{Name: bl.name, Type: bl.typ, Layer: bl.layer}
		if len(ms) == 1 {
			op.Type = src.Ops[ms[0]].Type
		}
		var tensors []int64
		var state int64
		var maxTemp, internal int64
		for _, u := range ms {
			m := &src.Ops[u]
			op.FLOPs += m.FLOPs
			op.BytesAccessed += m.BytesAccessed
			op.FixedBytes += m.FixedBytes
			op.ParamBytes += m.ParamBytes
			maxTemp = max(maxTemp, m.TempBytes)
			if external[u] || (n.train && saved[u]) {
				op.OutputBytes += m.OutputBytes
			} else {
				internal += m.OutputBytes
			}
			switch {
			case m.ParamBytes == 0:
			case workloads.GradRuleFor(m.Type).NoGradient:
				state += m.ParamBytes
			case n.tensors[u] != nil:
				tensors = append(tensors, n.tensors[u]...)
			default:
				tensors = append(tensors, m.ParamBytes)
			}
		}
		op.TempBytes = maxTemp + internal
		id := g.AddOp(op)
		newID[b] = id
		if len(tensors) > 1 {
			lg.tensors[id] = tensors
		}
		if state > 0 {
			lg.state[id] = state
		}
	}

	// one edge per block pair: the sum over producers of the largest edge
	// each producer sends into the consumer block (a tensor travels once)
	type pair struct{ from, to int32 }
	total := map[pair]int64{}
	var pairs []pair
	into := map[int32]int64{} // per producer: consumer block -> bytes
	for u := range src.Ops {
		clear(into)
		bu := n.blockOf[u]
		var order []int32
		for _, eid := range src.Out(u) {
			e := src.Edges[eid]
			bv := n.blockOf[e.To]
			if bv == bu {
				continue
			}
			if _, ok := into[bv]; !ok {
				order = append(order, bv)
			}
			into[bv] = max(into[bv], e.Bytes)
		}
		for _, bv := range order {
			p := pair{bu, bv}
			if _, ok := total[p]; !ok {
				pairs = append(pairs, p)
			}
			total[p] += into[bv]
		}
	}
	for _, p := range pairs {
		g.AddEdge(newID[p.from], newID[p.to], total[p])
	}
	return lg
}
