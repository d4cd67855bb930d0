package engine

import (
	"fmt"
	"unsafe"

	"placesim/internal/checked"
	"placesim/internal/units"
)

// DefaultMaxMemory is the memory a simulation may take for itself when
// Options.MaxMemory is 0: 4 GiB.
const DefaultMaxMemory int64 = 4 << 30

// maxMemory is the effective limit of the options.
func (o Options) maxMemory() int64 {
	if o.MaxMemory > 0 {
		return o.MaxMemory
	}
	return DefaultMaxMemory
}

// perNodeBytes is what the executor keeps for every node: the instance
// (with its offsets into the successors, inputs and transfers) and its
// identity, its device, start and end times, a ready-queue entry and its
// op-end event, and the copy of its identity in Result.Instances.
const perNodeBytes = int64(unsafe.Sizeof(instance{})+unsafe.Sizeof(instanceID{})) + 4 + 16 +
	int64(unsafe.Sizeof(readyItem{})+unsafe.Sizeof(event{})) + 4*3 + 1 + 4

// perEdgeBytes is what the executor keeps for every node-level edge: the
// predecessor, the successor with its bytes, and a transfer in the worst
// case.
const perEdgeBytes = 4 + 4 + 8 + int64(unsafe.Sizeof(transfer{}))

// checkSize estimates, before any node is allocated, the nodes and edges
// the unrolled plan will have and the memory they need, and refuses a plan
// above limit with ErrTooLarge (the arithmetic is checked: a count that
// overflows is refused too). Side nodes (all-reduce steps, stashes) are
// bounded by 2r+1 per replica and stage (per micro-batch with PipeDream).
func (u *unrolled) checkSize(limit int64) error {
	reps, m := checked.CountOf(int64(u.reps)), uint64(u.m)
	nodes := reps.Mul(m).Mul(uint64(u.nPer + u.nRec)).Add(reps.Mul(uint64(u.nOnce)))
	// edges: every op-level edge per micro-batch and replica, twice where
	// recomputed or accumulated
	ne := len(u.opPreds) // unique op-level edges; a step counts every edge
	if u.step {
		ne = len(u.g.Edges)
	}
	edges := reps.Mul(m).Mul(2 * uint64(ne+1))
	if u.reps > 1 {
		side := reps.Mul(2*uint64(u.reps) + 1).Mul(uint64(max(1, len(u.l.stageDev))))
		if u.l.sched == PipeDream {
			side = side.Mul(m)
		}
		nodes = nodes.Add(side)
		edges = edges.Add(side.Mul(3))
	}
	need := nodes.Mul(uint64(perNodeBytes)).Add(edges.Mul(uint64(perEdgeBytes)))
	what := fmt.Sprintf("%d micro-batches x %d replicas x %d ops", u.m, u.reps, u.n)
	const maxIndex = 1<<31 - 1 // nodes and edges are indexed by int32
	nv, _ := nodes.Value()
	ev, _ := edges.Value()
	needV, ok := need.Value()
	switch {
	case !ok:
		return fmt.Errorf("%w: %s: the unrolled step's size overflows 64 bits (lower pipeline.microBatches or dataParallel.replicas)", ErrTooLarge, what)
	case nv > maxIndex || ev > maxIndex:
		return fmt.Errorf("%w: %s unroll to %d instances and %d edges (valid: at most %d each; lower pipeline.microBatches or dataParallel.replicas)", ErrTooLarge, what, nv, ev, maxIndex)
	case needV > uint64(limit):
		return fmt.Errorf("%w: %s unroll to %d instances and %d edges, about %s to simulate, above the limit of %s (lower pipeline.microBatches or dataParallel.replicas, or raise the memory limit)",
			ErrTooLarge, what, nv, ev, units.Bytes(int64(needV)), units.Bytes(limit))
	}
	return nil
}
