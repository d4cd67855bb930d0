package pesto

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
)

// DefaultRangeSearch is the number of simulations the range search may
// spend (option rangesearch=). On NMT-2-1024 it ends within 253 at every
// NVLink speed of Figure 8 (2.4-3 s on the development machine under
// load); a count, not a clock, keeps the result deterministic.
const DefaultRangeSearch = 400

// keptRangeSearch is Result.Kept when the plan is the range search's.
const keptRangeSearch = "range search"

// Range search constants. A layer's movable placement groups are cut into
// rangeSlices slices along a topological order (an unrolled recurrent
// layer's time steps, a layer's branches), and a move sends a run of
// rangeLengths[i]/rangeSlices of the layer (a sixth, a third) to another
// accelerator; a layer whose unit (layerUnits: the layer, or the layers
// a colocation group joins) is below rangeMinShare of the graph's
// estimated compute is not cut (its runs move little work, and each move
// is a simulation). The search starts from the rangeStarts fastest distinct
// plans of the layer search.
const (
	rangeSlices   = 48
	rangeMinShare = 0.02
	rangeStarts   = 6
)

var rangeLengths = []int{8, 16}

// rangeSearchResult is what rangeSearch found.
type rangeSearchResult struct {
	plan *engine.Plan
	time float64
	// starts is the number of layer plans it started from, evals the
	// simulations run, moves the moves kept on the way to plan.
	starts, evals, moves int
}

// rangeMove sends the groups of one run of a layer's slices to dev.
type rangeMove struct {
	groups []int
	dev    int
}

