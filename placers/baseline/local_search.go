package baseline

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
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

// NewLocalSearch makes local-search (options: LocalSearchArgs).
func NewLocalSearch(a LocalSearchArgs) (placers.Placer, error) {
	return &LocalSearch{restarts: a.Restarts, maxMoves: a.MaxMoves, pipe: a.Pipeline}, nil
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
// before (the hyperedge spans it and f) and after (it and d). So a move's
// key is max(load of f + from(u), load of d + to(u, d), largest other
// load), from two deltas the tracker keeps for every unit and device
// (refreshed for the members of the moved unit's hyperedges only), and a
// move is never applied to try it (the loads do not drift by rounding).
// The moves are tried in a fixed order: the "heavy" units (hyperedges
// costing more than their time) of each max-load device in increasing
// order; then, onto each max-load accelerator d, the heavy units that are
// the one member of a hyperedge missing from d (only those can lower d's
// load); then the other units of each max-load device, in increasing
// order, until one reaches the least key any of them can (the largest
// load off the device). A move that can neither beat nor tie the best so
// far, or only tie it and lose on the unit, is skipped; the tracker's
// tree of least deltas (per 64 units, class and device) skips whole runs
// of units at once by the same test on their least deltas, so a pass
// reaches the few units that can matter in about O(log n) and the best
// move, ties included, is the one the unit-by-unit scan takes.
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
		// try scores u's move from f onto d when its max-load (lb, with
		// d's load dl after it) can beat or tie the best so far.
		try := func(u, f, d int, fl float64) {
			dl := t.load[d] + t.to[u*nd+d]
			lb := max2(max2(rest[f*nd+d], fl), dl)
			if b.above(lb) || b.tiesLater(lb, u) || !fits(um, u, d, t.mem[d]+um.Size[u]) {
				return
			}
			b.consider(t.scoreMove(f, d, fl, dl), u, d, cur)
		}
		tryFrom := func(u, f int) {
			fl := t.load[f] + t.from[u]
			if b.above(fl) {
				return
			}
			for d := 0; d < nd; d++ {
				if d != f {
					try(u, f, d, fl)
				}
			}
		}
		// skipFrom reports whether no unit of the tree node x (units from
		// start on, class c, on f) has a move off f worth scoring.
		skipFrom := func(x, start, c, f int) bool {
			o := t.off(x, c, f)
			fl := t.load[f] + t.mins[o]
			if b.above(fl) {
				return true
			}
			for d := 0; d < nd; d++ {
				if d != f && !b.skip(max2(max2(rest[f*nd+d], fl), t.load[d]+t.mins[o+1+d]), start) {
					return false
				}
			}
			return true
		}
		for f := 0; f < nd; f++ {
			if !atMax[f] {
				continue
			}
			t.walk(func(x, start int) bool { return skipFrom(x, start, heavy, f) }, func(w int) bool {
				for word := t.on[f][w] & t.heavyBits[w]; word != 0; word &= word - 1 {
					tryFrom(w*64+bits.TrailingZeros64(word), f)
				}
				return true
			})
		}
		for d := 0; d < t.k; d++ { // a CPU is charged no hyperedge
			if !atMax[d] {
				continue
			}
			t.walk(func(x, start int) bool {
				for f := 0; f < nd; f++ {
					if o := t.off(x, heavy, f); !atMax[f] &&
						!b.skip(max2(max2(rest[f*nd+d], t.load[f]+t.mins[o]), t.load[d]+t.mins[o+1+d]), start) {
						return false
					}
				}
				return true
			}, func(w int) bool {
				for word := t.out[d][w] & t.heavyBits[w]; word != 0; word &= word - 1 {
					u := w*64 + bits.TrailingZeros64(word)
					if f := t.assign[u]; !atMax[f] {
						try(u, f, d, t.load[f]+t.from[u])
					}
				}
				return true
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
			// reached: a light unit from u on can at best tie the best
			reached := func(u int) bool { return b.u >= 0 && b.u < u && b.k[0] <= rf && b.k[1] <= float64(cf) }
			t.walk(func(x, start int) bool { return reached(start) || skipFrom(x, start, light, f) }, func(w int) bool {
				for word := t.on[f][w] &^ t.heavyBits[w]; word != 0; word &= word - 1 {
					u := w*64 + bits.TrailingZeros64(word)
					if reached(u) {
						return false
					}
					tryFrom(u, f)
				}
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

// skip reports whether a move of a unit from start on whose max-load is at
// least lb can neither beat nor tie the best so far, or only tie it and
// lose on the unit.
func (b *bestMove) skip(lb float64, start int) bool { return b.above(lb) || b.tiesLater(lb, start) }

// tracker holds an assignment of the contracted model's units with each
// device's load and memory, the units on each device, the members of each
// hyperedge on each device, each unit's deltas (from its device, onto
// every other) and a tree of their least values.
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
	// from[u] is deltaFrom(u, assign[u]); to[u*nd+d] is deltaTo(u, d),
	// +Inf for d = assign[u]. A move refreshes them for the members of
	// the moved unit's hyperedges, the only units whose deltas it changes.
	from, to []float64
	// The tree of least deltas: a complete binary tree over leaves of lw
	// words of units (64 each; leaves a power of two), each node holding,
	// per class (heavy, light) and device f, the least from and the least
	// to onto each device of the units of that class on f below it:
	// mins[off(x, c, f)+0] and mins[off(x, c, f)+1+d].
	words, lw, leaves int
	mins              []float64
	// per move: the units refreshed and the leaf slices to recompute
	moveNo    int32
	mark      []int32 // the last move that refreshed unit v's delta from or onto its f (2v) and d (2v+1)
	sliceMark []int32 // the last move that marked each leaf slice
	dirty     []int
}

// The classes of units in the tree: heavy units (hyperedges costing more
// than their accelerator time) and the others.
const (
	heavy = 0
	light = 1
)

// newTracker starts from assign (kept and changed in place), with the
// loads of maxload.State.
func newTracker(m *maxload.Model, assign []int) *tracker {
	nd := m.K() + m.L()
	return newTrackerLeaf(m, assign, max(1, nd*nd/64)) // the tree at about 40 bytes per unit
}

// newTrackerLeaf is newTracker with lw words of units per leaf.
func newTrackerLeaf(m *maxload.Model, assign []int, lw int) *tracker {
	nd := m.K() + m.L()
	n := len(assign)
	words := (n + 63) / 64
	leaves := 1
	for leaves*lw < words {
		leaves *= 2
	}
	t := &tracker{m: m, nd: nd, k: m.K(), assign: assign, load: make([]float64, nd), mem: make([]int64, nd),
		cnt: make([]int32, len(m.Comm)*nd), on: make([][]uint64, nd), isHeavy: make([]bool, n),
		heavyBits: make([]uint64, words), out: make([][]uint64, nd), outCnt: make([]int32, n*nd),
		from: make([]float64, n), to: make([]float64, n*nd),
		words: words, lw: lw, leaves: leaves, mins: make([]float64, 2*leaves*2*nd*(nd+1)),
		mark: make([]int32, 2*n), sliceMark: make([]int32, leaves*2*nd)}
	for d := range t.on {
		t.on[d] = make([]uint64, words)
		t.out[d] = make([]uint64, words)
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
	for u, f := range assign {
		var c float64
		for _, h := range m.CommOf[u] {
			c += m.Comm[h].Cost
		}
		if c > m.AccTime[u] {
			t.isHeavy[u] = true
			t.heavyBits[u/64] |= 1 << (u % 64)
		}
		t.from[u] = t.deltaFrom(u, f)
		for d := 0; d < nd; d++ {
			t.to[u*nd+d] = t.deltaOnto(u, d)
		}
	}
	for h := range m.Comm {
		for d := 0; d < nd; d++ {
			t.outsider(h, d, 1)
		}
	}
	for l := 0; l < leaves; l++ {
		for c := range 2 {
			for f := 0; f < nd; f++ {
				t.fillLeaf(l, c, f)
			}
		}
	}
	for x := leaves - 1; x >= 1; x-- {
		for c := range 2 {
			for f := 0; f < nd; f++ {
				t.pull(x, c, f)
			}
		}
	}
	return t
}

// off is where node x's least deltas of the units of class c on f start
// in mins.
func (t *tracker) off(x, c, f int) int { return ((x*2+c)*t.nd + f) * (t.nd + 1) }

func (t *tracker) class(u int) int {
	if t.isHeavy[u] {
		return heavy
	}
	return light
}

// fillLeaf recomputes leaf l's least deltas of the units of class c on f.
func (t *tracker) fillLeaf(l, c, f int) {
	o := t.off(t.leaves+l, c, f)
	s := t.mins[o : o+t.nd+1]
	for i := range s {
		s[i] = math.Inf(1)
	}
	for w := l * t.lw; w < min((l+1)*t.lw, t.words); w++ {
		word := t.on[f][w]
		if c == heavy {
			word &= t.heavyBits[w]
		} else {
			word &^= t.heavyBits[w]
		}
		for ; word != 0; word &= word - 1 {
			u := w*64 + bits.TrailingZeros64(word)
			s[0] = min2(s[0], t.from[u])
			for d, v := range t.to[u*t.nd : (u+1)*t.nd] {
				s[1+d] = min2(s[1+d], v)
			}
		}
	}
}

// pull recomputes node x's least deltas of class c on f from its children
// and reports whether they changed.
func (t *tracker) pull(x, c, f int) bool {
	o, l, r := t.off(x, c, f), t.off(2*x, c, f), t.off(2*x+1, c, f)
	changed := false
	for i := 0; i <= t.nd; i++ {
		if v := min2(t.mins[l+i], t.mins[r+i]); v != t.mins[o+i] {
			t.mins[o+i], changed = v, true
		}
	}
	return changed
}

// walk visits the tree's leaves from left to right, so the units in
// increasing order: it skips each subtree for which skip(node, its first
// unit) holds and calls word with the index of each word of units of the
// leaves it reaches, until word returns false.
func (t *tracker) walk(skip func(x, start int) bool, word func(w int) bool) {
	t.walkNode(1, 0, t.leaves, skip, word)
}

func (t *tracker) walkNode(x, lo, width int, skip func(x, start int) bool, word func(w int) bool) bool {
	if skip(x, lo*t.lw*64) {
		return true
	}
	if width == 1 {
		for w := lo * t.lw; w < min((lo+1)*t.lw, t.words); w++ {
			if !word(w) {
				return false
			}
		}
		return true
	}
	h := width / 2
	return t.walkNode(2*x, lo, h, skip, word) && t.walkNode(2*x+1, lo+h, h, skip, word)
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

// deltaOnto is to[u*nd+d]: deltaTo(u, d), +Inf on u's own device.
func (t *tracker) deltaOnto(u, d int) float64 {
	if t.assign[u] == d {
		return math.Inf(1)
	}
	return t.deltaTo(u, d)
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

// min2 is the smaller of two deltas (never NaN).
func min2(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

// move moves u to d, updating the loads (by the same sums scoreMove
// saw), memory, member counts, device sets, the deltas of the members of
// u's hyperedges and the tree above them.
func (t *tracker) move(u, d int) {
	f := t.assign[u]
	fl := t.load[f] + t.from[u]
	dl := t.load[d] + t.to[u*t.nd+d]
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
	}
	t.assign[u] = d
	for _, h := range t.m.CommOf[u] {
		t.outsider(int(h), f, 1)
		t.outsider(int(h), d, 1)
	}
	t.on[f][u/64] &^= 1 << (u % 64)
	t.on[d][u/64] |= 1 << (u % 64)
	t.moveNo++
	t.dirty = t.dirty[:0]
	// u leaves its slice on f and joins the one on d: both recomputed
	l, c := u/64/t.lw, t.class(u)
	t.markSlice(l, c, f)
	t.markSlice(l, c, d)
	t.from[u] = t.deltaFrom(u, d)
	t.to[u*t.nd+f] = t.deltaTo(u, f)
	t.to[u*t.nd+d] = math.Inf(1)
	t.mark[2*u], t.mark[2*u+1] = t.moveNo, t.moveNo
	// Only the counts on f and d changed, so only the deltas from and
	// onto f and d of the members of u's hyperedges, and of a hyperedge
	// only when its count there crossed a threshold of deltaFrom (1, all)
	// or deltaTo (none, all but one); other deltas are the same sums.
	for _, h := range t.m.CommOf[u] {
		n := int32(len(t.m.Comm[h].Ops))
		if n < 2 {
			continue
		}
		for i, x := range [2]int{f, d} {
			c := t.cnt[int(h)*t.nd+x]
			old := c + 1 // the count on f before
			if i == 1 {
				old = c - 1
			}
			if min(c, old) > 1 && max(c, old) < n-1 {
				continue
			}
			for _, v := range t.m.Comm[h].Ops {
				t.refresh(int(v), x, i)
			}
		}
	}
	for _, s := range t.dirty {
		l, c, g := s/(2*t.nd), s/t.nd%2, s%t.nd
		t.fillLeaf(l, c, g)
		for x := (t.leaves + l) / 2; x >= 1 && t.pull(x, c, g); x /= 2 {
		}
	}
}

// refresh recomputes v's delta from or onto x (the i-th device whose
// counts a move changed), once per move.
func (t *tracker) refresh(v, x, i int) {
	if t.mark[2*v+i] == t.moveNo {
		return
	}
	t.mark[2*v+i] = t.moveNo
	if t.assign[v] == x {
		t.update(v, 0, &t.from[v], t.deltaFrom(v, x))
	} else {
		t.update(v, 1+x, &t.to[v*t.nd+x], t.deltaTo(v, x))
	}
}

// update sets v's delta at p (column col of its slice in the tree) to
// val: a lower value goes up the tree at once; a higher one that was the
// leaf's least marks the leaf slice for recomputing.
func (t *tracker) update(v, col int, p *float64, val float64) {
	old := *p
	if val == old {
		return
	}
	*p = val
	l, c, g := v/64/t.lw, t.class(v), t.assign[v]
	x := t.leaves + l
	if o := t.off(x, c, g) + col; val < t.mins[o] {
		for ; x >= 1; x /= 2 {
			o := t.off(x, c, g) + col
			if t.mins[o] <= val {
				break
			}
			t.mins[o] = val
		}
	} else if old == t.mins[o] {
		t.markSlice(l, c, g)
	}
}

// markSlice marks leaf l's slice of class c on g for recomputing.
func (t *tracker) markSlice(l, c, g int) {
	s := (l*2+c)*t.nd + g
	if t.sliceMark[s] != t.moveNo {
		t.sliceMark[s] = t.moveNo
		t.dirty = append(t.dirty, s)
	}
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
