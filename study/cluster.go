package study

import (
	"fmt"

	"placesim/devices"
	"placesim/workloads"
)

// WorkloadMachine is the cluster spec that means "the machine the
// workload file describes" (as an empty spec does).
const WorkloadMachine = "workload"

// ResolveCluster returns the cluster named by spec (a preset or a file).
// An empty spec, or "workload", means the machine the workload describes
// (g.Hint, e.g. an msr-fiddle file's k accelerators and l CPUs); without
// one it is an error.
func ResolveCluster(spec string, g *workloads.Graph) (*devices.Cluster, error) {
	if spec != "" && spec != WorkloadMachine {
		return devices.Resolve(spec)
	}
	if g == nil || g.Hint == nil {
		return nil, &FieldError{Field: "cluster", Msg: fmt.Sprintf("no cluster given and workload %q describes none", nameOf(g)), Valid: "a preset or a cluster file (placesim list clusters)"}
	}
	h := g.Hint
	return devices.AccCPU(fmt.Sprintf("%dacc+%dcpu", h.Accelerators, h.CPUs), h.Accelerators, h.CPUs, h.AcceleratorMemory)
}

func nameOf(g *workloads.Graph) string {
	if g == nil {
		return ""
	}
	return g.Name
}
