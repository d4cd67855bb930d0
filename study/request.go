package study

import (
	"context"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
)

// Inputs name a command's workload and cluster as the user gave them: a
// zoo spec or a workload file, and a cluster preset, a cluster file or ""
// (the machine the workload file describes).
type Inputs struct {
	Workload, Cluster string
	// DefaultCluster is the cluster when Cluster is empty and the
	// workload describes no machine of its own (an msr-fiddle file's
	// does): simulate's 4xV100-pcie when -c is not given.
	DefaultCluster string
}

// Load builds the workload and resolves the cluster.
func (in Inputs) Load() (*workloads.Graph, *devices.Cluster, error) {
	g, err := LoadWorkload(in.Workload)
	if err != nil {
		return nil, nil, err
	}
	spec := in.Cluster
	if spec == "" && g.Hint == nil && in.DefaultCluster != "" {
		spec = in.DefaultCluster
	}
	c, err := ResolveCluster(spec, g)
	if err != nil {
		return nil, nil, err
	}
	return g, c, nil
}

// SimulateRequest is one placer on one workload and cluster, simulated
// once (placesim simulate).
type SimulateRequest struct {
	Inputs
	Spec Spec
}

// Simulate loads the request's inputs, places and simulates. It returns as
// soon as ctx is done, with ctx's error.
func Simulate(ctx context.Context, reg *placers.Registry, req SimulateRequest) (*Record, error) {
	return awaitCtx(ctx, func() (*Record, error) {
		g, c, err := req.Load()
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return Run(ctx, reg, g, c, req.Spec)
	})
}
