package baseline

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/tarnawski/maxload"
)

var (
	_ placers.Placer   = (*LocalSearch)(nil)
	_ placers.Reporter = (*LocalSearch)(nil)
)

// LocalSearch is the local-search baseline of Tarnawski et al. (section 6,
// after Michiels, Korst and Aarts): start from a random split, repeatedly
// make the best single-node reassignment until none improves, restart
// (10 times by default) and keep the best split. A node is a colocation
// unit; the objective is the max-load of the paper's cost model (package
// maxload), ties broken by the number of devices at the max-load (so that
// one of several equally loaded bottlenecks may be relieved at a time).
// Moves keep every device within its memory. The splits are usually
// non-contiguous.
type LocalSearch struct {
	restarts int
	maxMoves int
	pipe     maxload.PipelineOptions
}

// NewLocalSearch makes local-search. Options: restarts (default 10),
// max-moves per restart (default 100000), pipeline
// (gpipe|1f1b|pipedream|none, default 1f1b) and micro-batches.
func NewLocalSearch(opts placers.Options) (placers.Placer, error) {
	for k := range opts {
		switch k {
		case "restarts", "max-moves", "pipeline", "micro-batches":
		default:
			return nil, fmt.Errorf("%w: local-search has no option %q (valid: restarts, max-moves, pipeline, micro-batches)", placers.ErrBadOption, k)
		}
	}
	r, err := opts.Int("restarts", 10, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	mm, err := opts.Int("max-moves", 100000, 1, 1<<30)
	if err != nil {
		return nil, err
	}
	po, err := maxload.ParsePipeline(opts, "1f1b")
	if err != nil {
		return nil, err
	}
	return &LocalSearch{restarts: r, maxMoves: mm, pipe: po}, nil
}

// Name implements placers.Placer.
func (*LocalSearch) Name() string { return "local-search" }

// MemoryAware implements placers.MemoryAware: every move keeps each device
// within its memory, and a start that fits none fails with
// placers.ErrDoesNotFit.
func (*LocalSearch) MemoryAware() bool { return true }

// Place implements placers.Placer.
func (ls *LocalSearch) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := ls.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter.
func (ls *LocalSearch) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	if _, err := req.Graph.TopoOrder(); err != nil {
		return nil, nil, fmt.Errorf("local-search: %w", err)
	}
	m, err := maxload.New(req)
	if err != nil {
		return nil, nil, err
	}
	unitOf, units := placers.Groups(req.Graph)
	um := m.Contract(unitOf, len(units)) // a node per colocation unit
	rng := rand.New(rand.NewPCG(req.Seed, 0x10ca1))
	var best []int
	bestKey := [2]float64{math.Inf(1), math.Inf(1)}
	moves := 0
	for r := 0; r < ls.restarts; r++ {
		start, err := randomStart(um, rng)
		if err != nil {
			return nil, nil, fmt.Errorf("infeasible: local-search found no device with room for op %q (%d bytes with its colocation group) on cluster %q: %w",
				m.Graph.Ops[units[err.unit][0]].Name, um.Size[err.unit], m.Cluster.Name, placers.ErrDoesNotFit)
		}
		n, cerr := ls.descend(ctx, um, start)
		if cerr != nil {
			return nil, nil, cerr
		}
		moves += n
		// score from scratch: the tracked sums differ by rounding
		if key := score(um, start); less(key, bestKey) {
			bestKey, best = key, start
		}
	}
	assign := make([]int, len(req.Graph.Ops))
	for op, u := range unitOf {
		assign[op] = best[u]
	}
	best = assign
	notes := []string{fmt.Sprintf("%d restarts, %d moves in all", ls.restarts, moves)}
	rep, err := m.Report(best, "max-load", notes)
	if err != nil {
		return nil, nil, fmt.Errorf("local-search: internal error: %w", err)
	}
	plan := m.Plan(best)
	ls.pipe.Apply(plan, m.Graph.Batch)
	return plan, rep, nil
}

// noRoom names a unit that fits no device.
type noRoom struct{ unit int }

