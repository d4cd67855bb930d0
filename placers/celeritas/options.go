package celeritas

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

// options are the settings both placers share.
type options struct {
	fo graphalg.FusionOptions
	// bestEffort puts an op that fits no device on the least-used one
	// (Celeritas section 5.2 and 6.3) instead of failing with
	// placers.ErrDoesNotFit.
	bestEffort bool
	// priorities attaches the estimated schedule's order to the plan; off
	// by default, since Celeritas outputs a placement that TensorFlow's
	// executor runs in its own order.
	priorities bool
}

func parseOptions(opts placers.Options) (options, error) {
	var o options
	var err error
	if o.fo, err = graphalg.ParseFusionOptions(opts, true); err != nil {
		return o, err
	}
	if o.bestEffort, err = graphalg.Bool(opts, "besteffort", true); err != nil {
		return o, err
	}
	if o.priorities, err = graphalg.Bool(opts, "priorities", false); err != nil {
		return o, err
	}
	return o, nil
}

// place runs f on the request's graph, or on its coarse graph when fusion
// is on, and drops the priorities unless asked for.
func (o options) place(ctx context.Context, req *placers.Request, f func(context.Context, *graphalg.Problem) (*engine.Plan, error)) (*engine.Plan, error) {
	p, err := graphalg.NewProblem(req)
	if err != nil {
		return nil, err
	}
	var plan *engine.Plan
	if o.fo.Coarsen {
		plan, err = graphalg.PlaceCoarse(ctx, p, o.fo, func(ctx context.Context, r *placers.Request) (*engine.Plan, error) {
			cp, err := graphalg.NewProblem(r)
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
	if !o.priorities {
		plan.Priority = nil
	}
	return plan, nil
}
