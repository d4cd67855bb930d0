package fastt

import (
	"fmt"

	"placesim/workloads"
)

// replicate builds FastT's start graph (section 5.2): "if the model fits a
// single device, we construct a data parallel graph based on the model DAG
// as the input, where the model is replicated as many times as the number
// of devices". As TensorFlow's in-graph replication does:
//
//   - every per-sample op (forward and backward) has n replicas
//     "rep<r>/<name>", each on 1/n of the batch: FLOPs, bytes accessed
//     (but the weights read), output, workspace, measured times and
//     per-sample edges divided by n (rounded up);
//   - shared ops (update ops, variables) stay single;
//   - the weights of an op whose parameters are trained move to a shared
//     variable "<name>/weights" (type "variable", zero time) in the op's
//     colocation group, read by every replica of the op and of its input
//     gradient: replicas on another device receive a copy each step;
//   - a replica's parameter gradient reaches the update ops through an
//     aggregation "<name>/aggregate" (type "add-n") in the colocation
//     group, which sums the n partial gradients;
//   - replica r of a colocation group G is the group "G@rep<r>"; G keeps
//     the variables, aggregations and update ops (the master copy).
//
// With n = 1 the model's DAG is returned. Parameters that are state rather
// than trained (batch-norm moving statistics) are kept by every replica.
func replicate(g *workloads.Graph, n int) (*work, error) {
	if w, err := replicasOf(g, n); w != nil || err != nil {
		return w, err
	}
	unitOf, units, trained := unitsWithUpdate(g)
	N := len(g.Ops)
	shared := make([]bool, N)
	ownW := make([]bool, N) // weights move to a shared variable
	for v := range g.Ops {
		op := &g.Ops[v]
		shared[v] = sharedOp(op)
		ownW[v] = !shared[v] && op.Role == workloads.Forward && op.ParamBytes > 0 && trained[unitOf[v]]
	}
	ng := &workloads.Graph{Name: g.Name, Batch: g.Batch, Training: g.Training, Hint: g.Hint}
	w := &work{g: ng, replicas: n}
	add := func(op workloads.Op, in opInfo) int {
		id := ng.AddOp(op)
		w.info = append(w.info, in)
		return id
	}
	// rep[r][v]: replica r of per-sample op v
	rep := make([][]int, n)
	div := func(x int64) int64 { return (x + int64(n) - 1) / int64(n) }
	for r := 0; r < n; r++ {
		rep[r] = make([]int, N)
		for v := range g.Ops {
			if shared[v] {
				continue
			}
			op := g.Ops[v]
			op.Name = fmt.Sprintf("rep%d/%s", r, op.Name)
			op.FLOPs /= float64(n)
			var own int64
			if ownW[v] {
				own = op.ParamBytes
				op.ParamBytes = 0
			}
			op.BytesAccessed, op.FixedBytes = batchShare(&op, own, n)
			op.OutputBytes = div(op.OutputBytes)
			op.TempBytes = div(op.TempBytes)
			op.Measured = measuredOver(op.Measured, n)
			if op.Colocation != "" {
				op.Colocation = fmt.Sprintf("%s@rep%d", op.Colocation, r)
			}
			rep[r][v] = add(op, opInfo{origin: v, batch: g.Batch / n, perSample: !gradOfParams(&g.Ops[v]), chans: channels(&g.Ops[v]), weights: -1, replica: r})
		}
	}
	single := make([]int, N)
	for v := range g.Ops {
		if shared[v] {
			single[v] = add(g.Ops[v], opInfo{origin: v, weights: -1, replica: -1})
		}
	}
	// shared weights of the ops whose parameters are trained
	for v := range g.Ops {
		if !ownW[v] {
			continue
		}
		op := &g.Ops[v]
		wv := add(workloads.Op{Name: op.Name + "/weights", Type: "variable", Layer: op.Layer, Role: workloads.Forward,
			ParamBytes: op.ParamBytes, Colocation: op.Colocation}, opInfo{origin: -1, weights: -1, replica: -1})
		readers := []int{v}
		for _, x := range units[unitOf[v]] {
			if x != v && g.Ops[x].Type == op.Type+"-grad" {
				readers = append(readers, x)
			}
		}
		for r := 0; r < n; r++ {
			for _, x := range readers {
				ng.AddEdge(wv, rep[r][x], op.ParamBytes)
				w.info[rep[r][x]].weights = wv
			}
		}
	}
	// edges; a per-sample producer feeding a shared op goes through an
	// aggregation of its replicas
	agg := make([]int, N)
	for i := range agg {
		agg[i] = -1
	}
	aggBytes := make([]int64, N)
	for _, e := range g.Edges {
		if !shared[e.From] && shared[e.To] {
			aggBytes[e.From] = max(aggBytes[e.From], e.Bytes)
		}
	}
	for _, e := range g.Edges {
		a, b := e.From, e.To
		switch {
		case !shared[a] && !shared[b]:
			bytes := e.Bytes
			if !gradOfParams(&g.Ops[a]) {
				bytes = div(bytes)
			}
			for r := 0; r < n; r++ {
				ng.AddEdge(rep[r][a], rep[r][b], bytes)
			}
		case shared[a] && !shared[b]:
			for r := 0; r < n; r++ {
				ng.AddEdge(single[a], rep[r][b], e.Bytes)
			}
		case !shared[a] && shared[b]:
			if agg[a] < 0 {
				op := &g.Ops[a]
				pb := aggBytes[a]
				agg[a] = add(workloads.Op{Name: op.Name + "/aggregate", Type: "add-n", Layer: op.Layer, Role: op.Role,
					FLOPs: float64(n-1) * float64(pb/4), BytesAccessed: int64(n+1) * pb, OutputBytes: op.OutputBytes,
					Colocation: op.Colocation, CPUOnly: op.CPUOnly}, opInfo{origin: -1, weights: -1, replica: -1})
				for r := 0; r < n; r++ {
					x := rep[r][a]
					ng.Ops[x].OutputBytes = max(ng.Ops[x].OutputBytes, pb) // the partial gradient is sent
					ng.AddEdge(x, agg[a], pb)
				}
			}
			ng.AddEdge(agg[a], single[b], e.Bytes)
		default:
			ng.AddEdge(single[a], single[b], e.Bytes)
		}
	}
	if err := ng.Validate(); err != nil {
		return nil, fmt.Errorf("replicate %q: %w", g.Name, err)
	}
	return w, nil
}

