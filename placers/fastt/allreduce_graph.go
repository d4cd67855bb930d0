package fastt

import (
	"fmt"

	"placesim/workloads"
)

// Gradient exchanges of FastT's replicated graph (option exchange).
const (
	// ExchangeSum sums the replicas' gradients on one device and copies
	// the weights back to every replica (TensorFlow's in-graph
	// replication with shared variables: replicate).
	ExchangeSum = "sum"
	// ExchangeAllReduce gives every replica its own weights and update
	// ops and exchanges each parameter's gradient by a ring all-reduce
	// inside the graph (replicateAllReduce), the collective the engine's
	// data parallelism plays.
	ExchangeAllReduce = "allreduce"
)

// replicateAllReduce is FastT's start graph (section 5.2) with the
// gradients exchanged as data parallelism exchanges them today: a ring
// all-reduce (as the engine's data parallelism and NCCL's ring run it:
// n-1 reduce-scatter steps, then n-1 all-gather steps, each replica
// sending a 1/n chunk to the next at every step) rather than a sum on one
// device. Every op has n replicas "rep<r>/<name>" in the colocation group
// "G@rep<r>": per-sample ops on 1/n of the batch (figures divided as in
// replicate, but the weights they read), the ops the replicas share in
// TensorFlow's in-graph replication (variables, updates) whole on every
// replica, which keeps its own weights. Each op whose output a shared op
// reads (a parameter gradient) feeds a ring of 2(n-1) steps per replica,
// "<name>/allreduce<s>", in its replica's group (a reduce-scatter step
// adds the received chunk, an all-gather step copies it); the last step
// feeds the replica's update ops. The link time of the ring is the
// engine's; NCCL's latencies and the slowdown of overlapped compute that
// the engine's collective model adds are not in the graph.
func replicateAllReduce(g *workloads.Graph, n int) (*work, error) {
	if w, err := replicasOf(g, n); w != nil || err != nil {
		return w, err
	}
	N := len(g.Ops)
	shared := make([]bool, N)
	for v := range g.Ops {
		shared[v] = sharedOp(&g.Ops[v])
	}
	ng := &workloads.Graph{Name: g.Name, Batch: g.Batch, Training: g.Training, Hint: g.Hint}
	w := &work{g: ng, replicas: n}
	add := func(op workloads.Op, in opInfo) int {
		id := ng.AddOp(op)
		w.info = append(w.info, in)
		return id
	}
	div := func(x int64) int64 { return (x + int64(n) - 1) / int64(n) }
	group := func(c string, r int) string {
		if c == "" {
			return ""
		}
		return fmt.Sprintf("%s@rep%d", c, r)
	}
	rep := make([][]int, n)
	for r := 0; r < n; r++ {
		rep[r] = make([]int, N)
		for v := range g.Ops {
			op := g.Ops[v]
			op.Name = fmt.Sprintf("rep%d/%s", r, op.Name)
			op.Colocation = group(op.Colocation, r)
			in := opInfo{origin: v, weights: -1, replica: r, chans: channels(&g.Ops[v])}
			if !shared[v] {
				op.FLOPs /= float64(n)
				op.BytesAccessed, op.FixedBytes = batchShare(&op, op.ParamBytes, n)
				op.OutputBytes = div(op.OutputBytes)
				op.TempBytes = div(op.TempBytes)
				op.Measured = measuredOver(op.Measured, n)
				in.batch, in.perSample = g.Batch/n, !gradOfParams(&g.Ops[v])
			}
			rep[r][v] = add(op, in)
		}
	}
	// the gradients the shared ops read, by producer: the bytes of the ring
	ring := make([]int64, N)
	for _, e := range g.Edges {
		if !shared[e.From] && shared[e.To] {
			ring[e.From] = max(ring[e.From], e.Bytes)
		}
	}
	last := make([][]int, n) // last[r][a]: the last ring step of producer a on replica r
	for r := range last {
		last[r] = make([]int, N)
	}
	steps := 2 * (n - 1)
	for a, bytes := range ring {
		if bytes <= 0 {
			continue
		}
		op := &g.Ops[a]
		chunk := div(bytes)
		prev := make([]int, n)
		for r := range prev {
			prev[r] = rep[r][a]
			ng.Ops[prev[r]].OutputBytes = max(ng.Ops[prev[r]].OutputBytes, bytes)
		}
		for s := 0; s < steps; s++ {
			cur := make([]int, n)
			for r := 0; r < n; r++ {
				x := workloads.Op{Name: fmt.Sprintf("rep%d/%s/allreduce%d", r, op.Name, s), Type: "add-n", Layer: op.Layer, Role: op.Role,
					BytesAccessed: 3 * chunk, OutputBytes: bytes, Colocation: group(op.Colocation, r), CPUOnly: op.CPUOnly}
				if s < n-1 {
					x.FLOPs = float64(chunk / 4) // reduce-scatter: add the received chunk
				} else {
					x.Type, x.BytesAccessed = "concat", 2*chunk // all-gather: place it
				}
				cur[r] = add(x, opInfo{origin: -1, weights: -1, replica: r})
			}
			for r := 0; r < n; r++ {
				ng.AddEdge(prev[r], cur[r], 0)             // the replica's own buffer
				ng.AddEdge(prev[(r+n-1)%n], cur[r], chunk) // the chunk from the previous replica
			}
			prev = cur
		}
		for r := 0; r < n; r++ {
			last[r][a] = prev[r]
		}
	}
	for _, e := range g.Edges {
		a, b := e.From, e.To
		for r := 0; r < n; r++ {
			switch {
			case !shared[a] && shared[b]:
				ng.AddEdge(last[r][a], rep[r][b], e.Bytes)
			case !shared[a] && !gradOfParams(&g.Ops[a]):
				ng.AddEdge(rep[r][a], rep[r][b], div(e.Bytes))
			default:
				ng.AddEdge(rep[r][a], rep[r][b], e.Bytes)
			}
		}
	}
	if err := ng.Validate(); err != nil {
		return nil, fmt.Errorf("replicate %q: %w", g.Name, err)
	}
	return w, nil
}
