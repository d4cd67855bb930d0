package fastt

import (
	"strings"

	"placesim/placers"
	"placesim/workloads"
)

// opInfo is what FastT knows about an op of the graph it schedules beyond
// workloads.Op: the zoo's ops carry shapes only implicitly (FLOPs, bytes),
// so the batch and channel sizes a split needs are derived once, from the
// request's graph, and carried through every rewrite.
type opInfo struct {
	// origin is the op of the request's graph this op derives from (its
	// replica or part), -1 for an op FastT added (split, concat, sum,
	// aggregation, weights). The cost model carries the origin's profiling
	// error over to its parts.
	origin int
	// batch is the number of samples the op processes (0: the op has no
	// batch dimension: update ops, shared variables, aggregations).
	batch int
	// perSample is true when the op's output has the batch dimension, so
	// that a consumer split along the batch reads a slice of it.
	perSample bool
	// chans is the op's output channels (conv2d) or features (matmul) when
	// they can be derived, else 0.
	chans int
	// weights is the op holding this op's weights (a shared variable of
	// the data-parallel graph, or one a split added), -1 when the op owns
	// its parameters or has none.
	weights int
	// replica is the data-parallel replica a per-sample op of a replicated
	// graph belongs to (0 in the model's own DAG); -1 for the ops the
	// replicas share (variables, aggregations, updates) and the ops FastT
	// added outside a replica.
	replica int
}

// work is a graph FastT schedules: the request's graph, its data-parallel
// replication, or a rewrite with split ops.
type work struct {
	g    *workloads.Graph
	info []opInfo
	// replicas is the data-parallel replication of the graph (1: the
	// model's own DAG).
	replicas int
}

// sharedOp reports whether op is not per-sample: an update op or a
// variable whose output is a parameter tensor.
func sharedOp(op *workloads.Op) bool {
	return op.Role == workloads.Update || workloads.GradRuleFor(op.Type).Variable
}

// gradOfParams reports whether op's output is a parameter gradient (a sum
// over the batch) rather than a per-sample tensor.
func gradOfParams(op *workloads.Op) bool {
	return strings.HasSuffix(op.Type, "-grad-weight") || op.Type == "accumulate-gradients"
}

// channels derives the output channels of an op that multiplies its input
// by its own weights (conv2d [kh,kw,cin,cout], matmul [k,n]): with 4-byte
// elements, FLOPs = 2·(output elements)·(weight elements)/cout, so
// cout = OutputBytes·ParamBytes / (8·FLOPs). 0 when the op is not such an
// op or the figures are not consistent with an integer cout.
func channels(op *workloads.Op) int {
	if op.Type != "conv2d" && op.Type != "matmul" {
		return 0
	}
	if op.ParamBytes <= 0 || op.OutputBytes <= 0 || !(op.FLOPs > 0) {
		return 0
	}
	c := float64(op.OutputBytes) * float64(op.ParamBytes) / (8 * op.FLOPs)
	n := int64(c + 0.5)
	if n < 1 || n > 1<<24 || abs(c-float64(n)) > 1e-6*c {
		return 0
	}
	if op.OutputBytes%(4*n) != 0 || op.ParamBytes%(4*n) != 0 {
		return 0
	}
	return int(n)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// modelWork is the request's graph as FastT sees it, without replication.
func modelWork(g *workloads.Graph) *work {
	w := &work{g: g, info: make([]opInfo, len(g.Ops)), replicas: 1}
	for i := range g.Ops {
		op := &g.Ops[i]
		in := opInfo{origin: i, weights: -1, chans: channels(op)}
		if !sharedOp(op) {
			in.batch = g.Batch
			in.perSample = !gradOfParams(op)
		}
		w.info[i] = in
	}
	return w
}

// unitsWithUpdate marks the colocation units that hold an update op:
// their parameters are trained.
func unitsWithUpdate(g *workloads.Graph) (unitOf []int, units [][]int, trained []bool) {
	unitOf, units = placers.Groups(g)
	trained = make([]bool, len(units))
	for u, ops := range units {
		for _, v := range ops {
			if g.Ops[v].Role == workloads.Update {
				trained[u] = true
				break
			}
		}
	}
	return unitOf, units, trained
}