// randomStart puts each unit (a node of the contracted model) on a
// uniformly drawn device among those that can run it and still have room.
func randomStart(um *maxload.Model, rng *rand.Rand) ([]int, *noRoom) {
	nd := um.K() + um.L()
	assign := make([]int, len(um.Size))
	mem := make([]int64, nd)
	for u := range assign {
		placed := false
		for _, d := range rng.Perm(nd) {
			if !fits(um, u, d, mem[d]+um.Size[u]) {
				continue
			}
			assign[u] = d
			mem[d] += um.Size[u]
			placed = true
			break
		}
		if !placed {
			return nil, &noRoom{u}
		}
	}
	return assign, nil
}

// fits reports whether unit u can run on device d with d's memory at mem.
func fits(um *maxload.Model, u, d int, mem int64) bool {
	if um.IsAcc(d) {
		return mem <= um.AccMem && !math.IsInf(um.AccTime[u], 1)
	}
	return mem <= um.CPUMem && !math.IsInf(um.CPUTime[u], 1)
}

// descend makes best-improvement single-unit moves from assign (changed in
// place) until none improves the key (max-load, number of devices at the
// max-load) and returns the number of moves. Only a move off a device at
// the max-load, or onto one by a unit that shares a hyperedge with it, can
// lower the max-load or that count (a device's load changes only with its
// own units and the cuts of its hyperedges), so only those moves are
// tried; among the moves that improve, the least key wins, ties (within
// keyEps) going to the least (unit, device).
//
// A move of u from f to d changes the loads of f and d only: any other
// accelerator holding a member of one of u's hyperedges is charged for it
// before (the hyperedge spans it and f) and after (it and d). So a move is
// scored in O(deg u) from the hyperedges' member counts per device, with
// the other devices' loads as they are, and never applied to try it (the
// loads do not drift by rounding). d's load can drop only for a "heavy"
// unit (its hyperedges cost more than its time) that is the one member of
// a hyperedge missing from d; those are tried first, each pass. Every
// other move off f reaches at least the largest load off f, so the units
// of a max-load device f are scanned in increasing order, skipped by a
// bound from f's side alone (cached per unit until a neighbour moves), and
// the scan stops at the first move that reaches that least key: a pass
// costs about the few units before it, not the units of the device.
func (ls *LocalSearch) descend(ctx context.Context, um *maxload.Model, assign []int) (int, error) {
	t := newTracker(um, assign)
	nd := t.nd
	atMax := make([]bool, nd)
	rest := make([]float64, nd*nd) // rest[f*nd+d]: the largest load off f and d
	cur := key(t.load)
	for moves := 0; moves < ls.maxMoves; moves++ {
		if err := ctx.Err(); err != nil {
			return moves, err
		}
		for d, l := range t.load {
			atMax[d] = l >= cur[0]*(1-keyEps)
		}
		for f := 0; f < nd; f++ {
			for d := 0; d < nd; d++ {
				r := math.Inf(-1)
				for z, l := range t.load {
					if z != f && z != d && l > r {
						r = l
					}
				}
				rest[f*nd+d] = r
			}
		}
		b := bestMove{k: cur, u: -1, d: -1}
		tryFrom := func(u, f int) {
			fl := t.load[f] + t.fromDelta(u, f)
			if b.above(fl) {
				return
			}
			for d := 0; d < nd; d++ {
				lb := max2(max2(rest[f*nd+d], fl), t.load[d]+t.leastTo(u, d))
				if d == f || b.above(lb) || b.tiesLater(lb, u) {
					continue
				}
				if fits(um, u, d, t.mem[d]+um.Size[u]) {
					b.consider(t.scoreMove(f, d, fl, t.load[d]+t.toDelta(u, d)), u, d, cur)
				}
			}
		}
		for f := 0; f < nd; f++ {
			if atMax[f] {
				t.scan(f, t.heavyBits, false, func(u int) bool { tryFrom(u, f); return true })
			}
		}
		for d := 0; d < t.k; d++ { // a CPU is charged no hyperedge
			if !atMax[d] {
				continue
			}
			t.scanOut(d, func(u int) {
				f := t.assign[u]
				if atMax[f] || !t.isHeavy[u] || !fits(um, u, d, t.mem[d]+um.Size[u]) {
					return
				}
				fl := t.load[f] + t.fromDelta(u, f)
				lb := max2(max2(rest[f*nd+d], fl), t.load[d]+t.leastTo(u, d))
				if !b.above(lb) && !b.tiesLater(lb, u) {
					b.consider(t.scoreMove(f, d, fl, t.load[d]+t.toDelta(u, d)), u, d, cur)
				}
			})
		}
		for f := 0; f < nd; f++ {
			if !atMax[f] {
				continue
			}
			// the least key of a light move off f: the largest load off
			// f, with the devices within keyEps of it
			rf := math.Inf(-1)
			for z, l := range t.load {
				if z != f {
					rf = max2(rf, l)
				}
			}
			cf := 0
			for z, l := range t.load {
				if z != f && l >= rf*(1-keyEps) {
					cf++
				}
			}
			t.scan(f, t.heavyBits, true, func(u int) bool {
				if b.u >= 0 && b.u < u && b.k[0] <= rf && b.k[1] <= float64(cf) {
					return false
				}
				tryFrom(u, f)
				return true
			})
		}
		if b.u < 0 {
			return moves, nil
		}
		t.move(b.u, b.d)
		cur = key(t.load)
	}
	return ls.maxMoves, nil
}

