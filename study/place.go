package study

import (
	"context"
	"fmt"
	"time"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/runresult"
)

// PlaceRequest is one placer on one workload and cluster whose split is
// reported (placesim place).
type PlaceRequest struct {
	Inputs
	Spec Spec
}

// Placement is what Place returns (runresult.Placement: the one
// definition, which reports renders).
type Placement = runresult.Placement

// PlacementShare is one device's share of the split.
type PlacementShare = runresult.PlacementShare

// Place places the request's workload with its placer and reports the
// split, the placer's objective (or the max-load model's score of the
// split), and one simulation of the plan. A plan that cannot be simulated
// is returned with Error set. It returns as soon as ctx is done.
func Place(ctx context.Context, reg *placers.Registry, req PlaceRequest) (*Placement, error) {
	return awaitCtx(ctx, func() (*Placement, error) { return place(ctx, reg, req) })
}

func place(ctx context.Context, reg *placers.Registry, req PlaceRequest) (*Placement, error) {
	g, c, err := req.Load()
	if err != nil {
		return nil, err
	}
	spec := req.Spec
	p, err := reg.New(spec.Placer, spec.Options)
	if err != nil {
		return nil, err
	}
	if err := spec.checkPairTables(c); err != nil {
		return nil, err
	}
	est, err := NewEstimates(g, c, spec.Estimates)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	preq := &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: spec.Seed}
	plan, rep, err := placers.PlaceWithReport(ctx, p, preq)
	elapsed := time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("place %s with %s: %w", g.Name, spec.Placer, err)
	}
	if rep == nil {
		// score any placer's split in the max-load model too (the
		// paper's comparison of expert and other splits)
		rep = maxLoadReport(preq, plan)
	}
	out := &Placement{Placer: spec.Placer, Workload: g.Name, Cluster: c.Name, Seed: spec.Seed, Regime: PlanRegime(plan).String(), Warnings: g.Warnings}
	if rep != nil {
		out.Fallback, out.Relaxed = rep.Fallback, rep.Relaxed
	}
	if plan.Graph != nil && plan.Graph != g {
		out.Rewritten = fmt.Sprintf("graph rewritten by the placer: %d ops (the workload has %d)", len(plan.Graph.Ops), len(g.Ops))
	}
	if !spec.Reproducible {
		out.PlaceTime = &elapsed
	}
	// the split is reported even when its simulation fails
	plan = withCollective(g, plan)
	res, simErr := engine.Simulate(g, c, plan, engine.Options{MaxMemory: spec.MaxMemory})
	if simErr == nil {
		simErr = checkFinite(res.StepTime, res.Throughput)
	}
	if simErr == nil && res.OOM == nil {
		simErr = checkPlausible(res.StepTime, g.Name, c.Name)
	}
	if simErr != nil {
		out.Error = fmt.Sprintf("simulate the plan: %v", simErr)
	} else {
		out.StepTime, out.Throughput, out.OOM = res.StepTime, res.Throughput, res.OOM
		for _, d := range res.Devices {
			out.PeakMemory = append(out.PeakMemory, d.PeakMemory)
		}
		if res.Pipeline != nil && res.Pipeline.Period > 0 {
			s := res.Pipeline.Period * float64(res.Pipeline.MicroBatches) / float64(engine.SamplesPerStep(g, plan))
			out.PeriodPerSample = &s
		}
	}
	loads := map[string]placers.DeviceShare{}
	if rep != nil {
		out.Objective, out.Bottleneck, out.Notes, out.Explain = rep.Objective, rep.Bottleneck, rep.Notes, rep.Explain
		out.Ideals, out.DPTableBytes = rep.Ideals, rep.TableBytes
		if rep.MaxLoad > 0 {
			s := rep.MaxLoad
			out.MaxLoad = &s
		}
		if rep.Objective != "" {
			v := rep.Value
			out.ObjectiveValue = &v
		}
		for _, d := range rep.Devices {
			loads[d.Device] = d
		}
	}
	// a plan on a rewritten graph (split, fused) lists that graph's ops
	pg := placers.PlanGraph(g, plan)
	byDev := make([][]string, len(c.Devices))
	for op, d := range plan.Device {
		byDev[d] = append(byDev[d], pg.Ops[op].Name)
	}
	for d, ops := range byDev {
		if len(ops) == 0 {
			continue
		}
		part := PlacementShare{Device: c.Devices[d].Name, Ops: ops}
		if s, ok := loads[part.Device]; ok {
			l, m := s.Load*1e3, s.Memory
			part.Load, part.Memory = &l, &m
		}
		out.Placement = append(out.Placement, part)
	}
	return out, nil
}

// maxLoadReport scores a plan in the max-load model of Tarnawski et al.,
// or returns nil when the model does not apply (no accelerator, a plan
// that rewrites the graph, or one over memory).
func maxLoadReport(req *placers.Request, plan *engine.Plan) *placers.Report {
	if plan.Graph != nil {
		return nil
	}
	m, err := maxload.New(req)
	if err != nil {
		return nil
	}
	assign := m.Assignment(plan)
	for _, d := range assign {
		if d < 0 {
			return nil
		}
	}
	rep, err := m.Report(assign, "", []string{"max-load computed by placesim from the plan (the placer does not report one)"})
	if err != nil {
		return nil
	}
	return rep
}
