package celeritas

import (
	"context"
	"fmt"

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

// place runs f on the request's graph, or on its coarse graph when fusion
// is on (see graphalg.PlaceWith).
func (o options) place(ctx context.Context, req *placers.Request, f func(context.Context, *graphalg.Problem) (*engine.Plan, error)) (*engine.Plan, error) {
	return graphalg.PlaceWith(ctx, req, o.fo, o.priorities, f)
}

// report describes the decisions counted in st by the named method.
func (st *stats) report(method string) *placers.Report {
	rep := &placers.Report{}
	if method == "Order-Place" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %d ops placed", method, st.ops))
	} else {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %d ops placed; %d moved off the previous op's device by eq. 9 (earlier start by more than back_cost), %d moved because that device was full",
			method, st.ops, st.moved, st.full))
	}
	if st.overfilled > 0 {
		rep.Relaxed = append(rep.Relaxed, fmt.Sprintf("memory: the best-effort rule put %d ops on a full device (besteffort=true)", st.overfilled))
	}
	return rep
}
