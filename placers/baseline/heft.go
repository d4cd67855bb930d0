package baseline

import (
	"context"
	"math"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var _ placers.Placer = (*HEFT)(nil)

// HEFT is Heterogeneous Earliest Finish Time (Topcuoglu, Hariri and Wu,
// IEEE TPDS 13(3), 2002): ops in decreasing upward rank (section 4.1,
// eq. 7: the b-level with costs averaged over the devices), each on the
// device where it would finish first, searching idle slots between
// scheduled ops (insertion-based policy, eq. 3-4). It ignores memory (a
// reference for the memory-aware placers). A colocation unit goes where
// its first scheduled op goes. Options: coarsen, range, memfrac (see
// FusionArgs).
type HEFT struct{ fo graphalg.FusionOptions }

// NewHEFT makes a HEFT placer.
func NewHEFT(a FusionArgs) (placers.Placer, error) { return &HEFT{fo: a.Fusion}, nil }

// Name implements placers.Placer.
func (*HEFT) Name() string { return "heft" }

// Place implements placers.Placer.
func (h *HEFT) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	p, err := graphalg.NewProblem(req)
	if err != nil {
		return nil, err
	}
	if h.fo.Coarsen {
		return graphalg.PlaceCoarse(ctx, p, h.fo, func(ctx context.Context, r *placers.Request) (*engine.Plan, error) {
			cp, err := graphalg.NewProblem(r)
			if err != nil {
				return nil, err
			}
			return placeHEFT(ctx, cp)
		})
	}
	return placeHEFT(ctx, p)
}

func placeHEFT(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
	s := p.Schedule()
	b := p.Book()
	if err := ScheduleHEFT(ctx, s, p.BLevel(), p.Topo, b.Candidates, b.Place); err != nil {
		return nil, err
	}
	return s.Plan(), nil
}

// ScheduleHEFT runs HEFT's two phases on an empty schedule s: the ops
// sorted by decreasing rank (upward rank; ties, and ranks equal to 1e-12
// relative, by position in the topological order topo, which keeps the
// list topological when some costs are zero), then each op on the
// candidate device with the earliest finish time, searching idle slots
// (ties: the first candidate). candidates lists an op's devices at the
// time it is scheduled; place, when not nil, is told each choice.
func ScheduleHEFT(ctx context.Context, s *graphalg.Schedule, rank []float64, topo []int, candidates func(v int) []int, place func(v, d int)) error {
	order := graphalg.DecreasingRank(rank, topo)
	for i, v := range order {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bd, bs, bf := -1, 0.0, math.Inf(1)
		for _, d := range candidates(v) {
			st := s.EST(v, d, true)
			if f := st + s.Dur(v, d); f < bf {
				bd, bs, bf = d, st, f
			}
		}
		if bd < 0 {
			return graphalg.ErrNoDevice
		}
		s.Assign(v, bd, bs)
		if place != nil {
			place(v, bd)
		}
	}
	return nil
}
