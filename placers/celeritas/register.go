package celeritas

import (
	"placesim/placers"
	"placesim/placers/graphalg"
)

// Args are the options both placers share: operation fusion (on by
// default, section 5.1.3), besteffort and priorities.
type Args struct {
	Fusion graphalg.FusionOptions
	// BestEffort puts an op that fits no device on the least-used one
	// (Celeritas section 5.2 and 6.3) instead of failing with
	// placers.ErrDoesNotFit.
	BestEffort bool
	// Priorities attaches the estimated schedule's order to the plan; off
	// by default, since Celeritas outputs a placement that TensorFlow's
	// executor runs in its own order.
	Priorities bool
}

// Declare implements placers.Args.
func (a *Args) Declare(d *placers.Decls) {
	a.Fusion.DeclareOptions(d, true)
	graphalg.DeclarePriorities(d, &a.Priorities)
	// on by default, as in the paper, which credits it for placing NMT
	// (section 6.3); false fails with placers.ErrDoesNotFit instead
	d.Bool(&a.BestEffort, "besteffort", true,
		"put an op that fits no device on the least-used one, as the paper does (sections 5.2, 6.3); false: fail with the numbers instead")
}

func (a Args) options() options {
	return options{fo: a.Fusion, bestEffort: a.BestEffort, priorities: a.Priorities}
}

// Register adds this package's placers to r.
func Register(r *placers.Registry) error {
	return r.AddAll(
		placers.Define("order-place", "Celeritas Order-Place: fused graph in CPD-TOPO order, each device filled to its memory in turn", NewOrderPlace),
		placers.Define("celeritas", "Celeritas: operation fusion (R=200, M=0.25) then Adjusting Placement (EST with insertion, back_cost rule)", NewCeleritas),
	)
}
