package fastt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// simulate estimates a plan's per-iteration time the way FastT measures a
// strategy it has activated (section 4: it rolls back a new strategy that
// is slower than the previous one): the engine plays the plan on a copy of
// the graph whose ops take the cost model's times (so the placer still
// sees only its estimates), with the cluster's links. An out-of-memory
// plan is +Inf, and oom says where it ran out.
func (m *CostModel) simulate(w *work, times []float64, plan *engine.Plan) (t float64, oom string, err error) {
	g, pl := m.estimated(w, times, plan)
	res, err := engine.Simulate(g, m.c, pl, engine.Options{})
	if err != nil {
		return 0, "", err
	}
	if res.OOM != nil {
		return math.Inf(1), res.OOM.Err().Error(), nil
	}
	return res.StepTime, "", nil
}

// estimated is a copy of w's graph whose ops take the cost model's times,
// and plan for it.
func (m *CostModel) estimated(w *work, times []float64, plan *engine.Plan) (*workloads.Graph, *engine.Plan) {
	g := w.g.Clone()
	K := len(m.kinds)
	for v := range g.Ops {
		ms := make(map[string]float64, K)
		for k, kind := range m.kinds {
			t := times[v*K+k]
			if math.IsInf(t, 1) {
				continue
			}
			if kind.MeasuredScale > 0 {
				t /= kind.MeasuredScale
			}
			ms[kind.Name] = t
		}
		g.Ops[v].Measured = ms
	}
	pl := *plan
	pl.Graph = g
	return g, &pl
}

// profile is simulate that, with trace, also returns the plan's tensor
// transfers as FastT's profiler records them (section 4, Cost Models):
// each from its send to its receive, less the time it waited for a busy
// link (DPOS books the links itself: linkBook), so that the regression
// sees the bandwidth and latency each path offers.
func (m *CostModel) profile(w *work, times []float64, plan *engine.Plan, trace bool) (float64, []Transfer, error) {
	g, pl := m.estimated(w, times, plan)
	res, err := engine.Simulate(g, m.c, pl, engine.Options{Trace: trace})
	if err != nil {
		return 0, nil, err
	}
	var ts []Transfer
	if trace && res.Trace != nil {
		for _, r := range res.Trace.Transfers {
			if len(r.Hops) == 0 {
				continue
			}
			ts = append(ts, Transfer{Src: r.Src, Dst: r.Dst, Bytes: r.Bytes, Seconds: onLinks(r.Hops)})
		}
	}
	if res.OOM != nil {
		return math.Inf(1), ts, nil
	}
	return res.StepTime, ts, nil
}

// profileRounds is FastT's pre-training loop (section 4): the strategy is
// run (simulated with a trace), the communication model is updated with
// the transfers it profiled, and DPOS computes a new strategy with it; a
// new strategy is kept only when it is faster than the best so far. The
// strategies are played with their order enforced whatever the option
// enforce-order says, so that the option changes only the priorities of
// the plan returned, never its placement. It returns the cost model,
// problem and schedule of the best strategy.
func (f *FastT) profileRounds(ctx context.Context, req *placers.Request, cm *CostModel, p *problem, sc *schedule, rep *placers.Report) (*CostModel, *problem, *schedule, error) {
	best, bestP, bestSc := cm, p, sc
	bestT := math.Inf(1)
	cur, curSc := cm, sc
	for i := 0; i < f.rounds; i++ {
		t, ts, err := cur.profile(p.w, curSc.times, curSc.plan(true, req.Graph), true)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("profile round %d: %w", i+1, err)
		}
		if i == 0 {
			bestT = t
			rep.Notes = append(rep.Notes, fmt.Sprintf("profile: DPOS strategy simulates at %.6g s, %d transfers", t, len(ts)))
		}
		if cur, err = cur.Update(ts); err != nil {
			return nil, nil, nil, err
		}
		np, err := newProblem(p.w, cur)
		if err != nil {
			return nil, nil, nil, err
		}
		s, err := dpos(ctx, np)
		if errors.Is(err, placers.ErrDoesNotFit) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		t2, _, err := cur.simulate(p.w, s.times, s.plan(true, req.Graph))
		if err != nil {
			return nil, nil, nil, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("profile round %d: refitted model, DPOS FT(o_exit) %.6g s, simulates at %.6g s", i+1, s.finish, t2))
		if t2 < bestT {
			best, bestP, bestSc, bestT = cur, np, s, t2
		}
		curSc = s
	}
	return best, bestP, bestSc, nil
}

// onLinks is a transfer's time from its first hop's start to its last
// hop's end, less what it waited in later hops' queues.
func onLinks(hops []engine.HopRecord) float64 {
	t := hops[len(hops)-1].End - hops[0].Start
	for _, h := range hops[1:] {
		if w := h.Start - h.Enqueue; w > 0 {
			t -= w
		}
	}
	return max(t, 0)
}

// settle is FastT's estimate of a strategy once it has run (section 4:
// the strategy is activated, profiled, and the cost model updated with
// what was measured): the plan is profiled, the communication model
// refitted on its transfers, and its placement and order replayed with
// the refitted model (DPOS's schedule, same devices, same order). It
// returns FT(o_exit) of the replay and the refitted model.
func (m *CostModel) settle(sc *schedule, orig *workloads.Graph) (float64, *CostModel, error) {
	_, ts, err := m.profile(sc.w, sc.times, sc.plan(true, orig), true)
	if err != nil {
		return 0, nil, err
	}
	u, err := m.Update(ts)
	if err != nil {
		return 0, nil, err
	}
	p, err := newProblem(sc.w, u)
	if err != nil {
		return 0, nil, err
	}
	return replay(p, sc).Makespan(), u, nil
}

// replay schedules p's ops on the devices and in the order of sc, each at
// its earliest start (with insertion) under p's cost model.
func replay(p *problem, sc *schedule) *graphalg.Schedule {
	s := graphalg.NewSchedule(p.d, len(p.cm.c.Devices), p.dur, p.comm)
	lb := newLinkBook(p)
	for _, v := range sc.order {
		lb.assign(s, v, sc.s.Dev[v])
	}
	return s
}
