package graphalg

import (
	"context"

	"placesim/engine"
	"placesim/placers"
)

// FusionOptions are the placer options of Celeritas' operation fusion,
// which every list-scheduling placer accepts: coarsen (true|false) places
// the coarse graph and maps the plan back; range is R and memfrac is M as a
// fraction of the smallest target device's memory (Celeritas section
// 5.1.3: R = 200, M = 0.25).
type FusionOptions struct {
	Coarsen     bool
	Range       int
	MemFraction float64
}

// Default fusion settings (Celeritas section 5.1.3).
const (
	DefaultRange       = 200
	DefaultMemFraction = 0.25
)

// DeclareOptions binds coarsen (default coarsen), range and memfrac to
// fo's fields, for the placers that take Celeritas' fusion.
func (fo *FusionOptions) DeclareOptions(d *placers.Decls, coarsen bool) {
	d.Bool(&fo.Coarsen, "coarsen", coarsen, "place the graph coarsened by Celeritas' operation fusion and map the plan back")
	d.Int(&fo.Range, "range", DefaultRange, 1, 1<<30, "fusion range R: ops at most this far apart in CPD-TOPO order may fuse (Celeritas 5.1.3)")
	d.Float(&fo.MemFraction, "memfrac", DefaultMemFraction, 1e-6, 1, "fusion memory cap M, a fraction of the smallest device's memory (Celeritas 5.1.3)")
}

// DeclarePriorities binds priorities, the option that keeps the estimated
// schedule's order in the plan (default off), to p.
func DeclarePriorities(d *placers.Decls, p *bool) {
	d.Bool(p, "priorities", false, "attach the estimated schedule's order to the plan (default: the executor's own order)")
}

// Fuse runs Celeritas' operation fusion on p (CPD-TOPO order, then
// OptimalFusion with R and M from fo) and returns the coarse graph.
func Fuse(ctx context.Context, p *Problem, fo FusionOptions) (*Coarse, error) {
	order, err := p.CPDOrder()
	if err != nil {
		return nil, err
	}
	est := p.Req.Estimates
	mem := OpMemories(p.Req.Graph, est)
	var minMem int64 = -1
	for _, d := range p.Targets.Acc {
		if m := p.Req.Cluster.Devices[d].Memory; minMem < 0 || m < minMem {
			minMem = m
		}
	}
	cfg := FusionConfig{Range: fo.Range, MaxMemory: int64(fo.MemFraction * float64(minMem))}
	// eq. 6 bounds the memory a cluster carries as a coarse op: whole
	// colocation units, each charged once, to the cluster of its first op
	clusters, _, err := OptimalFusion(ctx, p.DAG, order, p.Costs.Comm, UnitCharges(mem, p.Targets, order), cfg)
	if err != nil {
		return nil, err
	}
	return NewCoarse(p.Req.Graph, p.DAG, est, p.Targets, clusters)
}

// PlaceCoarse fuses the request's graph, lets inner place the coarse graph
// (with the coarse graph's estimates) and expands the plan to the fine
// graph (Coarse.Expand). Errors from inner are returned as they are, so
// placers.ErrDoesNotFit stays visible.
func PlaceCoarse(ctx context.Context, p *Problem, fo FusionOptions, inner func(context.Context, *placers.Request) (*engine.Plan, error)) (*engine.Plan, error) {
	c, err := Fuse(ctx, p, fo)
	if err != nil {
		return nil, err
	}
	est, err := c.Estimates(p.Req.Cluster)
	if err != nil {
		return nil, err
	}
	plan, err := inner(ctx, &placers.Request{Graph: c.Graph, Cluster: p.Req.Cluster, Estimates: est, Seed: p.Req.Seed})
	if err != nil {
		return nil, err
	}
	return c.Expand(plan)
}

// PlaceWith runs f on the problem of req, or, when fo.Coarsen is set, on
// the coarse graph of Celeritas' fusion with the placement mapped back to
// req's ops; unless priorities is set it drops the plan's priorities (the
// Baechi and Celeritas placers output a placement that the framework's
// executor runs in its own order).
func PlaceWith(ctx context.Context, req *placers.Request, fo FusionOptions, priorities bool, f func(context.Context, *Problem) (*engine.Plan, error)) (*engine.Plan, error) {
	p, err := NewProblem(req)
	if err != nil {
		return nil, err
	}
	var plan *engine.Plan
	if fo.Coarsen {
		plan, err = PlaceCoarse(ctx, p, fo, func(ctx context.Context, r *placers.Request) (*engine.Plan, error) {
			cp, err := NewProblem(r)
			if err != nil {
				return nil, err
			}
			return f(ctx, cp)
		})
	} else {
		plan, err = f(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	if !priorities {
		plan.Priority = nil
	}
	return plan, nil
}
