package celeritas

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var (
	_ placers.Placer   = (*OrderPlace)(nil)
	_ placers.Reporter = (*OrderPlace)(nil)
)

// OrderPlace is Celeritas' Order-Place (sections 5.2 and 6.2.2): the ops
// of the coarse graph from operation fusion in CPD-TOPO order, placed on
// one device until it reaches its memory limit, then on the next; the
// order keeps the fused graph's communication low. When no device is left,
// the paper's best-effort rule (besteffort=true, the default) puts the op
// on the device with the least memory in use (section 6.3), or with
// besteffort=false Place fails with placers.ErrDoesNotFit. Colocation units go where their first op goes
// (section 6.1). Options: coarsen (default true), range, memfrac,
// besteffort, priorities.
type OrderPlace struct{ o options }

// NewOrderPlace makes an Order-Place placer (options: Args).
func NewOrderPlace(a Args) (placers.Placer, error) { return &OrderPlace{o: a.options()}, nil }

// Name implements placers.Placer.
func (*OrderPlace) Name() string { return "order-place" }

// MemoryAware implements placers.MemoryAware: true unless besteffort=true
// lets an op that fits no device overfill the least-used one.
func (op *OrderPlace) MemoryAware() bool { return !op.o.bestEffort }

// Place implements placers.Placer.
func (op *OrderPlace) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := op.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter: Relaxed says how many ops the
// best-effort rule put on a full device.
func (op *OrderPlace) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	var st stats
	plan, err := op.o.place(ctx, req, func(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
		return op.placeProblem(ctx, p, &st)
	})
	if err != nil {
		return nil, nil, err
	}
	return plan, st.report("Order-Place"), nil
}

func (op *OrderPlace) placeProblem(ctx context.Context, p *graphalg.Problem, st *stats) (*engine.Plan, error) {
	order, err := p.CPDOrder()
	if err != nil {
		return nil, err
	}
	b := p.Book()
	plan := placers.NewPlan(p.Req.Graph)
	plan.Priority = make([]float64, len(order))
	acc := p.Targets.Acc
	cur := 0
	for i, v := range order {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		plan.Priority[v] = -float64(i)
		d := b.Forced(v)
		if d < 0 {
			devs := acc
			k := &cur
			if p.Targets.NeedsCPU(v) {
				devs = p.Targets.Of(v)
				k = new(int)
			}
			for *k < len(devs) && !b.Fits(v, devs[*k]) {
				*k++
			}
			switch {
			case *k < len(devs):
				d = devs[*k]
			case op.o.bestEffort:
				d = b.LeastUsed(devs)
				st.overfilled++
			default:
				return nil, b.NoFit(v)
			}
		}
		st.ops++
		b.Place(v, d)
		plan.Device[v] = d
	}
	return plan, nil
}
