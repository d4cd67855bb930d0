package fastt

import (
	"context"
	"fmt"
	"math"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

var _ placers.Placer = (*DataParallel)(nil)

// DefaultBucketBytes is the gradient bucket of the data-parallel plans
// (PyTorch DDP's default bucket_cap_mb of 25).
const DefaultBucketBytes = 25 << 20

// DataParallel is plain data parallelism, FastT's baseline and start
// strategy (section 5.2, section 6.2 "DP"): the whole graph is replicated
// on every accelerator with 1/n of the batch each (strong scaling), and
// the gradients are summed by ring all-reduces on the link queues, in
// buckets overlapped with the backward pass (engine.DataParallel). On one
// accelerator it is the single-device plan. It does not check memory: a
// model that does not fit one device shows as out of memory in the
// simulation. Options: bucket (bytes, default 25 MiB; 0: one bucket),
// overlap (true|false, default true).
type DataParallel struct {
	bucket  int64
	overlap bool
}

// NewDataParallel makes a data-parallel placer (options: DataParallelArgs).
func NewDataParallel(a DataParallelArgs) (placers.Placer, error) {
	return &DataParallel{bucket: int64(a.Bucket), overlap: a.Overlap}, nil
}

// Name implements placers.Placer.
func (*DataParallel) Name() string { return "data-parallel" }

// MemoryAware implements placers.MemoryAware: data parallelism puts the
// whole model on every accelerator whatever its memory.
func (*DataParallel) MemoryAware() bool { return false }

// Place implements placers.Placer.
func (p *DataParallel) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil {
		return nil, fmt.Errorf("placement request needs a graph and a cluster")
	}
	return dataParallelPlan(req.Graph, req.Cluster, p.bucket, p.overlap)
}

// dataParallelPlan replicates g on the accelerators of c (every device
// when c has none): as many replicas as the largest divisor of the batch
// not above their number (all of them when the batch divides). It is an
// error when g has CPU-only ops, which cannot follow their replicas onto
// accelerators.
func dataParallelPlan(g *workloads.Graph, c *devices.Cluster, bucket int64, overlap bool) (*engine.Plan, error) {
	acc, _ := placers.Targets(c)
	for i := range g.Ops {
		if g.Ops[i].CPUOnly {
			return nil, fmt.Errorf("%w: graph %q: op %q is CPU-only (data parallelism replicates every op on the accelerators)", ErrNoDataParallel, g.Name, g.Ops[i].Name)
		}
	}
	if len(acc) == 0 {
		return nil, fmt.Errorf("%w: cluster %q has no device", ErrNoDataParallel, c.Name)
	}
	p := &engine.Plan{Device: make([]int, len(g.Ops))}
	for i := range p.Device {
		p.Device[i] = acc[0]
	}
	// (the ring starts at acc[0], which holds replica 0)
	acc = acc[:replicasFor(g.Batch, len(acc))]
	if len(acc) > 1 {
		ring := ringOrder(c, acc)
		devs := make([][]int, len(ring))
		for r, d := range ring {
			devs[r] = []int{d}
		}
		p.DataParallel = &engine.DataParallel{Replicas: len(acc), Devices: devs, BucketBytes: bucket, Overlap: overlap}
	}
	return p, nil
}

// ringChunk is the chunk size the ring order is chosen for.
const ringChunk = 16 << 20

// ringOrder orders the devices of a ring all-reduce (replica r sends to
// r+1) as NCCL chooses its rings: the cycle whose slowest hop is fastest
// (ties: the smallest total time), so that a ring on a DGX-1 runs over
// NVLink rather than through the CPUs. Hop times are the cluster's
// uncontended transfer times of a 16 MiB chunk. Every cycle through up to
// 9 devices is tried, starting at devs[0]; with more devices the order is
// kept.
func ringOrder(c *devices.Cluster, devs []int) []int {
	n := len(devs)
	if n < 4 || n > 9 {
		return append([]int(nil), devs...)
	}
	hop := make([]float64, n*n)
	for i, a := range devs {
		for j, b := range devs {
			if i != j {
				hop[i*n+j] = c.TransferTime(a, b, ringChunk)
			}
		}
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := append([]int(nil), perm...)
	bestMax, bestSum := math.Inf(1), math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			mx, sum := 0.0, 0.0
			for i := 0; i < n; i++ {
				t := hop[perm[i]*n+perm[(i+1)%n]]
				mx = math.Max(mx, t)
				sum += t
			}
			if mx < bestMax*(1-1e-12) || (mx <= bestMax*(1+1e-12) && sum < bestSum*(1-1e-12)) {
				bestMax, bestSum = mx, sum
				copy(best, perm)
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(1)
	out := make([]int, n)
	for i, p := range best {
		out[i] = devs[p]
	}
	return out
}

// replicasFor is the largest divisor of batch that is at most n (at least 1).
func replicasFor(batch, n int) int {
	for r := n; r > 1; r-- {
		if batch%r == 0 {
			return r
		}
	}
	return 1
}