// bestMove is the best improving move of a pass so far.
type bestMove struct {
	k    [2]float64
	u, d int
}

// consider keeps (u, d) if its key k improves cur and is below the best
// so far, or ties with it (max-loads within keyEps, equal counts) and
// (u, d) is the lesser move: rounding in the sums never picks the move.
func (b *bestMove) consider(k [2]float64, u, d int, cur [2]float64) {
	if !less(k, cur) || !improves(k, cur) {
		return
	}
	if b.u < 0 || k[0] < b.k[0]*(1-keyEps) {
		b.k, b.u, b.d = k, u, d
		return
	}
	if k[0] > b.k[0]*(1+keyEps) {
		return
	}
	if k[1] < b.k[1] || (k[1] == b.k[1] && (u < b.u || (u == b.u && d < b.d))) {
		b.k, b.u, b.d = k, u, d
	}
}

// tiesLater reports whether a move of unit u whose max-load is at least
// lb can at best tie the best so far and lose the tie on u: lb reaches
// the best max-load, whose count is already the least (1).
func (b *bestMove) tiesLater(lb float64, u int) bool {
	return b.u >= 0 && b.u < u && lb >= b.k[0] && b.k[1] <= 1
}

// above reports whether a move whose max-load is at least lb can neither
// beat nor tie the best so far.
func (b *bestMove) above(lb float64) bool { return lb > b.k[0]*(1+keyEps) }

// tracker holds an assignment of the contracted model's units with each
// device's load and memory, the units on each device and the members of
// each hyperedge on each device.
type tracker struct {
	m         *maxload.Model
	nd, k     int
	assign    []int
	load      []float64
	mem       []int64
	cnt       []int32    // members of hyperedge h on device d: cnt[h*nd+d]
	on        [][]uint64 // units on each device, one bit each
	isHeavy   []bool     // units whose hyperedges cost more than their accelerator time
	heavyBits []uint64   // the same, one bit each
	// out[d]: units off d that are the one member of some hyperedge
	// missing from d (outCnt[u*nd+d] such hyperedges), one bit each
	out    [][]uint64
	outCnt []int32
	from   []float64 // deltaFrom of each unit on its device, when fresh
	fresh  []bool
	comm   []float64 // the cost of each unit's hyperedges
	// to[u*nd+d]: deltaTo(u, d), fresh while toStamp[u*nd+d] == stamp[u]
	// (stamp[u] grows when a unit sharing a hyperedge with u moves)
	to      []float64
	toStamp []int32
	stamp   []int32
}

