package pesto

import (
	"context"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// DefaultSearch is the number of simulations the placement-group search
// may spend after the ILP (option search=): each moves one placement group
// to another device and plays the plan with the estimates. A simulation of
// the Figure 7 models takes 2-30 ms on the development machine (GNMT-2,
// 12,452 ops: 10-31 ms), so the default costs a few seconds per model,
// against CBC's 20-30 s. A count, not a clock, keeps the result
// deterministic.
const DefaultSearch = 300

// fineETF is Baechi's m-etf on the request's own graph
// (graphalg.METFByLifetime: m-ETF with its b-level ties, memory-aware with
// the static book and, when that refuses the graph, with memory charged by
// lifetime in its own schedule). The plan carries the schedule's start
// times as priorities.
func fineETF(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	pr, err := graphalg.NewProblem(req)
	if err != nil {
		return nil, err
	}
	return graphalg.METFByLifetime(ctx, pr)
}

// searchResult is what groupSearch found.
type searchResult struct {
	plan *engine.Plan
	time float64
	// moves is the number of moves kept, evals the simulations run.
	moves, evals int
}

// groupSearch improves plan (whose simulated step with the estimates is
// t0) by moving one of the coarse graph's placement groups at a time to
// another of its target devices, keeping a move when the plan then plays
// faster with the estimates (first improvement, largest groups first,
// passes until one keeps nothing or budget simulations are spent). This
// is a local search around the best of the ILP's plan and the starts, in
// the spirit of the paper's what-if simulator (section 4), which Pesto
// uses to compare placements; groups keep colocation and CPU-only ops
// where they must be. The moved plan ranks each device's ops by the
// start plan's priorities (or, for a fixed order, by position in it).
func groupSearch(ctx context.Context, g *workloads.Graph, cl *devices.Cluster, pr *problem, plan *engine.Plan, t0 float64, budget int) searchResult {
	best := searchResult{plan: plan, time: t0}
	c := pr.c
	members := make([][]int, c.NumGroups)
	load := make([]float64, c.NumGroups)
	for op := range c.Fine.Ops {
		gr := c.Group[c.Of[op]]
		members[gr] = append(members[gr], op)
	}
	for v := range c.Members {
		load[c.Group[v]] += c.Compute[v]
	}
	var groups []int
	for gr := range members {
		if len(pr.targets[gr]) > 1 && len(members[gr]) > 0 {
			groups = append(groups, gr)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return load[groups[i]] > load[groups[j]] })
	prio := rankOf(plan)
	dev := append([]int(nil), plan.Device...)
	for improved := true; improved && best.evals < budget; {
		improved = false
		for _, gr := range groups {
			from := dev[members[gr][0]]
			for _, d := range pr.targets[gr] {
				if d == from || best.evals >= budget || ctx.Err() != nil {
					continue
				}
				for _, op := range members[gr] {
					dev[op] = d
				}
				cand := &engine.Plan{Device: append([]int(nil), dev...), Priority: prio}
				best.evals++
				t, err := simulateEstimated(g, cl, cand)
				if err == nil && t < best.time*(1-1e-9) {
					best.plan, best.time = cand, t
					best.moves++
					improved = true
					from = d
					continue
				}
				for _, op := range members[gr] {
					dev[op] = from
				}
			}
		}
	}
	return best
}

// rankOf returns per-op priorities that rank each device's ops as plan
// does: its priorities, or for a fixed order the position in its
// device's sequence as a fraction of the sequence (so that ops moved to
// another device slot in at about the same point of the step); nil when
// the plan leaves the order to the engine.
func rankOf(plan *engine.Plan) []float64 {
	switch {
	case plan.Priority != nil:
		return plan.Priority
	case plan.Order != nil:
		prio := make([]float64, len(plan.Device))
		for _, seq := range plan.Order {
			for i, op := range seq {
				prio[op] = -(float64(i) + 0.5) / float64(len(seq))
			}
		}
		return prio
	}
	return nil
}
