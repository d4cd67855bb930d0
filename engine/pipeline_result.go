package engine

import "math"

// PipelineStats are a pipelined step's figures. Times are seconds.
type PipelineStats struct {
	Schedule     Schedule `json:"schedule"`
	MicroBatches int      `json:"microBatches"`
	Recompute    bool     `json:"recompute,omitempty"`
	// Period is the steady-state time per micro-batch. A stage's spacing
	// is the mean time between the ends of consecutive micro-batches' work
	// on it (their backward, or their forward on a stage without backward
	// ops) over the middle half, micro-batches m/4 to m-1-m/4; Period is
	// the largest (the bottleneck's). For gpipe, whose forward and backward
	// phases pipeline one after the other, it is the largest forward
	// spacing plus the largest backward spacing. 0 when m < 2. It
	// approaches the max-load model's period (Tarnawski et al. §5.3) when
	// m is well above the number of stages.
	Period float64 `json:"period"`
	// PeriodPerSample is the steady-state time per sample of the step:
	// Period x MicroBatches / SamplesPerStep (for a graph of one sample,
	// msr-fiddle's, every micro-batch is a sample and it equals Period;
	// with data parallelism it is one replica's period over the samples
	// all replicas process in it). 0 when Period is.
	PeriodPerSample float64 `json:"periodPerSample,omitempty"`
	// BubbleFraction is the mean idle share of the step on the devices
	// that hold stages: 1 - sum(busy) / (devices x StepTime). Uniform
	// stages and no communication give (p-1)/(m+p-1) for gpipe and 1f1b.
	BubbleFraction float64 `json:"bubbleFraction"`
	// Stages, in pipeline order.
	Stages []StageStats `json:"stages"`
}

// StageStats summarises one stage over its replicas.
type StageStats struct {
	// Devices has the stage's device in each data-parallel replica
	// (stages of a non-contiguous split share a device).
	Devices []string `json:"devices"`
	Ops     int      `json:"ops"`
	// Busy is the stage's compute time (mean over replicas), and
	// Utilisation = Busy / StepTime.
	Busy        float64 `json:"busy"`
	Utilisation float64 `json:"utilisation"`
	// ParamBytes are the stage's parameters (one copy).
	ParamBytes int64 `json:"paramBytes"`
	// PeakMemory is the largest peak among the stage's devices (all of
	// a device's stages together).
	PeakMemory int64 `json:"peakMemory"`
	// WeightVersions is the most weight versions the stage kept at once:
	// up to p-s on stage s with PipeDream's weight stashing, 1 otherwise.
	WeightVersions int `json:"weightVersions"`
}

// DataParallelStats lists a data-parallel step's all-reduces, with the
// figures nccl-tests prints for the first update round taken together.
type DataParallelStats struct {
	Replicas int `json:"replicas"`
	// Model names the all-reduce's cost model (CollectiveModel.Name:
	// link, nccl, pytorch-ddp; "custom" for an unnamed one).
	Model string `json:"model"`
	// Algorithm is the collective algorithm of the round's all-reduces
	// (ring, tree, hierarchical; "mixed" when they differ).
	Algorithm string `json:"algorithm,omitempty"`
	// GradientBytes is what the round all-reduces: the gradients of the
	// trainable parameters, summed over stages and buckets (one replica's),
	// at DataParallel.WireBytes per element when the plan sets it.
	GradientBytes int64 `json:"gradientBytes"`
	// WireBytes is the plan's DataParallel.WireBytes: the bytes per
	// gradient element the all-reduces carried (0: the gradients' own).
	WireBytes int `json:"wireBytes,omitempty"`
	// AlgBW is nccl-tests' algorithm bandwidth, GradientBytes over the
	// time from the first all-reduce's start to the last one's end
	// (bytes/s), and BusBW its bus bandwidth, AlgBW x 2(n-1)/n for an
	// all-reduce among n replicas (nccl-tests, doc/PERFORMANCE.md).
	AlgBW      float64          `json:"algBW"`
	BusBW      float64          `json:"busBW"`
	AllReduces []AllReduceStats `json:"allReduces"`
	// SlowestReplica is the replica given the slowest GPU's speed and
	// Slowdown its compute's relative slowdown (CollectiveModel.
	// SpeedSpread); both 0 without one.
	SlowestReplica int     `json:"slowestReplica,omitempty"`
	Slowdown       float64 `json:"slowdown,omitempty"`
	// ContentionSMs and ContentionHBM are how much longer one replica's
	// backward compute took because the all-reduces ran beside it
	// (CollectiveModel.Contention, or Resources: the SMs and the memory
	// bandwidth their kernels held), summed over the all-reduces, seconds.
	ContentionSMs float64 `json:"contentionSMs,omitempty"`
	ContentionHBM float64 `json:"contentionHBM,omitempty"`
}

