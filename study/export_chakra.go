package study

import (
	"context"
	"fmt"

	"placesim/engine"
	"placesim/placers"
	"placesim/workloads/chakra"
)

// ExportChakra places the workload with the spec's placer, plays one step
// and encodes it as one Chakra ET per device of the cluster
// (chakra.Write): the ops with their simulated durations, the transfers
// between devices as send and receive nodes. A plan the placer made into a
// pipeline or data parallelism is refused (the export is of one step), as
// is a step that runs out of memory. It returns the files, rank by rank,
// and the simulated result.
func ExportChakra(ctx context.Context, reg *placers.Registry, req PlaceRequest) ([][]byte, *engine.Result, error) {
	g, c, err := req.Load()
	if err != nil {
		return nil, nil, err
	}
	spec := req.Spec
	p, err := reg.New(spec.Placer, spec.Options)
	if err != nil {
		return nil, nil, err
	}
	est, err := NewEstimates(g, c, spec.Estimates)
	if err != nil {
		return nil, nil, err
	}
	plan, _, err := placers.PlaceWithReport(ctx, p, &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: spec.Seed})
	if err != nil {
		return nil, nil, fmt.Errorf("place %s with %s: %w", g.Name, spec.Placer, err)
	}
	if plan.Pipeline != nil || (plan.DataParallel != nil && plan.DataParallel.Replicas > 1) {
		return nil, nil, fieldErr("placer", fmt.Errorf("a Chakra export is one step: placer %s made a %s plan (choose a placer whose plan is one step)", spec.Placer, PlanRegime(plan)))
	}
	pg := g
	if plan.Graph != nil {
		pg = plan.Graph
	}
	res, err := engine.Simulate(g, c, plan, engine.Options{MaxMemory: spec.MaxMemory})
	if err != nil {
		return nil, nil, fmt.Errorf("simulate %s placed by %s: %w", g.Name, spec.Placer, err)
	}
	if res.OOM != nil {
		return nil, nil, fmt.Errorf("chakra export: the step runs out of memory: %w", res.OOM.Err())
	}
	names := make([]string, len(c.Devices))
	for i := range c.Devices {
		names[i] = c.Devices[i].Name
	}
	files, err := chakra.Write(chakra.Step{Graph: pg, Device: plan.Device, Devices: names, Start: res.OpStart, End: res.OpEnd})
	if err != nil {
		return nil, nil, err
	}
	return files, res, nil
}
