package pesto

import (
	"context"
	"math"
	"slices"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// DefaultLayerSearch is the number of simulations the layer search may
// spend (option layersearch=). On NMT-2-1024 (10 layers) both of its
// starts reach their local optimum within 70-100 simulations (192.95 ms
// at 0.1x NVLink, against 238.5 ms for the best of the other starts with
// placement-group moves); NMT-4 (14 layers) and RNNLM-16 (19) within
// 110-370. A simulation of these graphs takes 3-10 ms on the development
// machine when it is quiet (BenchmarkLayerSearch, NMT-2: 57 simulations
// per second under load), so the default costs a few seconds per
// placement: in `placesim reproduce pesto`, 1.5 s (NASNet-6-148) to 3 s
// (Transformer-6-16-2048) per Pesto point. A count, not a clock, keeps the result deterministic.
const DefaultLayerSearch = 400

// keptLayerSearch is Result.Kept when the plan is the layer search's.
const keptLayerSearch = "layer search"

// layerUnits groups g's ops into the units the layer search moves: the
// model's layers (Op.Layer; an op without one is a unit with its
// colocation group), merged where a colocation group spans layers. It
// returns each op's unit and each unit's ops.
func layerUnits(g *workloads.Graph) (unitOf []int, units [][]int) {
	unitOf = make([]int, len(g.Ops))
	parent := []int{}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	byLayer := map[string]int{}
	gOf, groups := placers.Groups(g)
	for op := range g.Ops {
		key := g.Ops[op].Layer
		if key == "" {
			// the op's colocation group stands for its layer
			key = "\x00" + g.Ops[groups[gOf[op]][0]].Name
		}
		u, ok := byLayer[key]
		if !ok {
			u = len(parent)
			byLayer[key] = u
			parent = append(parent, u)
		}
		unitOf[op] = u
	}
	for _, ops := range groups {
		for _, op := range ops[1:] {
			if a, b := find(unitOf[ops[0]]), find(unitOf[op]); a != b {
				parent[b] = a
			}
		}
	}
	id := map[int]int{}
	for op := range g.Ops {
		r := find(unitOf[op])
		u, ok := id[r]
		if !ok {
			u = len(units)
			id[r] = u
			units = append(units, nil)
		}
		unitOf[op] = u
		units[u] = append(units[u], op)
	}
	return unitOf, units
}

// layerSearchResult is what layerSearch found.
type layerSearchResult struct {
	plan *engine.Plan
	time float64
	// units is the number of units, evals the simulations run.
	units, evals int
	// unitOf is each op's unit, load each unit's estimated compute, and
	// tried every assignment of units to devices the search played with
	// its step (a finite one), for the range search's starts.
	unitOf []int
	load   []float64
	tried  []triedAssignment
}

// triedAssignment is a unit assignment the layer search played.
type triedAssignment struct {
	ud []int
	t  float64
}

// layerSearch places whole layers: a local search over the assignment of
// the model's layers (layerUnits) to the accelerators, each candidate
// played with the estimates (simulateEstimated) under a list schedule by
// upward rank (b-level with the candidate's cut edges' transfer times,
// as HEFT ranks ops), keeping the fastest. It starts from the longest-
// processing-time assignment (largest layer first to the least loaded
// accelerator) and from the layers in topological order cut into equal
// shares, the faster first, and improves each by passes that play every single-layer move
// and two-layer swap and keep the fastest, until a pass finds nothing
// faster or budget simulations are spent.
//
// This is a coarsening of the graph along its layers (section 3.3: a
// merged vertex is placed whole, its members scheduled in dependency
// order), which keeps every LSTM time-step chain and every shared
// weight's readers together: a layer split over the GPUs pays a transfer
// of the weight's gradient for each remote reader, while a layer boundary
// passes one activation per time step. Pesto's objective is the makespan
// (section 3.2.2) and its what-if simulator (section 4) is how placements
// are compared; the search optimises that objective on these vertices,
// where CBC, within its limit, does not improve on its start (issue 28).
// It returns ok=false when the graph has fewer than two units or a unit
// has no device that runs all its ops.
func layerSearch(ctx context.Context, g *workloads.Graph, eg *workloads.Graph, cl *devices.Cluster, est *devices.Estimates, budget int) (layerSearchResult, bool) {
	acc, _ := placers.Targets(cl)
	unitOf, units := layerUnits(g)
	res := layerSearchResult{time: math.Inf(1), units: len(units)}
	if len(units) < 2 || len(acc) < 2 || budget <= 0 {
		return res, false
	}
	// each unit's targets: the accelerators that run all its ops, else the
	// first device that does (a CPU-only layer)
	targets := make([][]int, len(units))
	load := make([]float64, len(units))
	movable := 0
	for u, ops := range units {
		for _, op := range ops {
			load[u] += est.MinOpTime(op)
		}
		for _, d := range acc {
			if runsAll(est, ops, d) {
				targets[u] = append(targets[u], d)
			}
		}
		if len(targets[u]) == 0 {
			for d := range cl.Devices {
				if runsAll(est, ops, d) {
					targets[u] = []int{d}
					break
				}
			}
		}
		if len(targets[u]) == 0 {
			return res, false
		}
		if len(targets[u]) > 1 {
			movable++
		}
	}
	if movable == 0 {
		return res, false
	}
	res.unitOf, res.load = unitOf, load
	order, err := g.TopoOrder()
	if err != nil {
		return res, false
	}
	// units by load, largest first: the order of the starts and the moves
	byLoad := make([]int, len(units))
	for u := range byLoad {
		byLoad[u] = u
	}
	sort.SliceStable(byLoad, func(i, j int) bool { return load[byLoad[i]] > load[byLoad[j]] })

	eval := func(ud []int) (*engine.Plan, float64) {
		res.evals++
		dev := make([]int, len(g.Ops))
		for op := range dev {
			dev[op] = ud[unitOf[op]]
		}
		plan, t := playRanked(g, eg, cl, est, order, dev)
		if !math.IsInf(t, 1) {
			res.tried = append(res.tried, triedAssignment{slices.Clone(ud), t})
		}
		return plan, t
	}
	// climb improves ud by passes of best improvement: every single-layer
	// move and every two-layer swap is played, and the fastest, when it
	// beats the current plan, is kept (a first improvement would settle
	// for moves that pile the layers onto one GPU, after which no swap
	// is left to try)
	climb := func(ud []int, plan *engine.Plan, best float64) {
		spent := func() bool { return res.evals >= budget || ctx.Err() != nil }
		for plan != nil && !spent() {
			var next *engine.Plan
			nextT := best * (1 - 1e-9)
			var nu, nv, du, dv int
			try := func(u, d, v, e int) {
				old, oldV := ud[u], ud[v]
				ud[u], ud[v] = d, e
				if p, t := eval(ud); p != nil && t < nextT {
					next, nextT, nu, du, nv, dv = p, t, u, d, v, e
				}
				ud[u], ud[v] = old, oldV
			}
			for _, u := range byLoad {
				for _, d := range targets[u] {
					if d != ud[u] && !spent() {
						try(u, d, u, d)
					}
				}
			}
			for i, u := range byLoad {
				for _, v := range byLoad[i+1:] {
					a, b := ud[u], ud[v]
					if a != b && !spent() && slices.Contains(targets[u], b) && slices.Contains(targets[v], a) {
						try(u, b, v, a)
					}
				}
			}
			if next == nil {
				break
			}
			ud[nu], ud[nv] = du, dv
			plan, best = next, nextT
		}
		if plan != nil && best < res.time {
			res.plan, res.time = plan, best
		}
	}
	// both starts played, then the climb from the faster first (on a graph
	// of many layers one climb spends the budget)
	type start struct {
		ud   []int
		plan *engine.Plan
		t    float64
	}
	var starts []start
	for _, ud := range [][]int{lptStart(byLoad, load, targets, acc), contiguousStart(g, order, unitOf, load, targets, acc)} {
		if res.evals >= budget || ctx.Err() != nil {
			break
		}
		plan, t := eval(ud)
		starts = append(starts, start{ud, plan, t})
	}
	sort.SliceStable(starts, func(i, j int) bool { return starts[i].t < starts[j].t })
	for _, st := range starts {
		if res.evals >= budget || ctx.Err() != nil {
			break
		}
		climb(st.ud, st.plan, st.t)
	}
	for _, st := range starts { // a start the budget left no climb for
		if st.plan != nil && st.t < res.time {
			res.plan, res.time = st.plan, st.t
		}
	}
	return res, res.plan != nil
}

// lptStart deals the units, largest first, to the least loaded of their
// targets.
func lptStart(byLoad []int, load []float64, targets [][]int, acc []int) []int {
	ud := make([]int, len(load))
	busy := map[int]float64{}
	for _, u := range byLoad {
		best := targets[u][0]
		for _, d := range targets[u][1:] {
			if busy[d] < busy[best] {
				best = d
			}
		}
		ud[u] = best
		busy[best] += load[u]
	}
	return ud
}

// contiguousStart cuts the units, in the topological order of their first
// op, into len(acc) runs of about equal load (as Expert's layer split).
func contiguousStart(g *workloads.Graph, order, unitOf []int, load []float64, targets [][]int, acc []int) []int {
	seen := make([]bool, len(load))
	var seq []int
	var total float64
	for _, op := range order {
		if u := unitOf[op]; !seen[u] {
			seen[u] = true
			seq = append(seq, u)
			total += load[u]
		}
	}
	ud := make([]int, len(load))
	var sum float64
	for _, u := range seq {
		r := 0
		if total > 0 {
			r = min(int((sum+load[u]/2)/total*float64(len(acc))), len(acc)-1)
		}
		sum += load[u]
		ud[u] = targets[u][0]
		if slices.Contains(targets[u], acc[r]) {
			ud[u] = acc[r]
		}
	}
	return ud
}

// playRanked plays the placement dev (op to device) list-scheduled by
// upward rank with the estimates, as the layer and range searches play
// their candidates: the plan and its simulated step time (+Inf when the
// simulation fails).
func playRanked(g, eg *workloads.Graph, cl *devices.Cluster, est *devices.Estimates, order, dev []int) (*engine.Plan, float64) {
	plan := &engine.Plan{Device: dev, Priority: make([]float64, len(g.Ops))}
	upwardRank(g, est, plan.Device, order, plan.Priority)
	t, err := simulateEstimated(eg, cl, plan)
	if err != nil {
		return nil, math.Inf(1)
	}
	return plan, t
}

// upwardRank writes into rank each op's upward rank on the placement dev:
// its estimated time on its device plus the longest path to the end of the
// step, a cut edge counting its estimated transfer time (HEFT's rank).
func upwardRank(g *workloads.Graph, est *devices.Estimates, dev []int, order []int, rank []float64) {
	for i := len(order) - 1; i >= 0; i-- {
		op := order[i]
		var m float64
		for _, eid := range g.Out(op) {
			e := &g.Edges[eid]
			x := rank[e.To]
			if dev[e.To] != dev[op] {
				x += est.TransferTime(dev[op], dev[e.To], e.Bytes)
			}
			m = max(m, x)
		}
		t := est.OpTime(op, dev[op])
		if math.IsInf(t, 1) {
			t = 0
		}
		rank[op] = m + t
	}
}

func runsAll(est *devices.Estimates, ops []int, d int) bool {
	for _, op := range ops {
		if !est.CanRun(op, d) {
			return false
		}
	}
	return true
}