// AllReduceStats is one all-reduce of a stage's gradient bucket.
type AllReduceStats struct {
	// Algorithm is ring, tree or hierarchical.
	Algorithm string `json:"algorithm"`
	// AlgBW is Bytes / (End - Start) and BusBW = AlgBW x 2(n-1)/n, in
	// bytes/s (0 when the all-reduce took no time).
	AlgBW float64 `json:"algBW"`
	BusBW float64 `json:"busBW"`
	// Stage (without a pipeline, stages are derived as for one: a part of
	// a device that is contiguous in topological order), bucket within
	// it, and update round (0; the micro-batch with PipeDream).
	Stage  int   `json:"stage"`
	Bucket int   `json:"bucket"`
	Round  int   `json:"round"`
	Bytes  int64 `json:"bytes"`
	// Start is when the first replica began, End when the last replica
	// had every chunk.
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// ContentionSMs and ContentionHBM are this all-reduce's share of
	// DataParallelStats' (seconds of one replica's compute).
	ContentionSMs float64 `json:"contentionSMs,omitempty"`
	ContentionHBM float64 `json:"contentionHBM,omitempty"`
}

// Instances times every node of an unrolled plan, indexed by node.
type Instances struct {
	// Op is the op (-1 for an all-reduce step or a weight stash),
	// MicroBatch its micro-batch (-1 for an op that runs once per step)
	// and Replica its data-parallel replica.
	Op, MicroBatch, Replica []int32
	Kind                    []NodeKind
	// Device runs the node.
	Device     []int32
	Start, End []float64
	// Base, for a data-parallel plan, is each node's compute time before
	// the all-reduce model charged it anything (the slowest GPU's
	// slowdown, bucket copies, contention with an overlapping
	// all-reduce); nil otherwise. A compute node's End - Start less its
	// Base is those charges.
	Base []float64
	u    *unrolled
}

// Index is the node of op's instance for micro-batch mb on replica r (an
// op that runs once per step has one node, whatever mb), or -1 when out of
// range.
func (in *Instances) Index(op, mb, replica int) int {
	u := in.u
	if op < 0 || op >= u.n || replica < 0 || replica >= u.reps || (!u.once[op] && (mb < 0 || mb >= u.m)) {
		return -1
	}
	return int(u.node(int32(op), mb, replica%u.played))
}

// RecomputeIndex is the node that recomputes forward op for mb on replica
// r, or -1 when the op is not recomputed.
func (in *Instances) RecomputeIndex(op, mb, replica int) int {
	u := in.u
	if op < 0 || op >= u.n || !u.rec[op] || replica < 0 || replica >= u.reps || mb < 0 || mb >= u.m {
		return -1
	}
	return int(u.recNode(int32(op), mb, replica%u.played))
}

