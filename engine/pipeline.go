package engine

import (
	"fmt"
	"strings"
)

// Schedule names a pipeline schedule.
type Schedule string

// The pipeline schedules the executor plays.
const (
	// GPipe runs every micro-batch's forward, then every backward (last
	// micro-batch first, as in GPipe's Figure 2c), flushes, then runs the
	// update ops once (gradient accumulation).
	GPipe Schedule = "gpipe"
	// OneFOneB is PipeDream-flush (Megatron's 1F1B): stage s runs a
	// warm-up of p-s-1 forwards, then alternates one forward and one
	// backward, then cools down with the remaining backwards; the update
	// ops run once after the flush.
	OneFOneB Schedule = "1f1b"
	// PipeDream is asynchronous 1F1B with weight stashing (PipeDream,
	// Narayanan et al. SOSP'19): the same order, but the stage's update ops
	// run after every backward and each in-flight micro-batch keeps the
	// weight version its forward used, up to p-s versions on stage s.
	PipeDream Schedule = "pipedream"
)

// Schedules lists the schedule names, in documentation order.
func Schedules() []Schedule { return []Schedule{GPipe, OneFOneB, PipeDream} }

// ParseSchedule checks a schedule name.
func ParseSchedule(name string) (Schedule, error) {
	for _, s := range Schedules() {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("%w: pipeline schedule %q (valid: %s)", ErrInvalidPlan, name, scheduleNames())
}

func scheduleNames() string {
	var n []string
	for _, s := range Schedules() {
		n = append(n, string(s))
	}
	return strings.Join(n, ", ")
}

// Pipeline makes a plan a pipelined training (or inference) step: the
// graph's batch is cut into MicroBatches micro-batches that flow through
// the stages in the order the Schedule gives each stage's device.
//
// Per-micro-batch costs: a forward or backward op's FLOPs, bytes accessed,
// output, workspace and every edge's bytes are divided by m (rounded up
// for bytes), a measured time is divided by m, and the launch overhead of
// the roofline is paid per micro-batch. Parameters are not divided. Update
// ops keep their full cost and run once per step, after the stage's last
// backward (gradient accumulation); with PipeDream they run after every
// backward.
type Pipeline struct {
	// Schedule is gpipe, 1f1b or pipedream.
	Schedule Schedule `json:"schedule"`
	// MicroBatches is m >= 1.
	MicroBatches int `json:"microBatches"`
	// Stages, optional, lists the op IDs of each stage, in pipeline order
	// (stage 0 first). Every op is in exactly one stage and a stage's ops
	// are on one device; stages may share a device (their schedules are
	// then merged, see deviceItems). When nil, the stages come from
	// Plan.Device: a device whose forward part is contiguous is one stage,
	// in topological order; a non-contiguous part is cut into several
	// stages, the virtual devices of Tarnawski et al. §5.2. This is the
	// usual way for a placer: set Plan.Device, one part per device, and
	// leave Stages nil.
	Stages [][]int `json:"stages,omitempty"`
	// Recompute turns on activation recomputation (GPipe's
	// re-materialisation): a stage keeps only its boundary activations
	// (what it received, and outputs of ops without inputs); before each
	// backward it runs the stage's forward again for that micro-batch.
	Recompute bool `json:"recompute,omitempty"`
}

// DataParallel replicates the plan on Replicas device groups, each with
// 1/Replicas of the batch; after the backward pass every stage's gradients
// (the GradBytes of its update ops; without them, its forward ops'
// parameter bytes) are summed by an all-reduce among the stage's replicas
// (ring, tree or hierarchical, see the package doc), whose chunks are
// transfers on the link queues; update ops wait for it. With a Pipeline, each replica is a whole pipeline (hybrid
// pipeline and data parallelism): stage s's replicas all-reduce together.
type DataParallel struct {
	// Replicas is n >= 1.
	Replicas int `json:"replicas"`
	// Devices, optional, gives each replica's devices: Devices[r][j] is
	// the device replica r uses in place of the j-th device (in ascending
	// index order) that Plan.Device uses; Devices[0] lists those devices
	// themselves. When nil, replica r >= 1 takes, for each device the plan
	// uses, the next unused device of the same kind, in index order.
	Devices [][]int `json:"devices,omitempty"`
	// BucketBytes, when > 0, cuts a stage's gradients into buckets of at
	// least that many bytes, in the order the backward produces them; each
	// bucket is its own ring all-reduce. 0: one bucket per stage.
	BucketBytes int64 `json:"bucketBytes,omitempty"`
	// Overlap starts a bucket's all-reduce as soon as the backward ops
	// that produce its gradients (for the last micro-batch) are done,
	// overlapping the rest of the backward pass; otherwise all buckets wait
	// for the stage's whole backward pass.
	Overlap bool `json:"overlap,omitempty"`
	// WireBytes is the bytes per gradient element the all-reduce carries
	// (and its pack and unpack passes move): 0, the gradients' own (the
	// graph's parameter precision, workloads.Precision.ParamBytes); 2,
	// FP16 or BF16 copies of FP32 gradients, as Horovod's
	// Compression.fp16 casts each gradient for the all-reduce
	// (horovod/tensorflow/compression.py) and a program that trains an
	// FP16 copy of its model (model.half()) all-reduces that copy's. No
	// wider than the gradients.
	WireBytes int `json:"wireBytes,omitempty"`
	// Collective, optional, is what each all-reduce costs beyond its link
	// transfers (NCCL's latencies, the framework's gradient copies, the
	// slowdown of overlapped compute; see CollectiveModel). nil: link
	// time only.
	Collective *CollectiveModel `json:"collective,omitempty"`
}
