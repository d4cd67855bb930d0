package runresult

import (
	"placesim/workloads"
	"placesim/workloads/chakra"
)

// WorkloadStats is what study.Stats returns of a workload (placesim stats
// prints it: its JSON with --format json, reports.WriteStats otherwise).
type WorkloadStats struct {
	Workload string `json:"workload"`
	Batch    int    `json:"batch"`
	Training bool   `json:"training"`
	workloads.Stats
	CCR *CCR `json:"ccr"`
	// Warnings say what the import could not represent (lenient ONNX).
	Warnings []string `json:"warnings,omitempty"`
	// Trace, for an execution trace (Chakra ET, PyTorch ET), says what
	// the trace holds: nodes by kind, measured durations, process groups.
	Trace *chakra.Summary `json:"trace,omitempty"`
	// LengthMix, for a workload with a distribution of sequence lengths,
	// says that the figures above are expectations over its padded
	// lengths (FLOPs, activation and edge bytes weighted by each length's
	// probability).
	LengthMix *LengthMix `json:"lengthMix,omitempty"`
	// OpCosts, with stats --ops, prices the ops one by one on a device.
	OpCosts *OpCosts `json:"opCosts,omitempty"`
	// NoCCR says why there is no CCR although a cluster was given (stats
	// --ops on a one-device cluster).
	NoCCR string `json:"noCCR,omitempty"`
}

// CCR is Celeritas' eq. 1 on a cluster: transfers between devices From
// and To, computation on Compute.
type CCR struct {
	Value   float64 `json:"value"`
	Cluster string  `json:"cluster"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Compute string  `json:"compute"`
}

// LengthMix says that a workload's statistics are expectations over a
// distribution of padded sequence lengths (zoo:bert's lengths=: LDDL's
// binned data), one fixed-length graph a part.
type LengthMix struct {
	// Lengths names the sample-length distribution, Bin LDDL's bin size.
	Lengths string `json:"lengths"`
	Bin     int    `json:"bin"`
	// Parts is the number of padded lengths with a non-zero probability.
	Parts int `json:"parts"`
	// MeanLength is the mean sample length, MeanPadded the expected padded
	// length a step runs at (tokens).
	MeanLength float64 `json:"meanLength"`
	MeanPadded float64 `json:"meanPadded"`
	// MaxTokens, for fairseq's token batches (zoo.TokenMixOf), is a GPU's
	// --max-tokens: the parts are batch lengths, MeanPadded their
	// expectation over the batches.
	MaxTokens int `json:"maxTokens,omitempty"`
	// MeanBatch, for fairseq's token batches, is the sentences of a GPU's
	// batch, their expectation over the batches (the parts' batches
	// differ; WorkloadStats.Batch is it rounded).
	MeanBatch float64 `json:"meanBatch,omitempty"`
	// MeanBatchTokens is the tokens of a GPU's batch (sentences x their
	// padded length), their expectation over the batches.
	MeanBatchTokens float64 `json:"meanBatchTokens,omitempty"`
	// MeanCountedTokens is the tokens of a GPU's batch the program counts
	// (fairseq's ntokens: sentences x the target's length), their
	// expectation over the batches.
	MeanCountedTokens float64 `json:"meanCountedTokens,omitempty"`
	// Ratio, for fairseq's token batches, is the model of a pair's target
	// length given its source's (zoo.TokenMixOf, ratio=): gale-church
	// (the parts are (source, target) lengths) or equal (both sides at
	// the longer one's length).
	Ratio string `json:"ratio,omitempty"`
}

// OpCosts is a workload's ops priced one by one on one device of a
// cluster (placesim stats --ops): the cost model's time of each op's
// kernel, as the engine charges it, with the time by role and kernel
// class and the longest ops.
type OpCosts struct {
	// Cluster, Device and Kind name where the ops are priced: the
	// cluster's first accelerator (its first device when it has none).
	Cluster string `json:"cluster"`
	Device  string `json:"device"`
	Kind    string `json:"kind"`
	// Ops is the number of ops priced, Kernels those of a kernel class
	// that runs (views and sources cost nothing).
	Ops     int `json:"ops"`
	Kernels int `json:"kernels"`
	// Seconds is the sum of every op's time: the ops one after another on
	// one stream, no overlap and no communication.
	Seconds float64 `json:"seconds"`
	// ByClass is the time by role and kernel class, largest first.
	ByClass []ClassCost `json:"byClass"`
	// Top is the longest ops, longest first (as many as asked).
	Top []OpCost `json:"top"`
}

// ClassCost is the ops of one role and kernel class.
type ClassCost struct {
	Role    string  `json:"role"`
	Class   string  `json:"class"`
	Kernels int     `json:"kernels"`
	Seconds float64 `json:"seconds"`
	FLOPs   float64 `json:"flops"`
	Bytes   int64   `json:"bytes"`
}

// OpCost is one op's price.
type OpCost struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Role  string  `json:"role"`
	Class string  `json:"class"`
	FLOPs float64 `json:"flops"`
	// Bytes is the memory traffic the cost model charges (the op's
	// BytesAccessed).
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	// Bound is "compute" or "memory", the roofline term that sets the
	// time, "measured" for a time the workload gives, or "none" for an op
	// of no kernel (a view or a source, which costs nothing).
	Bound string `json:"bound"`
	// Device is set when the op cannot run on OpCosts.Device (a CPU-only
	// op) and is priced on this device instead.
	Device string `json:"device,omitempty"`
}
