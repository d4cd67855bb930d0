package pesto

import (
	"context"
	"math"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// DefaultOrderSearch is the number of simulations the order search may
// spend on the fastest plan (option ordersearch=). A count, not a clock,
// keeps the result deterministic.
const DefaultOrderSearch = 120

// orderSearchResult is what orderSearch found.
type orderSearchResult struct {
	plan *engine.Plan
	time float64
	// moves is the number of order moves kept, evals the simulations run.
	moves, evals int
}

// orderSearch improves the per-device order of plan (simulated with the
// estimates in t0) with its placement fixed. Pesto's ILP decides the
// order of the ops on each device and, through the congestion constraints
// of section 3.2.2, the order of the transfers on each link; a list
// schedule by priority decides neither for the link, which the engine
// serves first come, first served, so a big transfer sent early (a weight
// gradient) holds back the small latency-critical ones behind it. The
// search takes the order the plan played (each device's ops by simulated
// start) and moves the producers of cross-device transfers, largest
// first, later or earlier on their device by 1, 2, 4, ... positions,
// never past an op on the same device that depends on it (or that it
// depends on), keeping the first move that plays faster with the
// estimates; passes repeat until one keeps nothing or budget simulations
// are spent. A candidate is played two ways: with its order as priorities
// (the earlier in its device's order, the higher; a device whose next op
// waits for a transfer runs a ready one instead, so that moving a
// producer lets the consumer of the transfer it no longer holds back run
// as soon as its input is there) and as a strict engine.Plan.Order (a
// device waits for its next op, so that a producer of a big transfer
// moved later stays later even when its device is idle); the faster
// counts. Each play is one simulation of the budget.
func orderSearch(ctx context.Context, eg *workloads.Graph, cl *devices.Cluster, plan *engine.Plan, t0 float64, budget int) orderSearchResult {
	best := orderSearchResult{plan: plan, time: t0}
	if budget <= 0 || plan.Pipeline != nil || plan.DataParallel != nil || plan.Graph != nil {
		return best
	}
	pl := *plan
	r, err := engine.Simulate(eg, cl, &pl, engine.Options{})
	best.evals++
	if err != nil || r.OOM != nil || r.OrderRelaxed != "" || len(r.OpStart) != len(eg.Ops) {
		return best
	}
	n := len(eg.Ops)
	orders := make([][]int, len(cl.Devices))
	for op := 0; op < n; op++ {
		d := plan.Device[op]
		orders[d] = append(orders[d], op)
	}
	for _, seq := range orders {
		sort.SliceStable(seq, func(i, j int) bool {
			a, b := seq[i], seq[j]
			if r.OpStart[a] != r.OpStart[b] {
				return r.OpStart[a] < r.OpStart[b]
			}
			return r.OpEnd[a] < r.OpEnd[b]
		})
	}
	// the producers of cross-device transfers, most bytes first
	sent := make([]int64, n)
	for i := range eg.Edges {
		e := &eg.Edges[i]
		if plan.Device[e.From] != plan.Device[e.To] {
			sent[e.From] += e.Bytes
		}
	}
	var senders []int
	for op := 0; op < n; op++ {
		if sent[op] > 0 {
			senders = append(senders, op)
		}
	}
	sort.SliceStable(senders, func(i, j int) bool { return sent[senders[i]] > sent[senders[j]] })
	pos := make([]int, n)
	index := func() {
		for _, seq := range orders {
			for i, op := range seq {
				pos[op] = i
			}
		}
	}
	index()
	dev := plan.Device
	// play plays the current orders both ways, as priorities (the earlier
	// in its device's order, the higher) and as a strict per-device order
	// (engine.Plan.Order), and returns the faster
	play := func() (*engine.Plan, float64) {
		var bestPlan *engine.Plan
		bestT := math.Inf(1)
		prio := &engine.Plan{Device: dev, Priority: make([]float64, n)}
		for op := range prio.Priority {
			prio.Priority[op] = -float64(pos[op])
		}
		strict := &engine.Plan{Device: dev, Order: make([][]int, len(orders))}
		for d, seq := range orders {
			strict.Order[d] = append([]int(nil), seq...)
		}
		for _, cand := range []*engine.Plan{prio, strict} {
			best.evals++
			res, err := engine.Simulate(eg, cl, cand, engine.Options{})
			if err != nil || res.OOM != nil || res.OrderRelaxed != "" {
				continue
			}
			if res.StepTime < bestT {
				bestPlan, bestT = cand, res.StepTime
			}
		}
		return bestPlan, bestT
	}
	// the order as played is itself a candidate (it may differ from the
	// plan's priorities by a tie, or the plan had none)
	if cand, t := play(); cand != nil && t < best.time*(1-1e-9) {
		best.plan, best.time = cand, t
	}
	spent := func() bool { return best.evals >= budget || ctx.Err() != nil }
	// limit returns how far op may move on its device in direction dir
	// (+1 later, -1 earlier): up to the first op it reaches that depends
	// on it (later) or that it depends on (earlier), exclusive.
	limit := func(op, dir int) int {
		seq := orders[dev[op]]
		mark := map[int]bool{}
		stack := []int{op}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			var next []int
			if dir > 0 {
				for _, eid := range eg.Out(v) {
					next = append(next, eg.Edges[eid].To)
				}
			} else {
				for _, eid := range eg.In(v) {
					next = append(next, eg.Edges[eid].From)
				}
			}
			for _, w := range next {
				if !mark[w] {
					mark[w] = true
					stack = append(stack, w)
				}
			}
		}
		k := 0
		for i := pos[op] + dir; i >= 0 && i < len(seq) && !mark[seq[i]]; i += dir {
			k++
		}
		return k
	}
	move := func(op, by int) {
		seq := orders[dev[op]]
		i := pos[op]
		j := i + by
		if by > 0 {
			copy(seq[i:j], seq[i+1:j+1])
		} else {
			copy(seq[j+1:i+1], seq[j:i])
		}
		seq[j] = op
		lo, hi := min(i, j), max(i, j)
		for k := lo; k <= hi; k++ {
			pos[seq[k]] = k
		}
	}
	for improved := true; improved && !spent(); {
		improved = false
		for _, op := range senders {
			if spent() {
				break
			}
			for _, dir := range []int{1, -1} {
				lim := limit(op, dir)
				kept := false
				for k := 1; k <= lim && !spent(); k *= 2 {
					move(op, dir*k)
					if cand, t := play(); cand != nil && t < best.time*(1-1e-9) {
						best.plan, best.time = cand, t
						best.moves++
						improved, kept = true, true
						break
					}
					move(op, -dir*k)
				}
				if kept {
					break
				}
			}
		}
	}
	return best
}