// newTracker starts from assign (kept and changed in place), with the
// loads of maxload.State.
func newTracker(m *maxload.Model, assign []int) *tracker {
	nd := m.K() + m.L()
	n := len(assign)
	t := &tracker{m: m, nd: nd, k: m.K(), assign: assign, load: make([]float64, nd), mem: make([]int64, nd),
		cnt: make([]int32, len(m.Comm)*nd), on: make([][]uint64, nd), isHeavy: make([]bool, n),
		heavyBits: make([]uint64, (n+63)/64), out: make([][]uint64, nd), outCnt: make([]int32, n*nd),
		from: make([]float64, n), fresh: make([]bool, n),
		comm: make([]float64, n), to: make([]float64, n*nd), toStamp: make([]int32, n*nd), stamp: make([]int32, n)}
	for i := range t.toStamp {
		t.toStamp[i] = -1
	}
	for d := range t.on {
		t.on[d] = make([]uint64, (n+63)/64)
		t.out[d] = make([]uint64, (n+63)/64)
	}
	for u, d := range assign {
		t.mem[d] += m.Size[u]
		t.on[d][u/64] |= 1 << (u % 64)
	}
	for h, e := range m.Comm {
		for _, u := range e.Ops {
			t.cnt[h*nd+assign[u]]++
		}
	}
	m.NewState(assign).Loads(t.load)
	for u := range assign {
		var c float64
		for _, h := range m.CommOf[u] {
			c += m.Comm[h].Cost
		}
		t.comm[u] = c
		if c > m.AccTime[u] {
			t.isHeavy[u] = true
			t.heavyBits[u/64] |= 1 << (u % 64)
		}
	}
	for h := range m.Comm {
		for d := 0; d < nd; d++ {
			t.outsider(h, d, 1)
		}
	}
	return t
}

// outsider adds add to the count of the member of hyperedge h missing
// from d, if h has all members but one on d.
func (t *tracker) outsider(h, d int, add int32) {
	ops := t.m.Comm[h].Ops
	if len(ops) < 2 || int(t.cnt[h*t.nd+d]) != len(ops)-1 {
		return
	}
	for _, v := range ops {
		if u := int(v); t.assign[u] != d {
			c := &t.outCnt[u*t.nd+d]
			*c += add
			if *c > 0 {
				t.out[d][u/64] |= 1 << (u % 64)
			} else {
				t.out[d][u/64] &^= 1 << (u % 64)
			}
			return
		}
	}
}

