package celeritas

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var (
	_ placers.Placer      = (*Celeritas)(nil)
	_ placers.Reporter    = (*Celeritas)(nil)
	_ placers.MemoryAware = (*Celeritas)(nil)
)

// Celeritas is the Celeritas placer (Figure 2): the graph is fused into a
// coarse graph by optimal operation fusion over the CPD-TOPO order
// (Algorithm 1 with R = 200 and M a quarter of a device's memory), the
// coarse graph is placed by Adjusting Placement (Algorithm 2), and the
// placement is mapped back to the original ops, colocation units following
// their first op (section 6.1). It places with whatever estimates the
// request carries; the paper's are Standard Evaluation's
// (devices.StandardEvaluation, --estimates standard-eval). Options:
// coarsen (default true; false runs Adjusting Placement on the original
// graph), range, memfrac, besteffort (default true: the paper's
// best-effort rule, which can overfill a device and says so in the
// report's Relaxed; false: fail with placers.ErrDoesNotFit when every
// device is full), priorities (default
// false: attach the estimated schedule's order to the plan).
type Celeritas struct{ o options }

// NewCeleritas makes a Celeritas placer (options: Args).
func NewCeleritas(a Args) (placers.Placer, error) { return &Celeritas{o: a.options()}, nil }

// Name implements placers.Placer.
func (*Celeritas) Name() string { return "celeritas" }

// MemoryAware implements placers.MemoryAware: true unless besteffort=true
// lets an op that fits no device overfill the least-used one.
func (c *Celeritas) MemoryAware() bool { return !c.o.bestEffort }

// Place implements placers.Placer.
func (c *Celeritas) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := c.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter: the notes count the coarse ops
// Adjusting Placement moved off the previous op's device (eq. 9), and
// Relaxed says how many ops the best-effort rule put on a full device.
func (c *Celeritas) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	var st stats
	plan, err := c.o.place(ctx, req, func(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
		return adjustingPlacement(ctx, p, c.o.bestEffort, &st)
	})
	if err != nil {
		return nil, nil, err
	}
	return plan, st.report("Adjusting Placement"), nil
}
