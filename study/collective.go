package study

import (
	"fmt"
	"strings"

	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// CollectiveAuto, the default all-reduce model of every data-parallel
// run, is the model of the workload's framework profile
// (FrameworkCollective).
const CollectiveAuto = "auto"

// CollectiveModels lists the all-reduce models a run may ask for
// (--allreduce-model, a scenario's allreduce.model): auto, then the
// engine's built-in models (engine.CollectiveNames).
func CollectiveModels() []string {
	return append([]string{CollectiveAuto}, engine.CollectiveNames()...)
}

// ParseCollective reads an all-reduce model name: "" or "auto" is nil (the
// framework's model, chosen per workload when the run is simulated), a
// built-in name its model (engine.CollectiveByName); what names the value
// in the error (a flag or a field).
func ParseCollective(what, name string) (*engine.CollectiveModel, error) {
	if name == "" || name == CollectiveAuto {
		return nil, nil
	}
	m, err := engine.CollectiveByName(name)
	if err != nil {
		return nil, fmt.Errorf("%s %q: unknown all-reduce model (valid: %s)", what, name, strings.Join(CollectiveModels(), ", "))
	}
	return m, nil
}

// WirePrecisions lists what ParseWirePrecision accepts.
func WirePrecisions() []string { return []string{"gradients", "fp32", "fp16", "bf16"} }

// ParseWirePrecision reads the precision an all-reduce carries the
// gradients in (what names the setting, for errors) as
// engine.DataParallel.WireBytes: "" or gradients, the gradients' own (0);
// fp32 4 bytes an element; fp16 and bf16 2 (half the bytes of FP32
// gradients: the what-if of an all-reduce of 16-bit copies, as Horovod's
// Compression.fp16 makes them). A precision wider than the workload's
// gradients is refused by the simulation.
func ParseWirePrecision(what, v string) (int, error) {
	switch v {
	case "", "gradients":
		return 0, nil
	case "fp32":
		return 4, nil
	case "fp16", "bf16":
		return 2, nil
	}
	return 0, fmt.Errorf("%s %q: unknown all-reduce precision (valid: %s)", what, v, strings.Join(WirePrecisions(), ", "))
}

// FrameworkCollective is the all-reduce model of a framework profile
// (workloads.Graph.Framework): PyTorch's DistributedDataParallel copies
// gradients into its buckets and back on the compute stream
// (engine.PyTorchDDPModel); TensorFlow (graph, fused or XLA) and MXNet
// all-reduce the gradient tensors in place through NCCL
// (engine.NCCLModel), and so does a workload file whose framework is not
// known: NCCL is the library every data-parallel GPU framework calls.
func FrameworkCollective(framework string) *engine.CollectiveModel {
	if framework == zoo.FrameworkPyTorch {
		return engine.PyTorchDDPModel()
	}
	return engine.NCCLModel()
}

// withCollective gives plan's data parallelism its all-reduce model where
// none was asked for (auto): the model of g's framework. It is the one
// place every run's data parallelism gets its collective, whether the
// regime or the placer asked for the replicas, so that simulate, compare,
// run, sweep, place and validate play the same all-reduce. The plan is
// copied, never changed.
func withCollective(g *workloads.Graph, plan *engine.Plan) *engine.Plan {
	dp := plan.DataParallel
	if dp == nil || dp.Replicas <= 1 || dp.Collective != nil {
		return plan
	}
	if plan.Graph != nil {
		g = plan.Graph
	}
	p := *plan
	d := *dp
	d.Collective = FrameworkCollective(g.Framework)
	p.DataParallel = &d
	return &p
}
