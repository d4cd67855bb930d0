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
	est, err := devices.NewEstimates(g, c, s.Estimates)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	plan, err := p.Place(ctx, &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: s.Seed})
	if !s.Reproducible {
		el := time.Since(start).Seconds()
		out.PlaceTime = &el
	}
	if err != nil {
		out.Error = fmt.Sprintf("place: %v", err)
		return out, nil
	}
	out.Plan = plan
	res, err := engine.Simulate(g, c, plan, engine.Options{Trace: s.Trace})
	if err != nil {
		out.Error = fmt.Sprintf("simulate: %v", err)
		return out, nil
	}
	out.Result = res
	out.StepTime, out.Throughput = res.StepTime, res.Throughput
	out.OOM = res.OOM
	out.BytesMoved, out.Transfers = res.BytesMoved, res.TransferCount
	out.Devices, out.Links = res.Devices, res.Links
	for _, d := range res.Devices {
		out.PeakMemory = append(out.PeakMemory, d.PeakMemory)
		out.Capacity = append(out.Capacity, d.Capacity)
	}
	return out, nil
}