// rangeSearch refines the layer search's plans by moving runs of a layer
// to another accelerator: the time steps of an unrolled recurrent layer
// (or a layer's branches) in a contiguous range, a cut that whole layers
// cannot express. Pesto's ILP places op by op (section 3.2.2), so any cut
// of a layer is a placement it may choose; what the layer granularity
// misses on a two-phase training step is the balance of each phase: every
// backward op waits for the loss, so the step is at least the later
// device's end of the forward pass plus the larger backward share, and
// layers whose forward and backward shares differ must be split to even
// out both (NMT-2 at 0.1x NVLink: the first decoder time steps of the
// second decoder LSTM moved next to the softmax, the last steps of the
// backward encoder direction next to the encoder's second layer).
//
// Each candidate is played with the estimates under a list schedule by
// upward rank, as the layer search plays its candidates. From each of the
// rangeStarts fastest layer plans the layer search tried (distinct in the
// placement of the layers above rangeMinShare, and in step time, which
// drops a plan's mirror image on identical devices) it plays one pass of
// the moves of the longest runs and keeps the fastest when it beats the
// start (on NMT-2 the fastest layer plans gain nothing, the fifth and
// sixth most, so a cheap pass from each ranks them); then it goes on from
// the fastest plan so found with every move, pass after pass, until a
// pass keeps nothing or budget simulations are spent. It returns ok=false
// when no layer is cut, the layer search gave no plan, or no start's pass
// of the longest runs beats that start (the shorter runs are then not
// tried).
func rangeSearch(ctx context.Context, g, eg *workloads.Graph, cl *devices.Cluster, est *devices.Estimates, ls layerSearchResult, budget int) (rangeSearchResult, bool) {
	res := rangeSearchResult{time: math.Inf(1)}
	acc, _ := placers.Targets(cl)
	if budget <= 0 || len(ls.tried) == 0 || ls.unitOf == nil || len(acc) < 2 {
		return res, false
	}
	order, err := g.TopoOrder()
	if err != nil {
		return res, false
	}
	pos := make([]int, len(g.Ops))
	for i, op := range order {
		pos[op] = i
	}
	_, groups := placers.Groups(g)
	var total float64
	for _, l := range ls.load {
		total += l
	}
	// each group's unit (a layer), first position and whether it is pinned
	// to its unit's device: a group with parameters (a shared weight, read
	// by every slice of its layer) or without a layer
	type grp struct {
		unit, first int
		layer       string
	}
	gs := make([]grp, len(groups))
	byLayer := map[string][]int{}
	var layers []string
	for gi, ops := range groups {
		gs[gi] = grp{unit: ls.unitOf[ops[0]], first: math.MaxInt}
		pinned := false
		for _, op := range ops {
			gs[gi].first = min(gs[gi].first, pos[op])
			if g.Ops[op].ParamBytes > 0 {
				pinned = true
			}
			if gs[gi].layer == "" {
				gs[gi].layer = g.Ops[op].Layer
			}
		}
		if pinned || gs[gi].layer == "" || ls.load[gs[gi].unit] < rangeMinShare*total {
			continue
		}
		if _, ok := byLayer[gs[gi].layer]; !ok {
			layers = append(layers, gs[gi].layer)
		}
		byLayer[gs[gi].layer] = append(byLayer[gs[gi].layer], gi)
	}
	sort.SliceStable(layers, func(i, j int) bool { return gs[byLayer[layers[i]][0]].first < gs[byLayer[layers[j]][0]].first })
	// the moves: runs of slices of each layer, to each accelerator
	var runs [][]int
	var long []bool // a run of the longest length
	for _, l := range layers {
		members := byLayer[l]
		sort.SliceStable(members, func(i, j int) bool { return gs[members[i]].first < gs[members[j]].first })
		n := min(rangeSlices, len(members))
		cut := func(s int) int { return s * len(members) / n }
		for i, k := range rangeLengths {
			k = max(1, k*n/rangeSlices)
			for a := 0; a < n; a += k {
				if a+k > n {
					a = n - k // the last run ends at the layer's end
				}
				runs = append(runs, members[cut(a):cut(a+k)])
				long = append(long, i == len(rangeLengths)-1)
				if a+k == n {
					break
				}
			}
		}
	}
	if len(runs) == 0 {
		return res, false
	}
	var moves, coarse []rangeMove
	for r, run := range runs {
		for _, d := range acc {
			ok := true
			for _, gi := range run {
				if !runsAll(est, groups[gi], d) {
					ok = false
					break
				}
			}
			if ok {
				moves = append(moves, rangeMove{run, d})
				if long[r] {
					coarse = append(coarse, rangeMove{run, d})
				}
			}
		}
	}
	// the starts: the layer search's fastest distinct plans
	big := make([]bool, len(ls.load))
	for u, l := range ls.load {
		big[u] = l >= rangeMinShare*total
	}
	tried := slices.Clone(ls.tried)
	sort.SliceStable(tried, func(i, j int) bool { return tried[i].t < tried[j].t })
	var starts []triedAssignment
	seen := map[string]bool{}
	for _, ta := range tried {
		if len(starts) == rangeStarts {
			break
		}
		key := startKey(ta.ud, big)
		if seen[key] || len(starts) > 0 && math.Abs(ta.t-starts[len(starts)-1].t) <= 1e-9*ta.t {
			continue
		}
		seen[key] = true
		starts = append(starts, ta)
	}
	n := len(g.Ops)
	eval := func(gd []int) (*engine.Plan, float64) {
		res.evals++
		dev := make([]int, n)
		for gi, ops := range groups {
			for _, op := range ops {
				dev[op] = gd[gi]
			}
		}
		return playRanked(g, eg, cl, est, order, dev)
	}
	spent := func() bool { return res.evals >= budget || ctx.Err() != nil }
	// pass plays each of moves on gd (step t) and applies the fastest when
	// it beats t; it reports whether it did
	pass := func(moves []rangeMove, gd []int, plan **engine.Plan, t *float64) bool {
		bi := -1
		var bp *engine.Plan
		bt := *t * (1 - 1e-9)
		old := make([]int, 0, 64)
		for i, m := range moves {
			if spent() {
				break
			}
			old = old[:0]
			changed := false
			for _, gi := range m.groups {
				old = append(old, gd[gi])
				changed = changed || gd[gi] != m.dev
				gd[gi] = m.dev
			}
			if changed {
				if p, ct := eval(gd); p != nil && ct < bt {
					bi, bp, bt = i, p, ct
				}
			}
			for j, gi := range m.groups {
				gd[gi] = old[j]
			}
		}
		if bi < 0 {
			return false
		}
		for _, gi := range moves[bi].groups {
			gd[gi] = moves[bi].dev
		}
		*plan, *t = bp, bt
		res.moves++
		return true
	}
	type state struct {
		gd    []int
		plan  *engine.Plan
		t     float64
		moves int
	}
	var best *state
	for _, st := range starts {
		if spent() {
			break
		}
		gd := make([]int, len(groups))
		for gi, ops := range groups {
			gd[gi] = st.ud[ls.unitOf[ops[0]]]
		}
		s := &state{gd: gd, t: st.t}
		res.starts++
		before := res.moves
		if pass(coarse, gd, &s.plan, &s.t) {
			s.moves = res.moves - before
			if best == nil || s.t < best.t {
				best = s
			}
		}
	}
	if best == nil {
		return res, false
	}
	res.moves = best.moves
	for !spent() && pass(moves, best.gd, &best.plan, &best.t) {
	}
	res.plan, res.time = best.plan, best.t
	return res, true
}

// startKey is the range search's key of a unit assignment ud (unit to
// device): the devices of the units big marks, as varints, a prefix-free
// key for any device index (one byte a device would merge devices 256
// apart).
func startKey(ud []int, big []bool) string {
	key := make([]byte, 0, len(ud))
	for u, d := range ud {
		if big[u] {
			key = binary.AppendUvarint(key, uint64(d))
		}
	}
	return string(key)
}