// scanOut calls f with the units of out[d].
func (t *tracker) scanOut(d int, f func(u int)) {
	for w, word := range t.out[d] {
		for word != 0 {
			f(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// scan calls f with the units on device d in increasing order, those of
// mask (or, with invert, those not in it), until f returns false.
func (t *tracker) scan(d int, mask []uint64, invert bool, f func(u int) bool) {
	for w, word := range t.on[d] {
		if invert {
			word &^= mask[w]
		} else {
			word &= mask[w]
		}
		for word != 0 {
			if !f(w*64 + bits.TrailingZeros64(word)) {
				return
			}
			word &= word - 1
		}
	}
}

// toDelta is deltaTo(u, d), cached until a unit sharing a hyperedge with
// u moves.
func (t *tracker) toDelta(u, d int) float64 {
	i := u*t.nd + d
	if t.toStamp[i] != t.stamp[u] {
		t.to[i], t.toStamp[i] = t.deltaTo(u, d), t.stamp[u]
	}
	return t.to[i]
}

// leastTo bounds deltaTo(u, d) from below without the member counts: u's
// time on d less, on an accelerator, every hyperedge of u.
func (t *tracker) leastTo(u, d int) float64 {
	if d < t.k {
		return t.m.AccTime[u] - t.comm[u]
	}
	return t.m.CPUTime[u]
}

// fromDelta is deltaFrom(u, f) for u on f, cached until a unit sharing a
// hyperedge with u moves.
func (t *tracker) fromDelta(u, f int) float64 {
	if !t.fresh[u] {
		t.from[u], t.fresh[u] = t.deltaFrom(u, f), true
	}
	return t.from[u]
}

func (t *tracker) time(u, d int) float64 {
	if d < t.k {
		return t.m.AccTime[u]
	}
	return t.m.CPUTime[u]
}

// deltaFrom is the change of f's load when u (on f) leaves it: its time,
// the hyperedges u alone held on f (cut: no longer charged), and those
// all on f (now cut, f still holds members: charged).
func (t *tracker) deltaFrom(u, f int) float64 {
	dl := -t.time(u, f)
	if f >= t.k {
		return dl
	}
	for _, h := range t.m.CommOf[u] {
		e := &t.m.Comm[h]
		switch c := t.cnt[int(h)*t.nd+f]; {
		case len(e.Ops) < 2:
		case c == 1:
			dl -= e.Cost
		case int(c) == len(e.Ops):
			dl += e.Cost
		}
	}
	return dl
}

// deltaTo is the change of d's load when u (not on d) moves onto it: its
// time, the hyperedges d held no member of (now cut and held: charged),
// and those whose other members are all on d (no longer cut).
func (t *tracker) deltaTo(u, d int) float64 {
	dl := t.time(u, d)
	if d >= t.k {
		return dl
	}
	for _, h := range t.m.CommOf[u] {
		e := &t.m.Comm[h]
		switch c := t.cnt[int(h)*t.nd+d]; {
		case len(e.Ops) < 2:
		case c == 0:
			dl += e.Cost
		case int(c) == len(e.Ops)-1:
			dl -= e.Cost
		}
	}
	return dl
}

// scoreMove is the key after a move from f to d that leaves them with
// loads fl and dl, every other load as it is (key without a copy).
func (t *tracker) scoreMove(f, d int, fl, dl float64) [2]float64 {
	mx := max2(fl, dl)
	for z, l := range t.load {
		if z != f && z != d && l > mx {
			mx = l
		}
	}
	thr := mx * (1 - keyEps)
	n := 0
	if fl >= thr {
		n++
	}
	if dl >= thr {
		n++
	}
	for z, l := range t.load {
		if z != f && z != d && l >= thr {
			n++
		}
	}
	return [2]float64{mx, float64(n)}
}

// max2 is the larger of two loads (which are never NaN), without
// math.Max's care for NaN and signed zeros.
func max2(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// move moves u to d, updating the loads (by the same sums scoreMove
// saw), memory, member counts and device sets.
func (t *tracker) move(u, d int) {
	f := t.assign[u]
	fl := t.load[f] + t.fromDelta(u, f)
	dl := t.load[d] + t.toDelta(u, d)
	t.load[f], t.load[d] = fl, dl
	t.mem[f] -= t.m.Size[u]
	t.mem[d] += t.m.Size[u]
	for _, h := range t.m.CommOf[u] {
		t.outsider(int(h), f, -1)
		t.outsider(int(h), d, -1)
	}
	for _, h := range t.m.CommOf[u] {
		t.cnt[int(h)*t.nd+f]--
		t.cnt[int(h)*t.nd+d]++
		for _, v := range t.m.Comm[h].Ops {
			t.fresh[v] = false
			t.stamp[v]++
		}
	}
	t.assign[u] = d
	for _, h := range t.m.CommOf[u] {
		t.outsider(int(h), f, 1)
		t.outsider(int(h), d, 1)
	}
	t.fresh[u] = false
	t.stamp[u]++
	t.on[f][u/64] &^= 1 << (u % 64)
	t.on[d][u/64] |= 1 << (u % 64)
}

// keyEps is the relative margin within which loads count as equal, so that
// rounding in the incremental sums neither invents nor hides a gain.
const keyEps = 1e-12

// key is (max-load, number of devices within keyEps of it).
func key(loads []float64) [2]float64 {
	var mx float64
	for _, l := range loads {
		mx = math.Max(mx, l)
	}
	n := 0
	for _, l := range loads {
		if l >= mx*(1-keyEps) {
			n++
		}
	}
	return [2]float64{mx, float64(n)}
}

func less(a, b [2]float64) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

// improves asks for a gain above rounding noise: a lower max-load, or as
// high a max-load on fewer devices.
func improves(k, cur [2]float64) bool {
	if k[0] < cur[0]*(1-keyEps) {
		return true
	}
	return k[0] <= cur[0]*(1+keyEps) && k[1] < cur[1]
}

func score(m *maxload.Model, assign []int) [2]float64 {
	loads, _ := m.Loads(assign)
	return key(loads)
}
