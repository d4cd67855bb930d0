package study

import (
	"context"
	"fmt"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/reports"
	"placesim/workloads"
)

// Spec says what one run is.
type Spec struct {
	Placer    string
	Options   placers.Options
	Seed      uint64
	Estimates devices.EstimateOptions
	// Trace asks the engine for a full trace (Gantt, memory timelines).
	Trace bool
	// Reproducible leaves wall-clock measurements (placement time) out of
	// the outcome, so that the same inputs give byte-identical output.
	Reproducible bool
	// Pipeline, when set, plays the placer's plan as a micro-batch
	// pipeline (schedule, micro-batches, recomputation; the schedule
	// replaces any order or priority the placer chose), with stages from
	// Stages.
	Pipeline *engine.Pipeline
	// Stages is where pipeline stages come from: StagesAuto (one per
	// device the placer used), StagesEven (equal layer shares, replacing
	// the placer's devices) or a stage file (see ParseStages); "" keeps
	// Pipeline.Stages as given.
	Stages string
	// DataParallel, when set, replicates the plan; the placer then places
	// on the first 1/Replicas of the cluster's accelerators and the
	// replicas take the others.
	DataParallel *engine.DataParallel
}

// Outcome is the result of one run (see reports.Outcome: the type lives
// with the code that renders it, so that reports never imports study).
type Outcome = reports.Outcome

// Run places g on c with the placer named in s (from reg) and simulates
// the plan. Placer and simulation failures are recorded in the Outcome's
// Error; the returned error is for bad specs (unknown placer, bad options).
func Run(ctx context.Context, reg *placers.Registry, g *workloads.Graph, c *devices.Cluster, s Spec) (*Outcome, error) {
	p, err := reg.New(s.Placer, s.Options)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Placer: s.Placer, Workload: g.Name, Cluster: c.Name, Seed: s.Seed, Graph: g}
	pc, back, err := placementCluster(c, s.DataParallel)
	if err != nil {
		return nil, err
	}
	est, err := NewEstimates(g, pc, s.Estimates)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	plan, rep, err := placers.PlaceWithReport(ctx, p, &placers.Request{Graph: g, Cluster: pc, Estimates: est, Seed: s.Seed})
	if !s.Reproducible {
		el := time.Since(start).Seconds()
		out.PlaceTime = &el
	}
	if rep != nil && rep.MaxLoad > 0 {
		ms := rep.MaxLoad * 1e3
		out.MaxLoad = &ms
	}
	if err != nil {
		out.Error = fmt.Sprintf("place: %v", err)
		return out, nil
	}
	if plan, err = s.parallelize(g, c, plan, back); err != nil {
		return nil, err
	}
	out.Plan = plan
	res, err := engine.Simulate(g, c, plan, engine.Options{Trace: s.Trace})
	if err != nil {
		out.Error = fmt.Sprintf("simulate: %v", err)
		return out, nil
	}
	if err := checkFinite(res.StepTime, res.Throughput); err != nil {
		out.Error = fmt.Sprintf("simulate: %v", err)
		return out, nil
	}
	out.Result = res
	out.StepTime, out.Throughput = res.StepTime, res.Throughput
	out.OOM = res.OOM
	out.BytesMoved, out.Transfers = res.BytesMoved, res.TransferCount
	out.Devices, out.Links = res.Devices, res.Links
	out.Pipeline, out.DataParallel = res.Pipeline, res.DataParallel
	for _, d := range res.Devices {
		out.PeakMemory = append(out.PeakMemory, d.PeakMemory)
		out.Capacity = append(out.Capacity, d.Capacity)
	}
	return out, nil
}
