package pesto

import (
	"context"
	"fmt"
	"math"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// startPlan is one of the plans Pesto's result must never be slower than: the
// m-ETF warm start (mapped to the fine graph as the ILP's plan is), the
// whole model on one accelerator, the Expert placement (pesto-expert), and
// m-ETF on the ops themselves (Baechi's m-etf, with and without its
// schedule's order as priorities).
// Pesto's ILP may stop at its time limit on a schedule that its own model
// rates better but that plays slower with link contention and the
// op-level order; the paper's what-if simulator (section 4) is what it
// checks a placement with, so Pesto keeps whichever of its plan and these
// starts simulates fastest with its estimates (never the true costs).
type startPlan struct {
	name string
	plan *engine.Plan
}

// guard replaces res.Plan by the fastest of it, the starts and, with
// Config.LayerSearch > 0, the layer search's plan (layerSearch) and, with
// Config.RangeSearch > 0, the range search's (rangeSearch, from the layer
// search's plans) in a simulation with the request's estimates, then, with Config.Search > 0,
// runs the placement-group search (groupSearch) from each of them, the
// fastest first, within Config.Search simulations in all, and keeps the
// fastest plan found; it records what it measured.
func (p *Pesto) guard(ctx context.Context, req *placers.Request, pr *problem, res *Result, wdev []int, worders [][]int, mode string) error {
	starts := []startPlan{}
	if wdev != nil {
		var scratch Result
		plan, err := p.plan(req, pr, wdev, worders, mode, &scratch)
		if err != nil {
			return fmt.Errorf("the m-ETF start's plan: %w", err)
		}
		starts = append(starts, startPlan{"m-ETF", plan})
	}
	if single := oneDevice(req); single != nil {
		starts = append(starts, startPlan{"single GPU", single})
	}
	if plan, err := (&Expert{}).Place(ctx, req); err == nil && plan != nil {
		starts = append(starts, startPlan{"Expert", plan})
	}
	if plan, err := fineETF(ctx, req); err == nil {
		// Baechi's m-ETF on the ops themselves, with its schedule's order
		// as priorities and, as the m-etf placer returns it, without
		starts = append(starts, startPlan{"op-level m-ETF", plan})
		bare := &engine.Plan{Device: plan.Device}
		starts = append(starts, startPlan{"op-level m-ETF placement", bare})
	}
	g := estimatedGraph(req.Graph, req.Cluster, req.Estimates)
	best, err := simulateEstimated(g, req.Cluster, res.Plan)
	if err != nil {
		return fmt.Errorf("simulate the ILP's plan with the estimates: %w", err)
	}
	res.Simulated = best
	// the candidates, the ILP's plan ("") first
	type candidate struct {
		name string
		plan *engine.Plan
		t    float64
	}
	cands := []candidate{{"", res.Plan, best}}
	for _, s := range starts {
		t, err := simulateEstimated(g, req.Cluster, s.plan)
		if err != nil {
			continue // a start the engine cannot play is no candidate
		}
		res.StartTimes = append(res.StartTimes, fmt.Sprintf("%s %.6gs", s.name, t))
		cands = append(cands, candidate{s.name, s.plan, t})
		if t < best*(1-1e-9) {
			best, res.Plan, res.Kept = t, s.plan, s.name
		}
	}
	if p.cfg.LayerSearch > 0 {
		ls, ok := layerSearch(ctx, req.Graph, g, req.Cluster, req.Estimates, p.cfg.LayerSearch)
		res.LayerUnits, res.LayerEvals = ls.units, ls.evals
		if ok {
			res.LayerTime = ls.time
			res.StartTimes = append(res.StartTimes, fmt.Sprintf("layer search %.6gs", ls.time))
			cands = append(cands, candidate{keptLayerSearch, ls.plan, ls.time})
			if ls.time < best*(1-1e-9) {
				best, res.Plan, res.Kept = ls.time, ls.plan, keptLayerSearch
			}
			if p.cfg.RangeSearch > 0 {
				rs, ok := rangeSearch(ctx, req.Graph, g, req.Cluster, req.Estimates, ls, p.cfg.RangeSearch)
				res.RangeEvals, res.RangeStarts = rs.evals, rs.starts
				if ok {
					res.RangeMoves, res.RangeTime = rs.moves, rs.time
					res.StartTimes = append(res.StartTimes, fmt.Sprintf("range search %.6gs", rs.time))
					cands = append(cands, candidate{keptRangeSearch, rs.plan, rs.time})
					if rs.time < best*(1-1e-9) {
						best, res.Plan, res.Kept = rs.time, rs.plan, keptRangeSearch
					}
				}
			}
		}
	}
	if res.Kept != "" {
		res.KeptTime = best
	}
	// the search from each candidate in turn, fastest first, while the
	// budget lasts (none with Config.Search 0; a search that finds no move
	// spends one simulation per group and device)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].t < cands[j].t })
	left := p.cfg.Search
	for _, c := range cands {
		if left <= 0 || math.IsInf(c.t, 1) || ctx.Err() != nil {
			break
		}
		sr := groupSearch(ctx, g, req.Cluster, pr, c.plan, c.t, left)
		left -= sr.evals
		res.SearchEvals += sr.evals
		res.SearchStarts++
		if sr.moves > 0 && sr.time < best*(1-1e-9) {
			best, res.Plan = sr.time, sr.plan
			res.Kept, res.KeptTime = c.name, c.t
			res.SearchMoves, res.SearchTime = sr.moves, sr.time
		}
	}
	p.orderGuard(ctx, g, req, res, best)
	return nil
}

// orderGuard runs, with Config.OrderSearch > 0, the order search on the
// guard's plan (step t with the estimates) and keeps its plan when it
// plays faster.
func (p *Pesto) orderGuard(ctx context.Context, g *workloads.Graph, req *placers.Request, res *Result, t float64) {
	if p.cfg.OrderSearch <= 0 || math.IsInf(t, 1) || ctx.Err() != nil {
		return
	}
	or := orderSearch(ctx, g, req.Cluster, res.Plan, t, p.cfg.OrderSearch)
	res.OrderEvals = or.evals
	if or.moves > 0 && or.time < t*(1-1e-9) {
		res.Plan = or.plan
		res.OrderMoves, res.OrderTime = or.moves, or.time
	}
}

// oneDevice places every op on the first accelerator, or where it cannot
// run there (a CPU-only op) on the first device that runs it.
func oneDevice(req *placers.Request) *engine.Plan {
	acc, _ := placers.Targets(req.Cluster)
	if len(acc) == 0 {
		return nil
	}
	plan := &engine.Plan{Device: make([]int, len(req.Graph.Ops))}
	for v := range plan.Device {
		plan.Device[v] = -1
		if req.Estimates.CanRun(v, acc[0]) {
			plan.Device[v] = acc[0]
			continue
		}
		for d := range req.Cluster.Devices {
			if req.Estimates.CanRun(v, d) {
				plan.Device[v] = d
				break
			}
		}
		if plan.Device[v] < 0 {
			return nil
		}
	}
	if placers.CheckColocation(req.Graph, plan) != nil {
		return nil
	}
	return plan
}

// estimatedGraph is a copy of g whose ops take the estimated times on
// every device kind of c, so that the engine plays a plan with what the
// placer knows (the engine's own costs stay hidden from it).
func estimatedGraph(g *workloads.Graph, c *devices.Cluster, est *devices.Estimates) *workloads.Graph {
	eg := g.Clone()
	for v := range eg.Ops {
		ms := map[string]float64{}
		for d := range c.Devices {
			k := &c.Devices[d].Kind
			if _, ok := ms[k.Name]; ok {
				continue
			}
			t := est.OpTime(v, d)
			if math.IsInf(t, 1) {
				continue
			}
			if k.MeasuredScale > 0 {
				t /= k.MeasuredScale // the engine multiplies it back
			}
			ms[k.Name] = t
		}
		eg.Ops[v].Measured = ms
	}
	return eg
}

// simulateEstimated plays plan on the estimated graph: its step time, +Inf
// when it runs out of memory.
func simulateEstimated(g *workloads.Graph, c *devices.Cluster, plan *engine.Plan) (float64, error) {
	pl := *plan
	if pl.Graph != nil {
		return 0, fmt.Errorf("a rewritten graph")
	}
	r, err := engine.Simulate(g, c, &pl, engine.Options{})
	if err != nil {
		return 0, err
	}
	if r.OOM != nil {
		return math.Inf(1), nil
	}
	return r.StepTime, nil
}
