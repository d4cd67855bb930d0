package study

import (
	"fmt"
	"os"
	"strings"

	"placesim/devices"
	"placesim/internal/checked"
	"placesim/runresult"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// StatsRequest is placesim stats: a workload, and a cluster for the CCR
// ("" with a workload that describes no machine: no CCR).
type StatsRequest struct {
	Inputs
	// Lenient imports an ONNX model's unsupported nodes as zero-cost
	// placeholders (the lenient=true import option) and returns a warning
	// per unsupported op type.
	Lenient bool
}

// WorkloadStats is what Stats returns (runresult.WorkloadStats: the one
// definition, which reports renders).
type WorkloadStats = runresult.WorkloadStats

// CCR is Celeritas' eq. 1 on a cluster (runresult.CCR).
type CCR = runresult.CCR

// Stats loads the workload and computes its statistics and, when a cluster
// is given or the workload describes one, its CCR.
func Stats(req StatsRequest) (*WorkloadStats, error) {
	spec := req.Workload
	if req.Lenient {
		if strings.HasPrefix(spec, "zoo:") {
			return nil, fmt.Errorf("workload %q: lenient import applies to ONNX models, not zoo models", spec)
		}
		switch _, err := os.Stat(spec); {
		case err == nil || !strings.Contains(spec, "?"):
			spec += "?lenient=true"
		default:
			spec += "&lenient=true"
		}
	}
	if mix, err := zoo.LengthMixOf(spec); err != nil {
		return nil, err
	} else if mix != nil {
		return lengthMixStats(req, mix)
	}
	g, trace, isTrace, err := LoadTrace(spec)
	if !isTrace {
		g, err = LoadWorkload(spec)
	}
	if err != nil {
		return nil, err
	}
	o := &WorkloadStats{Workload: g.Name, Batch: g.Batch, Training: g.Training, Stats: workloads.ComputeStats(g), Warnings: g.Warnings, Trace: trace}
	if req.Cluster != "" || g.Hint != nil {
		c, err := ResolveCluster(req.Cluster, g)
		if err != nil {
			return nil, err
		}
		if o.CCR, err = ClusterCCR(g, c); err != nil {
			return nil, err
		}
		if !checked.Finite(o.CCR.Value) {
			return nil, fmt.Errorf("CCR of %q on cluster %q is %g: a transfer or compute time is not finite (check the cluster's bandwidths and rates)", g.Name, c.Name, o.CCR.Value)
		}
	}
	if !checked.Finite(o.FLOPs) {
		return nil, fmt.Errorf("workload %q: total FLOPs %g is not finite", g.Name, o.FLOPs)
	}
	return o, nil
}

// ClusterCCR computes eq. 1 of Celeritas on c: the sum over edges of the
// time to send the edge's bytes between the cluster's first two
// accelerators, over the sum of the ops' compute times on the first (an op
// it cannot run: the first device that can).
func ClusterCCR(g *workloads.Graph, c *devices.Cluster) (*CCR, error) {
	devs := c.Accelerators()
	if len(devs) < 2 {
		devs = devs[:0]
		for i := range c.Devices {
			devs = append(devs, i)
		}
	}
	if len(devs) < 2 {
		return nil, fmt.Errorf("CCR of %q on cluster %q: it needs two devices to send data between, the cluster has %d", g.Name, c.Name, len(c.Devices))
	}
	src, dst := devs[0], devs[1]
	w := make([]float64, len(g.Ops))
	for i := range g.Ops {
		t, err := c.OpTime(&g.Ops[i], src)
		for d := 0; err != nil && d < len(c.Devices); d++ {
			t, err = c.OpTime(&g.Ops[i], d)
		}
		if err != nil {
			return nil, fmt.Errorf("CCR of %q on cluster %q: %w", g.Name, c.Name, err)
		}
		w[i] = t
	}
	v := workloads.CCR(g, func(op int) float64 { return w[op] },
		func(b int64) float64 { return c.TransferTime(src, dst, b) })
	return &CCR{Value: v, Cluster: c.Name, From: c.Devices[src].Name, To: c.Devices[dst].Name, Compute: c.Devices[src].Name}, nil
}
