package baechi

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var _ placers.Placer = (*METF)(nil)

// METF is Baechi's m-ETF: earliest-task-first list scheduling with
// communication (graphalg.ETF; Hwang et al. 1989) in which a device whose
// memory would overflow with the op's colocation unit is not a candidate.
// Ties between ops that could start together go to the higher b-level.
// When a ready op fits no device, Place fails with an error wrapping
// placers.ErrDoesNotFit. Memory is charged as a static sum first, then,
// when that refuses the graph, by lifetime in m-ETF's own schedule
// (graphalg.PlaceByLifetime). With priorities=true the plan carries the
// schedule's order.
type METF struct{ o options }

// NewMETF makes an m-ETF placer (options: Args).
func NewMETF(a Args) (placers.Placer, error) { return &METF{o: a.options()}, nil }

// Name implements placers.Placer.
func (*METF) Name() string { return "m-etf" }

// MemoryAware implements placers.MemoryAware: m-ETF keeps every device
// within its memory (graphalg.Book) or fails with placers.ErrDoesNotFit.
func (*METF) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (m *METF) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	return m.o.place(ctx, req, placeMETF)
}

// placeMETF is m-ETF with memory charged by lifetime when the static sum
// refuses the graph (graphalg.METFByLifetime).
func placeMETF(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
	return graphalg.METFByLifetime(ctx, p)
}
