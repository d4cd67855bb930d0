package engine

// Result is what a simulated step produced. Times are seconds, sizes bytes.
type Result struct {
	// StepTime is the makespan: the time the last op or transfer ended.
	StepTime float64 `json:"stepTime"`
	// Throughput is samples per second: the graph's batch / StepTime.
	Throughput float64 `json:"throughput"`
	// Devices has one entry per cluster device.
	Devices []DeviceStats `json:"devices"`
	// Links has one entry per directed link that carried traffic.
	Links []LinkStats `json:"links"`
	// OOM is the first allocation over capacity, or nil. The run goes on
	// after it (memory is not actually capped), so PeakMemory shows the
	// demand; the step is nonetheless failed.
	OOM *OOM `json:"oom"`
	// BytesMoved is the total of all transfers' bytes (each counted once,
	// however many hops it took).
	BytesMoved int64 `json:"bytesMoved"`
	// Transfers is the number of send/recv pairs.
	TransferCount int `json:"transfers"`
	// Events is the number of events the simulation processed.
	Events int `json:"events"`
	// OpStart and OpEnd give each op's start and end time, by op ID.
	OpStart []float64 `json:"-"`
	OpEnd   []float64 `json:"-"`
	// Trace holds transfers and memory timelines when Options.Trace is set.
	Trace *Trace `json:"-"`
	// Pipeline, for a plan with a pipeline, has the schedule's figures:
	// period, bubble fraction, per-stage utilisation and memory.
	Pipeline *PipelineStats `json:"pipeline,omitempty"`
	// DataParallel, for a plan with data parallelism, has the all-reduces.
	DataParallel *DataParallelStats `json:"dataParallel,omitempty"`
	// OrderRelaxed, when not empty, says that the schedule's strict
	// per-device order deadlocked on this graph (the reason is given) and
	// the step was played with the order as a priority instead: each device
	// ran the ready instance that comes first in its schedule.
	OrderRelaxed string `json:"orderRelaxed,omitempty"`
	// Symmetry, for a data-parallel plan, says whether identical replicas
	// were played once by a representative (see Options.FullReplicas) or
	// why every replica was played; nil for one replica, or when every
	// replica was played as asked.
	Symmetry *SymmetryStats `json:"symmetry,omitempty"`
	// Instances, for an unrolled plan (pipeline or data parallel), times
	// every (op, micro-batch, replica) instance and collective step; OpStart
	// and OpEnd then hold each op's first start and last end. When a
	// representative stood for identical replicas (Symmetry.Reduced), it
	// has the representative's nodes only, which Index returns for every
	// replica.
	Instances *Instances `json:"-"`
}

// DeviceStats summarises one device.
type DeviceStats struct {
	Name string `json:"name"`
	// Ops is the number of ops placed on the device.
	Ops int `json:"ops"`
	// Busy is the total compute time; Utilisation = Busy / StepTime.
	Busy        float64 `json:"busy"`
	Utilisation float64 `json:"utilisation"`
	// ParamBytes is the parameters resident on the device.
	ParamBytes int64 `json:"paramBytes"`
	// PeakMemory is the largest memory in use at any time.
	PeakMemory int64 `json:"peakMemory"`
	Capacity   int64 `json:"capacity"`
}

// LinkStats summarises one directed link.
type LinkStats struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
	// Busy is the time the link was carrying a transfer.
	Busy float64 `json:"busy"`
	// Bytes carried and number of transfers.
	Bytes     int64 `json:"bytes"`
	Transfers int   `json:"transfers"`
	// QueueDelay is the total time transfers waited for this link.
	QueueDelay float64 `json:"queueDelay"`
}

// Trace is the detailed record of a run, for Gantt charts and traces.
type Trace struct {
	Transfers []TransferRecord
	// Memory[d] is device d's memory in use after each change, in time order.
	Memory [][]MemSample
}

// TransferRecord is one transfer with its hops.
type TransferRecord struct {
	// Producer is the op whose output moves (-1 for a collective's chunk).
	Producer int
	// MicroBatch and Replica say which instance of Producer sent it, in an
	// unrolled plan (pipeline or data parallel); both 0 otherwise.
	MicroBatch, Replica int
	Src, Dst            int // device indices
	Bytes               int64
	Hops                []HopRecord
}

// HopRecord is a transfer's passage over one directed link.
type HopRecord struct {
	Link       int // index into the topology's links
	Enqueue    float64
	Start, End float64
}

// MemSample is the memory in use on a device from Time on.
type MemSample struct {
	Time  float64
	Bytes int64
}
