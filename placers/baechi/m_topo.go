package baechi

import (
	"context"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
)

var _ placers.Placer = (*MTopo)(nil)

// MTopo is Baechi's m-TOPO: the ops in the breadth-first topological order
// of Kahn's algorithm (a FIFO queue of ready ops; Celeritas section 4.2.2),
// each on the current device until that device's memory reaches its share
// of the graph's memory (the total over the number of accelerators), then
// on the next device; the last device takes the rest. An op whose unit does
// not fit the current device (its capacity) moves on to the next device;
// when no later device has room the first device with room takes it, and
// when none has, Place fails with an error wrapping placers.ErrDoesNotFit.
// Units of CPU-only ops go to the CPU device with the most free memory.
// Memory is charged as a static sum first, then, when that refuses the
// graph, by lifetime in a list schedule of the placement (graphalg.PlaceByLifetime).
type MTopo struct{ o options }

// NewMTopo makes an m-TOPO placer (options: Args).
func NewMTopo(a Args) (placers.Placer, error) { return &MTopo{o: a.options()}, nil }

// Name implements placers.Placer.
func (*MTopo) Name() string { return "m-topo" }

// MemoryAware implements placers.MemoryAware: m-TOPO keeps every device
// within its memory (graphalg.Book) or fails with placers.ErrDoesNotFit.
func (*MTopo) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (m *MTopo) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	return m.o.place(ctx, req, placeMTopo)
}

// placeMTopo is m-TOPO with memory charged by lifetime when the static sum
// refuses the graph (graphalg.PlaceByLifetime); the schedule the lifetime is taken
// over is ETF's list schedule of m-TOPO's placement.
func placeMTopo(ctx context.Context, p *graphalg.Problem) (*engine.Plan, error) {
	return graphalg.PlaceByLifetime(ctx, p, func(ctx context.Context, p *graphalg.Problem, b *graphalg.Book, aware, sched bool) (*engine.Plan, *graphalg.Schedule, error) {
		plan, err := mTopo(ctx, p, b, aware)
		if err != nil || !sched {
			return plan, nil, err
		}
		// list-schedule the fixed placement: every unit anchored
		fixed := p.Book()
		for op, d := range plan.Device {
			fixed.Place(op, d)
		}
		s := p.Schedule()
		if err := graphalg.ETF(ctx, s, fixed, graphalg.ETFConfig{Level: p.BLevel()}); err != nil {
			return nil, nil, err
		}
		return plan, s, nil
	})
}

// mTopo is m-TOPO's placement with book b; aware false places an op that
// fits no device on the one with the most free memory instead of failing.
func mTopo(ctx context.Context, p *graphalg.Problem, b *graphalg.Book, aware bool) (*engine.Plan, error) {
	acc := p.Targets.Acc
	var total int64
	seen := make([]bool, len(p.Targets.Units))
	for op, u := range p.Targets.UnitOf {
		if !seen[u] {
			seen[u] = true
			total += b.UnitMemory(op)
		}
	}
	share := total / int64(len(acc))
	plan := placers.NewPlan(p.Req.Graph)
	cur := 0
	for i, op := range p.Topo {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d := b.Forced(op)
		switch {
		case d >= 0:
		case p.Targets.NeedsCPU(op):
			d = mostFree(b, p.Targets.Of(op))
			if aware && !b.Fits(op, d) {
				return nil, b.NoFit(op)
			}
		default:
			for cur < len(acc)-1 && (b.Used[acc[cur]]+b.ChargeOn(op, acc[cur]) > share || !b.Fits(op, acc[cur])) {
				cur++
			}
			d = acc[cur]
			if !b.Fits(op, d) {
				d = -1
				for _, x := range acc {
					if b.Fits(op, x) {
						d = x
						break
					}
				}
				if d < 0 && !aware {
					d = mostFree(b, acc)
				}
				if d < 0 {
					return nil, b.NoFit(op)
				}
			}
		}
		b.Place(op, d)
		plan.Device[op] = d
	}
	return plan, nil
}

// mostFree is the device of devs with the most free memory (ties: first).
func mostFree(b *graphalg.Book, devs []int) int {
	best := devs[0]
	for _, d := range devs[1:] {
		if b.Free[d] > b.Free[best] {
			best = d
		}
	}
	return best
}

// options are the settings the three placers share.
type options struct {
	fo graphalg.FusionOptions
	// priorities attaches the estimated schedule's order to the plan (m-ETF
	// and m-SCT); off by default: Baechi outputs a placement, which
	// TensorFlow's executor runs in its own order.
	priorities bool
}

// place runs f on the request's graph, or on its coarse graph when fusion
// is on (see graphalg.PlaceWith).
func (o options) place(ctx context.Context, req *placers.Request, f func(context.Context, *graphalg.Problem) (*engine.Plan, error)) (*engine.Plan, error) {
	return graphalg.PlaceWith(ctx, req, o.fo, o.priorities, f)
}
