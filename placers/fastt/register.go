package fastt

import (
	"placesim/placers"
)

// DataParallelArgs are data-parallel's options, which DPOS and OS-DPOS
// share for their data-parallel start.
type DataParallelArgs struct {
	// Bucket is the all-reduce bucket size in bytes; 0: one bucket.
	Bucket int
	// Overlap overlaps the all-reduce buckets with the backward pass.
	Overlap bool
}

// Declare implements placers.Args.
func (a *DataParallelArgs) Declare(d *placers.Decls) {
	d.Int(&a.Bucket, "bucket", DefaultBucketBytes, 0, 1<<40, "all-reduce bucket size in bytes; 0: one bucket")
	d.Bool(&a.Overlap, "overlap", true, "overlap the all-reduce buckets with the backward pass")
}

// DPOSArgs are fastt-dpos' options.
type DPOSArgs struct {
	DataParallelArgs
	// EnforceOrder puts the schedule's order on the plan as priorities.
	EnforceOrder bool
	// Rollback keeps the start strategy (or the unsplit plan) when it is
	// faster in the placer's own simulation.
	Rollback bool
	// ProfileRounds is how often each strategy is profiled in simulation
	// and the communication model refitted.
	ProfileRounds int
	// Start is the graph DPOS starts from (StartDataParallel, StartModel).
	Start string
	// DP is the data parallelism FastT starts from and rolls back to
	// (DPAllReduce, DPTF1).
	DP string
	// Exchange is how the replicated graph exchanges gradients
	// (ExchangeSum, ExchangeAllReduce).
	Exchange string
}

// Declare implements placers.Args.
func (a *DPOSArgs) Declare(d *placers.Decls) {
	a.DataParallelArgs.Declare(d)
	d.Bool(&a.EnforceOrder, "enforce-order", true, "the schedule's order as priorities (section 6.1)")
	d.Bool(&a.Rollback, "rollback", true,
		"keep the start strategy (or, for OS-DPOS, the unsplit plan) when faster in the placer's own simulation (section 4)")
	d.Int(&a.ProfileRounds, "profile-rounds", DefaultProfileRounds, 0, 100,
		"times each strategy is profiled in simulation and the communication model refitted (section 4); 0: uncontended model")
	placers.DeclareEnum(d, &a.Start, "start", StartDataParallel, []string{StartDataParallel, StartModel},
		"the graph DPOS starts from: the data-parallel replicas or the model graph")
	placers.DeclareEnum(d, &a.DP, "dp", DPAllReduce, []string{DPAllReduce, DPTF1},
		"the data parallelism kept when faster (rollback): allreduce (data-parallel's ring all-reduce) or tf1 (data-parallel-tf1, TensorFlow 1.x in-graph replication, the paper's baseline)")
	placers.DeclareEnum(d, &a.Exchange, "exchange", ExchangeSum, []string{ExchangeSum, ExchangeAllReduce},
		"gradients of the replicated graph DPOS starts from: sum (on one device, weights copied back) or allreduce (a ring all-reduce in the graph, weights on every replica)")
}

// OSDPOSArgs are fastt-os-dpos' options: DPOSArgs and the split search's.
type OSDPOSArgs struct {
	DPOSArgs
	// Dims are the split dimensions tried for critical-path ops.
	Dims []Dim
	// MaxTrials bounds the DPOS runs of the split search; 0: no bound.
	MaxTrials int
}

// Declare implements placers.Args.
func (a *OSDPOSArgs) Declare(d *placers.Decls) {
	a.DPOSArgs.Declare(d)
	placers.DeclareList(d, &a.Dims, "dims", Dims(), Dims(), "split dimensions tried for critical-path ops")
	d.Int(&a.MaxTrials, "max-trials", DefaultMaxTrials, 0, 1<<30, "DPOS runs in the split search at most; 0: no bound")
}

// Register adds FastT's placers and the data-parallel baseline to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("fastt-dpos", "FastT DPOS: upward-rank list scheduling from the data-parallel graph, critical path on its own device, order enforcement", NewDPOS),
		placers.Define("fastt-os-dpos", "FastT OS-DPOS: DPOS plus splitting critical-path ops along batch or channel while the estimated step time drops", NewOSDPOS),
		placers.Define("data-parallel", "data parallelism: a replica per accelerator, ring all-reduce in buckets overlapped with the backward pass", NewDataParallel),
		placers.Define("data-parallel-tf1", "data parallelism as TensorFlow 1.x slim ran it (FastT's baseline): in-graph replicas, variables, gradient sums and updates on a parameter device", NewDataParallelTF1),
	)
}
