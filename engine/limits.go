package engine

import (
	"fmt"
	"math/bits"
	"unsafe"

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
	reps, m := count(u.reps), uint64(u.m)
	nodes := reps.mul(m).mul(uint64(u.nPer + u.nRec)).add(reps.mul(uint64(u.nOnce)))
	// edges: every op-level edge per micro-batch and replica, twice where
	// recomputed or accumulated
	ne := len(u.opPreds) // unique op-level edges; a step counts every edge
	if u.step {
		ne = len(u.g.Edges)
	}
	edges := reps.mul(m).mul(2 * uint64(ne+1))
	if u.reps > 1 {
		side := reps.mul(2*uint64(u.reps) + 1).mul(uint64(max(1, len(u.l.stageDev))))
		if u.l.sched == PipeDream {
			side = side.mul(m)
		}
		nodes = nodes.add(side)
		edges = edges.add(side.mul(3))
	}
	need := nodes.mul(uint64(perNodeBytes)).add(edges.mul(uint64(perEdgeBytes)))
	what := fmt.Sprintf("%d micro-batches x %d replicas x %d ops", u.m, u.reps, u.n)
	const maxIndex = 1<<31 - 1 // nodes and edges are indexed by int32
	switch {
	case need.over:
		return fmt.Errorf("%w: %s: the unrolled step's size overflows 64 bits (lower pipeline.microBatches or dataParallel.replicas)", ErrTooLarge, what)
	case nodes.v > maxIndex || edges.v > maxIndex:
		return fmt.Errorf("%w: %s unroll to %d instances and %d edges (valid: at most %d each; lower pipeline.microBatches or dataParallel.replicas)", ErrTooLarge, what, nodes.v, edges.v, maxIndex)
	case need.v > uint64(limit):
		return fmt.Errorf("%w: %s unroll to %d instances and %d edges, about %s to simulate, above the limit of %s (lower pipeline.microBatches or dataParallel.replicas, or raise the memory limit)",
			ErrTooLarge, what, nodes.v, edges.v, units.Bytes(int64(need.v)), units.Bytes(limit))
	}
	return nil
}

// checked is a count whose arithmetic remembers an overflow.
type checked struct {
	v    uint64
	over bool
}

// count is n as a checked count.
func count(n int) checked { return checked{v: uint64(n)} }

// mul is c*b.
func (c checked) mul(b uint64) checked {
	hi, lo := bits.Mul64(c.v, b)
	return checked{lo, c.over || hi != 0}
}

// add is c+b.
func (c checked) add(b checked) checked {
	sum, carry := bits.Add64(c.v, b.v, 0)
	return checked{sum, c.over || b.over || carry != 0}
}