// replicasOf checks a replica count n for g (n >= 1, dividing the batch)
// for both ways of replicating it (replicate, replicateAllReduce): with
// n = 1 it returns the model's own DAG, otherwise nil and nil (go on).
func replicasOf(g *workloads.Graph, n int) (*work, error) {
	if n < 1 {
		return nil, fmt.Errorf("replicate %q: %d replicas (valid range: >= 1)", g.Name, n)
	}
	if n == 1 {
		return modelWork(g), nil
	}
	if g.Batch%n != 0 {
		return nil, fmt.Errorf("replicate %q: batch %d is not divisible by %d replicas", g.Name, g.Batch, n)
	}
	return nil, nil
}

// measuredOver is an op's measured times (by device kind) for 1/n of its
// work: a replica's or a split part's share; nil stays nil.
func measuredOver(m map[string]float64, n int) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, t := range m {
		out[k] = t / float64(n)
	}
	return out
}

// batchShare is the bytes an op accesses on 1/n of its batch, and of them
// the fixed ones: its FixedBytes (workloads.Op: whole tensors, the same
// at any batch) and at least own (the weights it reads), whole, and the
// rest divided by n.
func batchShare(op *workloads.Op, own int64, n int) (bytes, fixed int64) {
	fixed = min(max(op.FixedBytes, own), op.BytesAccessed)
	return workloads.BatchShareBytes(op.BytesAccessed, fixed, n), fixed
}
