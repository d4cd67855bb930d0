package baseline

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var _ placers.Placer = (*ETF)(nil)

// ETF is earliest-task-first list scheduling with communication (Hwang,
// Chow, Anger and Lee, SIAM J. Comput. 18(2), 1989; graphalg.ETF): at each
// step the ready op and device with the earliest start time, ties to the
// higher static level (b-level with mean costs). It ignores memory (the
// reference for Baechi's m-ETF). Options: coarsen, range, memfrac.
type ETF struct{ fo graphalg.FusionOptions }

// NewETF makes an ETF placer.
func NewETF(a FusionArgs) (placers.Placer, error) { return &ETF{fo: a.Fusion}, nil }

// Name implements placers.Placer.
func (*ETF) Name() string { return "etf" }

// Place implements placers.Placer.
func (e *ETF) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	p, err := graphalg.NewProblem(req)
	if err != nil {
		return nil, err
	}
	if e.fo.Coarsen {
		return graphalg.PlaceCoarse(ctx, p, e.fo, func(ctx context.Context, r *placers.Request) (*engine.Plan, error) {
			cp, err := graphalg.NewProblem(r)
			if err != nil {
				return nil, err
			}
			return placeETF(ctx, cp)
		})
	}
	return placeETF(ctx, p)
}

func placeETF(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
	s := p.Schedule()
	if err := graphalg.ETF(ctx, s, p.Book(), graphalg.ETFConfig{Level: p.BLevel()}); err != nil {
		return nil, err
	}
	return s.Plan(), nil
}
