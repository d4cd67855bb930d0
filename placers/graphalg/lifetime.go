package graphalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"placesim/engine"
	"placesim/placers"
)

// Memory by lifetime (issue 28). Baechi's m-TOPO, m-ETF and m-SCT are
// memory-constrained placers (Baechi, SoCC 2020; described as baselines in
// Celeritas section 2 and Pesto section 6): each keeps a device's memory
// within its capacity; Pesto's op-level m-ETF start (placers/pesto) runs
// the same rule. Charging every op's parameters and kept outputs as a
// static sum (Book) asks for more than a step ever holds: a tensor
// is resident only from its producer's start to the end of its last reader,
// so Celeritas Table 3's NMT sums to 129.8 GiB on 4 x 32 GB while a plan of
// it peaks at 24 GiB. The placers therefore first run as Baechi does, with
// the static book; when that refuses the graph, they run again with the
// book's budget relaxed (overcommit factors below) and accept the first
// plan whose peak by lifetime over the placer's own schedule fits every
// device (LifetimePeaks), the same ledger rule as the engine's
// (engine/memory.go: parameters resident throughout, an output from its
// producer's start until its last reader on the device ends, a received
// copy from the producer's end until its last reader there ends, a
// workspace while its op runs). A graph whose every relaxed plan overflows
// is refused with placers.ErrDoesNotFit naming the peak and capacity.

// overcommit are the factors by which the static book's budget is
// multiplied in turn; +Inf places without the book's memory check (the
// lifetime check alone decides).
var overcommit = []float64{1.5, 2, 3, 4, 8, math.Inf(1)}

// PlaceRun places p with book b (its budget possibly relaxed; memAware false
// when the book must not refuse) and returns the plan and, with sched, the
// placer's own schedule of it.
type PlaceRun func(ctx context.Context, p *Problem, b *Book, memAware, sched bool) (*engine.Plan, *Schedule, error)

// PlaceByLifetime runs f with the static book; when it refuses the graph
// (placers.ErrDoesNotFit), f runs with relaxed budgets and the first plan
// whose lifetime peak fits every device (less its Reserve, the
// margin for the engine running ops in another order than the estimate)
// is returned.
func PlaceByLifetime(ctx context.Context, p *Problem, f PlaceRun) (*engine.Plan, error) {
	plan, _, err := f(ctx, p, p.Book(), true, false)
	if err == nil || !errors.Is(err, placers.ErrDoesNotFit) {
		return plan, err
	}
	static := err
	est := p.Req.Estimates
	devs := est.Cluster.Devices
	limit := make([]int64, len(devs))
	for d := range devs {
		limit[d] = devs[d].Memory - Reserve(p.Req.Graph, est, devs[d].Memory)
	}
	worst := ""
	for _, a := range overcommit {
		b := p.Book()
		aware := !math.IsInf(a, 1)
		if aware {
			for d := range b.Free {
				b.Free[d] += int64((a - 1) * float64(devs[d].Memory))
			}
		}
		plan, s, err := f(ctx, p, b, aware, true)
		if err != nil {
			if errors.Is(err, placers.ErrDoesNotFit) {
				continue
			}
			return nil, err
		}
		peak := LifetimePeaks(p, s)
		over := -1
		for d := range peak {
			if peak[d] > limit[d] && (over < 0 || peak[d]-limit[d] > peak[over]-limit[over]) {
				over = d
			}
		}
		if over < 0 {
			return plan, nil
		}
		if worst == "" || aware {
			worst = fmt.Sprintf("budget x%g: %s peaks at %s by lifetime in the placer's schedule, limit %s (capacity %s less reserve)",
				a, devs[over].Name, gib(peak[over]), gib(limit[over]), gib(devs[over].Memory))
		}
	}
	return nil, fmt.Errorf("%w; no relaxed plan fits by lifetime either (last: %s)", static, worst)
}

// METFOption varies the list scheduling of METFByLifetime.
type METFOption func(*ETFConfig)

// WithFavParent gives METFByLifetime's ETF favourite parents
// (ETFConfig.FavParent: fav[v] is op v's, -1 for none), which makes it
// Baechi's m-SCT.
func WithFavParent(fav []int32) METFOption {
	return func(c *ETFConfig) { c.FavParent = fav }
}

// METFByLifetime is m-ETF (ETF with the problem's b-levels breaking ties,
// memory-aware) with memory charged by lifetime when the static book
// refuses the graph (PlaceByLifetime): Baechi's m-etf and Pesto's op-level
// m-ETF start both run it, and Baechi's m-sct with WithFavParent. The
// plan carries the schedule's start times as priorities.
func METFByLifetime(ctx context.Context, p *Problem, opts ...METFOption) (*engine.Plan, error) {
	return PlaceByLifetime(ctx, p, func(ctx context.Context, p *Problem, b *Book, aware, sched bool) (*engine.Plan, *Schedule, error) {
		cfg := ETFConfig{Level: p.BLevel(), MemoryAware: aware}
		for _, o := range opts {
			o(&cfg)
		}
		s := p.Schedule()
		if err := ETF(ctx, s, b, cfg); err != nil {
			return nil, nil, err
		}
		return s.Plan(), s, nil
	})
}

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// LifetimePeaks is each device's peak memory over schedule s (complete):
// parameters all along; an op's output on its device from its start until
// the last of its readers there ends (its own end when it has none there:
// sent copies leave when sent); on every other device holding a reader, a
// copy of the largest edge's bytes from the producer's end until the last
// reader there ends; an op's workspace from its start to its end.
func LifetimePeaks(p *Problem, s *Schedule) []int64 {
	est := p.Req.Estimates
	dag := s.DAG
	nDev := len(s.Lines)
	peak := make([]int64, nDev)
	type event struct {
		t     float64
		delta int64
	}
	evs := make([][]event, nDev)
	add := func(d int, from, to float64, b int64) {
		if b <= 0 {
			return
		}
		evs[d] = append(evs[d], event{from, b}, event{to, -b})
	}
	until := make([]float64, nDev)
	size := make([]int64, nDev)
	for v := 0; v < dag.Len(); v++ {
		pb, ob, tb := est.OpMemory(v)
		dv := s.Dev[v]
		peak[dv] += pb // parameters: resident for the whole step
		add(dv, s.Start[v], s.Finish[v], tb)
		for d := range until {
			until[d], size[d] = -1, 0
		}
		until[dv], size[dv] = s.Finish[v], ob
		lo, hi := dag.SuccRange(v)
		for j := lo; j < hi; j++ {
			c := dag.SuccAt(j)
			dc := s.Dev[c]
			until[dc] = math.Max(until[dc], s.Finish[c])
			if dc != dv {
				size[dc] = max(size[dc], dag.BytesAt(dag.DepOfSucc(j)))
			}
		}
		for d := range until {
			switch {
			case d == dv:
				add(d, s.Start[v], until[d], size[d])
			case until[d] >= 0:
				add(d, s.Finish[v], until[d], size[d])
			}
		}
	}
	for d, e := range evs {
		// at equal times frees come first: a buffer freed when a reader
		// ends is reusable by an op starting then (as in the engine)
		sort.Slice(e, func(i, j int) bool {
			if e[i].t != e[j].t {
				return e[i].t < e[j].t
			}
			return e[i].delta < e[j].delta
		})
		var cur, top int64
		for _, x := range e {
			cur += x.delta
			top = max(top, cur)
		}
		peak[d] += top
	}
	return peak
}
