package baechi

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var _ placers.Placer = (*MSCT)(nil)

// MSCT is Baechi's m-SCT: small communication time scheduling (Hanen and
// Munier 1995) made memory-aware. The linear programming relaxation
// (favouriteParents) gives each op at most one favourite child, which
// should run right after it on its device; list scheduling is then m-ETF
// with SCT's rule that a device is kept for the favourite child of the op
// it ran whenever the earliest-start choice would delay that child there
// (graphalg.ETFConfig.FavParent). A device whose memory would overflow is
// never a candidate, the child's included; memory is charged as a static
// sum first, then, when that refuses the graph, by lifetime in m-SCT's own
// schedule (graphalg.METFByLifetime with graphalg.WithFavParent). Options: lp (auto, gonum, cbc:
// the LP back end), window (ops per LP window; 0, the default, is 24 for
// gonum and 1,000 for cbc), coarsen, range, memfrac, priorities (the
// schedule's order on the plan; default false).
type MSCT struct {
	o       options
	backend string
	window  int
}

// NewMSCT makes an m-SCT placer (options: SCTArgs).
func NewMSCT(a SCTArgs) (placers.Placer, error) {
	return &MSCT{o: a.options(), backend: a.LP, window: a.Window}, nil
}

// Name implements placers.Placer.
func (*MSCT) Name() string { return "m-sct" }

// MemoryAware implements placers.MemoryAware: m-SCT keeps every device
// within its memory (graphalg.Book) or fails with placers.ErrDoesNotFit.
func (*MSCT) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (m *MSCT) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	return m.o.place(ctx, req, m.placeProblem)
}

func (m *MSCT) placeProblem(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
	fav, err := favouriteParents(ctx, p, m.backend, m.window)
	if err != nil {
		return nil, err
	}
	return graphalg.METFByLifetime(ctx, p, graphalg.WithFavParent(fav))
}
