package fastt

import (
	"context"
	"fmt"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

var _ placers.Placer = (*DataParallelTF1)(nil)

// DataParallelTF1 is data parallelism as FastT's baseline ran it (section
// 6.2: "we adopt default data parallel implementation in TensorFlow
// slim"): TensorFlow 1.x in-graph replication with a parameter device, as
// slim's model_deploy builds it. Each replica ("clone") is the model on
// one accelerator with 1/n of the batch; the variables live on the
// parameter device and every replica reads a copy of them each step; the
// clones' gradients are summed there (model_deploy's _sum_clones_gradients,
// an add_n) and the optimizer updates the variables there. TensorFlow's
// executor runs ready ops first in, first out, so there are no priorities:
// a gradient is sent as soon as its backward op ends, but the sum, the
// update and the copy of the new weights to every replica go through the
// one parameter device. The plan's graph is FastT's start graph
// (replicate), placed rather than scheduled.
//
// model_deploy puts the variables and the optimizer on the host CPU
// (variables_device and optimizer_device are "/device:CPU:0"); a cluster
// with a CPU device gets that, round-robin over its CPUs. The DGX-1
// clusters of FastT's Table 1 model the host as a link endpoint, not as a
// device an op can run on: there the first accelerator of each server is
// the parameter device (slim's VariableDeviceChooser(device_type='GPU')),
// the variables' colocation groups going round-robin over the servers, as
// model_deploy's _PSDeviceChooser deals variables over parameter-server
// tasks. It does not check memory (the parameter device holds the model
// once more), nor does data-parallel.
type DataParallelTF1 struct{}

// NewDataParallelTF1 makes the data-parallel-tf1 placer (no options).
func NewDataParallelTF1(placers.NoArgs) (placers.Placer, error) { return &DataParallelTF1{}, nil }

// Name implements placers.Placer.
func (*DataParallelTF1) Name() string { return "data-parallel-tf1" }

// MemoryAware implements placers.MemoryAware: no memory check.
func (*DataParallelTF1) MemoryAware() bool { return false }

// Place implements placers.Placer.
func (*DataParallelTF1) Place(_ context.Context, req *placers.Request) (*engine.Plan, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil {
		return nil, fmt.Errorf("placement request needs a graph and a cluster")
	}
	_, p, err := tf1Plan(req.Graph, req.Cluster)
	return p, err
}

// tf1Plan is the in-graph data-parallel plan of g on c (DataParallelTF1):
// the replicated graph (as many replicas as the largest divisor of the
// batch not above the accelerators) with replica r on the r-th
// accelerator and the shared ops on the parameter devices. With one
// replica it is the model on the first accelerator.
func tf1Plan(g *workloads.Graph, c *devices.Cluster) (*work, *engine.Plan, error) {
	acc, cpus := placers.Targets(c)
	if len(acc) == 0 {
		return nil, nil, fmt.Errorf("%w: cluster %q has no device", ErrNoDataParallel, c.Name)
	}
	for i := range g.Ops {
		if g.Ops[i].CPUOnly {
			return nil, nil, fmt.Errorf("%w: graph %q: op %q is CPU-only (data parallelism replicates every op on the accelerators)", ErrNoDataParallel, g.Name, g.Ops[i].Name)
		}
	}
	n := replicasFor(g.Batch, len(acc))
	w, err := replicate(g, n)
	if err != nil {
		return nil, nil, err
	}
	ps := cpus
	if len(ps) == 0 || len(ps) == len(c.Devices) {
		ps = serverHeads(c, acc)
	}
	p := &engine.Plan{Device: make([]int, len(w.g.Ops))}
	if w.g != g {
		p.Graph = w.g
	}
	unitOf, units := placers.Groups(w.g)
	unitDev := make([]int, len(units))
	next := 0
	for u, ops := range units {
		unitDev[u] = -1
		for _, v := range ops {
			if r := w.info[v].replica; r >= 0 {
				unitDev[u] = acc[r]
				break
			}
		}
		if unitDev[u] < 0 {
			unitDev[u] = ps[next%len(ps)]
			next++
		}
	}
	for v := range p.Device {
		p.Device[v] = unitDev[unitOf[v]]
	}
	return w, p, nil
}

// serverHeads is the first accelerator of each server (node) of c, in
// accelerator order: accelerators whose route leaves through a NIC are on
// different servers.
func serverHeads(c *devices.Cluster, acc []int) []int {
	var heads []int
	for _, a := range acc {
		same := false
		for _, h := range heads {
			if !c.CrossesNIC(a, h) {
				same = true
				break
			}
		}
		if !same {
			heads = append(heads, a)
		}
	}
	return heads
}
