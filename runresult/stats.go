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