// result turns the node-level timings (r.OpStart, r.OpEnd, by node) into
// op-level ones and adds the pipeline and data-parallel statistics, from
// the nodes' costs and r's per-device figures (every replica's device
// filled in, see sim.standFor).
func (u *unrolled) result(r *Result) {
	nodes := u.nodes
	total := len(nodes)
	in := &Instances{Op: make([]int32, total), MicroBatch: make([]int32, total), Replica: make([]int32, total),
		Kind: make([]NodeKind, total), Device: make([]int32, total), Start: r.OpStart, End: r.OpEnd, u: u}
	for x, id := range u.ids {
		in.Op[x], in.MicroBatch[x], in.Replica[x], in.Kind[x] = id.op, id.mb, id.rep, id.kind
		in.Device[x] = nodes[x].out.dev
	}
	if u.base != nil {
		in.Base = append(u.base, costs(nodes[len(u.base):])...)
	}
	r.Instances = in
	r.OpStart, r.OpEnd = make([]float64, u.n), make([]float64, u.n)
	for i := range r.OpStart {
		r.OpStart[i] = math.Inf(1)
	}
	for x, id := range u.ids {
		if v := id.op; v >= 0 {
			r.OpStart[v] = math.Min(r.OpStart[v], in.Start[x])
			r.OpEnd[v] = math.Max(r.OpEnd[v], in.End[x])
		}
	}
	l := u.l
	if l.sched != "" {
		ps := &PipelineStats{Schedule: l.sched, MicroBatches: u.m, Recompute: l.recompute, Period: u.period(in)}
		if n := SamplesPerStep(u.g, u.plan); n > 0 {
			ps.PeriodPerSample = ps.Period * float64(u.m) / float64(n)
		}
		// compute time of every stage, over its replicas
		busy := make([]float64, len(l.stages))
		for x, id := range u.ids {
			if id.op >= 0 {
				busy[l.stageOf[id.op]] += nodes[x].cost
			}
		}
		for st := range l.stages {
			ss := StageStats{Ops: len(l.stages[st]), WeightVersions: u.versions[st], Busy: busy[st] / float64(u.played)}
			for _, v := range l.stages[st] {
				ss.ParamBytes += u.g.Ops[v].ParamBytes
			}
			for rep := 0; rep < u.reps; rep++ {
				d := l.dev(rep, l.stageDev[st])
				ss.Devices = append(ss.Devices, u.c.Devices[d].Name)
				ss.PeakMemory = max(ss.PeakMemory, r.Devices[d].PeakMemory)
			}
			if r.StepTime > 0 {
				ss.Utilisation = ss.Busy / r.StepTime
			}
			ps.Stages = append(ps.Stages, ss)
		}
		// idle share of the devices that hold stages
		var total float64
		count := 0
		for rep := 0; rep < u.reps; rep++ {
			for _, rd := range l.repDev[rep] {
				if rd >= 0 {
					total += r.Devices[rd].Busy
					count++
				}
			}
		}
		if r.StepTime > 0 && count > 0 {
			ps.BubbleFraction = 1 - total/(float64(count)*r.StepTime)
		}
		r.Pipeline = ps
	}
	if u.plan.DataParallel != nil {
		ds := &DataParallelStats{Replicas: u.reps, Model: u.collective().name(), AllReduces: []AllReduceStats{}, WireBytes: u.plan.DataParallel.WireBytes}
		if u.straggle > 0 {
			ds.SlowestReplica, ds.Slowdown = u.reps-1, u.straggle
		}
		for _, a := range u.ars {
			as := AllReduceStats{Algorithm: a.algorithm, Stage: a.stage, Bucket: a.bucket, Round: a.round, Bytes: a.bytes, Start: math.Inf(1)}
			for rep := range a.first {
				as.Start = math.Min(as.Start, in.Start[a.first[rep]])
				as.End = math.Max(as.End, in.End[a.last[rep]])
			}
			as.AlgBW, as.BusBW = bandwidths(a.bytes, as.End-as.Start, a.replicas)
			as.ContentionSMs, as.ContentionHBM = a.contentionSM, a.contentionHBM
			ds.ContentionSMs += a.contentionSM
			ds.ContentionHBM += a.contentionHBM
			ds.AllReduces = append(ds.AllReduces, as)
		}
		start, end := math.Inf(1), math.Inf(-1)
		for _, a := range ds.AllReduces {
			if a.Round != 0 {
				continue
			}
			switch ds.Algorithm {
			case "", a.Algorithm:
				ds.Algorithm = a.Algorithm
			default:
				ds.Algorithm = "mixed"
			}
			ds.GradientBytes += a.Bytes
			start, end = math.Min(start, a.Start), math.Max(end, a.End)
		}
		if ds.GradientBytes > 0 {
			ds.AlgBW, ds.BusBW = bandwidths(ds.GradientBytes, end-start, u.reps)
		}
		r.DataParallel = ds
	}
}

// period measures the steady-state time per micro-batch (see
// PipelineStats.Period) on replica 0.
func (u *unrolled) period(in *Instances) float64 {
	m := u.m
	if m < 2 {
		return 0
	}
	lo, hi := m/4, m-1-m/4
	// spacing of the ends of a stage's item: the end of its last op
	spacing := func(ops []int32) float64 {
		if len(ops) == 0 {
			return 0
		}
		last := ops[len(ops)-1]
		a, b := in.End[u.node(last, lo, 0)], in.End[u.node(last, hi, 0)]
		return math.Abs(b-a) / float64(hi-lo)
	}
	var fwd, bwd, done float64
	for st := range u.l.stages {
		f, b := spacing(u.fwdOps[st]), spacing(u.bwdOps[st])
		fwd, bwd = max(fwd, f), max(bwd, b)
		if len(u.bwdOps[st]) > 0 {
			done = max(done, b) // a micro-batch is done on the stage after its backward
		} else {
			done = max(done, f)
		}
	}
	if u.l.sched == GPipe {
		// the forward and the backward phases pipeline one after the other
		return fwd + bwd
	}
	return done
}

// bandwidths are nccl-tests' algorithm and bus bandwidths of an
// all-reduce of bytes among n ranks that took t seconds.
func bandwidths(bytes int64, t float64, n int) (alg, bus float64) {
	if t <= 0 || n < 1 {
		return 0, 0
	}
	alg = float64(bytes) / t
	return alg, alg * 2 * float64(n-1) / float64(n)
}
