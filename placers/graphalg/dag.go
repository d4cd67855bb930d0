package graphalg

import (
	"placesim/workloads"
)

// DAG is a read-only, compact view of a workloads.Graph for scheduling
// algorithms: for each op its unique predecessors and successors, each
// dependency carrying the bytes of the largest edge between the two ops
// (the engine sends one tensor per producer and destination device, so
// parallel edges are one dependency). Dependencies are stored in CSR form;
// position k in the predecessor arrays identifies a dependency for per-edge
// costs (see Costs.PredComm and Schedule.Comm).
type DAG struct {
	n         int
	predStart []int32
	pred      []int32
	predBytes []int64
	succStart []int32
	succ      []int32
	succBytes []int64
	// succPos maps a successor position to the predecessor position of the
	// same dependency, so per-edge costs are shared by both views.
	succPos []int32
}

// NewDAG builds the view of g. g's edges must reference existing ops (a
// validated graph); predecessors are in g's edge order (first
// occurrence), successors in increasing op ID.
func NewDAG(g *workloads.Graph) *DAG {
	n := len(g.Ops)
	d := &DAG{n: n}
	preds := g.UniquePreds()
	d.predStart, d.pred, d.predBytes = preds.Start, preds.Ops, preds.Bytes
	// successors: the transpose of the predecessor lists (by consumer ID)
	d.succStart = make([]int32, n+1)
	for _, u := range d.pred {
		d.succStart[u+1]++
	}
	for u := 0; u < n; u++ {
		d.succStart[u+1] += d.succStart[u]
	}
	m := len(d.pred)
	d.succ = make([]int32, m)
	d.succBytes = make([]int64, m)
	d.succPos = make([]int32, m)
	fill := append([]int32(nil), d.succStart[:n]...)
	for v := 0; v < n; v++ {
		for k := d.predStart[v]; k < d.predStart[v+1]; k++ {
			u := d.pred[k]
			j := fill[u]
			fill[u]++
			d.succ[j], d.succBytes[j], d.succPos[j] = int32(v), d.predBytes[k], k
		}
	}
	return d
}

// Len is the number of ops.
func (d *DAG) Len() int { return d.n }

// NumDeps is the number of unique dependencies.
func (d *DAG) NumDeps() int { return len(d.pred) }

// Pred lists v's unique predecessors.
func (d *DAG) Pred(v int) []int32 { return d.pred[d.predStart[v]:d.predStart[v+1]] }

// PredRange is the range [lo, hi) of v's dependencies in the predecessor
// arrays: PredAt(k) and BytesAt(k) for k in it.
func (d *DAG) PredRange(v int) (lo, hi int) { return int(d.predStart[v]), int(d.predStart[v+1]) }

// PredAt is the predecessor of dependency k.
func (d *DAG) PredAt(k int) int { return int(d.pred[k]) }

// BytesAt is the bytes dependency k carries.
func (d *DAG) BytesAt(k int) int64 { return d.predBytes[k] }

// Succ lists v's unique successors.
func (d *DAG) Succ(v int) []int32 { return d.succ[d.succStart[v]:d.succStart[v+1]] }

// SuccRange is the range [lo, hi) of v's outgoing dependencies in the
// successor arrays: SuccAt(j) and DepOfSucc(j) for j in it.
func (d *DAG) SuccRange(v int) (lo, hi int) { return int(d.succStart[v]), int(d.succStart[v+1]) }

// SuccAt is the successor at successor position j.
func (d *DAG) SuccAt(j int) int { return int(d.succ[j]) }

// DepOfSucc is the dependency index k (a predecessor position) of the
// dependency at successor position j.
func (d *DAG) DepOfSucc(j int) int { return int(d.succPos[j]) }

// InDegree is the number of v's unique predecessors.
func (d *DAG) InDegree(v int) int { return int(d.predStart[v+1] - d.predStart[v]) }

// OutDegree is the number of v's unique successors.
func (d *DAG) OutDegree(v int) int { return int(d.succStart[v+1] - d.succStart[v]) }
