package pesto

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"placesim/placers"
	"placesim/placers/mip"
)

// MemoryMode selects the ILP's memory constraints (8).
type MemoryMode string

// Memory modes.
const (
	// MemoryBalance keeps each accelerator's footprint (graphalg.OpMemories
	// of its ops, summed) within (1+slack)/k of the
	// total: the paper's balanced form (section 3.2.2, "Memory
	// constraints").
	MemoryBalance MemoryMode = "balance"
	// MemoryLimit keeps each device's summed footprint within its capacity
	// (a conservative bound: nothing is ever freed).
	MemoryLimit MemoryMode = "limit"
	// MemoryNone has no memory constraint.
	MemoryNone MemoryMode = "none"
)

// ILPOptions tune the ILP.
type ILPOptions struct {
	// TimeLimit bounds CBC's run (0: none but the context's deadline).
	TimeLimit time.Duration
	// RelGap stops CBC at this relative gap (0: CBC's default).
	RelGap float64
	// Threads for CBC (0 or 1: deterministic single thread).
	Threads int
	// Memory and Slack select the memory constraints.
	Memory MemoryMode
	Slack  float64
	// NoCongestion drops the congestion constraints (7), so that transfers
	// on one link may overlap (the ablation of Figure 5).
	NoCongestion bool
	// Dir keeps CBC's model, start, solution and log there.
	Dir string
	// bounds is the memory bound per device (memBounds), set by Solve.
	bounds []float64
}

// scale converts seconds to the model's unit, milliseconds, which keeps
// the big-M constants and the times within a few orders of magnitude of 1.
const scale = 1e3

// ilp is the Pesto ILP of a problem (section 3.2.2).
type ilp struct {
	p *problem
	o ILPOptions
	m *mip.Model
	// bigM bounds every time in the model (ms): the upper bound on the
	// makespan.
	bigM float64
	cmax mip.Var
	S, C []mip.Var
	// symmetric: the accelerators are interchangeable and the j-th
	// accelerator group may only use the first j+1 of them.
	symmetric bool
	// x holds each group's placement variables: none when it has one
	// target, one 0-1 variable (1: its second target) for two, one per
	// target (one-hot) for more.
	x [][]mip.Var
	// pair holds the ordering variable of two vertices that may share a
	// device and that no path joins (1: the first runs first).
	pair map[[2]int]mip.Var
	comm map[xferKey]*commVars
	// cross holds ordering variables of transfers from different devices
	// whose routes share a link (1: the first goes first).
	cross map[[2]xferKey]mip.Var
	// est and lct are the vertices' time windows (windows), fast their
	// least times.
	est, lct, fast []float64
	// stats
	binaries int
}

// commVars are the variables of a communication vertex: the transfer of a
// vertex's outputs to one device.
type commVars struct {
	S, C mip.Var
	// y per fine producer (index in problem.prods): its part of the time
	// (-1: it never sends to this device)
	y []mip.Var
	// act per source device, in the order of the group's targets: the
	// transfer exists and leaves from it. A slice, not a map: rows are
	// written in this order, and CBC's search depends on the row order
	// (a map's random order gave different plans for the same seed).
	act []actVar
}

// actVar is the variable "the transfer leaves from device src".
type actVar struct {
	src int
	v   mip.Var
}

// actFrom returns the variable of source device s.
func (cv *commVars) actFrom(s int) (mip.Var, bool) {
	for _, a := range cv.act {
		if a.src == s {
			return a.v, true
		}
	}
	return 0, false
}

// lin is a linear expression: sum of terms plus a constant.
type lin struct {
	t []mip.Term
	c float64
}

func (l lin) plus(o lin, k float64) lin {
	out := lin{t: append([]mip.Term(nil), l.t...), c: l.c + k*o.c}
	for _, x := range o.t {
		out.t = append(out.t, mip.Term{Var: x.Var, Coef: k * x.Coef})
	}
	return out
}

func (l lin) v(v mip.Var, k float64) lin {
	out := lin{t: append(append([]mip.Term(nil), l.t...), mip.Term{Var: v, Coef: k}), c: l.c}
	return out
}

func (l lin) k(c float64) lin { return lin{t: l.t, c: l.c + c} }

// ge adds the row l >= 0.
func (q *ilp) ge(name string, l lin) { q.m.AddConstraint(name, l.t, mip.GE, -l.c) }

// eq adds the row l == 0.
func (q *ilp) eq(name string, l lin) { q.m.AddConstraint(name, l.t, mip.EQ, -l.c) }

// on is the expression "group g is on device d" (0 or 1).
func (q *ilp) on(g, d int) lin {
	ts := q.p.targets[g]
	switch {
	case len(ts) == 1:
		if ts[0] == d {
			return lin{c: 1}
		}
		return lin{}
	case len(ts) == 2:
		switch d {
		case ts[1]:
			return lin{}.v(q.x[g][0], 1)
		case ts[0]:
			return lin{c: 1}.v(q.x[g][0], -1)
		}
		return lin{}
	}
	for i, t := range ts {
		if t == d {
			return lin{}.v(q.x[g][i], 1)
		}
	}
	return lin{}
}

func (q *ilp) onV(v, d int) lin { return q.on(q.p.c.Group[v], d) }

// buildILP writes the ILP of p with every time within upper (seconds).
func buildILP(p *problem, o ILPOptions, upper float64) (*ilp, error) {
	c := p.c
	n := c.Len()
	q := &ilp{p: p, o: o, m: mip.NewModel("pesto"), bigM: upper * scale,
		pair: map[[2]int]mip.Var{}, comm: map[xferKey]*commVars{}, cross: map[[2]xferKey]mip.Var{}}
	M := q.bigM
	m := q.m
	q.est, q.lct = p.windows(upper)
	q.fast = make([]float64, n)
	for v := range q.fast {
		q.fast[v] = math.Inf(1)
		for _, d := range p.targets[c.Group[v]] {
			q.fast[v] = math.Min(q.fast[v], p.dur[v][d])
		}
	}
	q.cmax = m.AddContinuous("cmax", 0, M)
	m.SetObjective([]mip.Term{{Var: q.cmax, Coef: 1}})
	// placement variables (9); with interchangeable accelerators, the j-th
	// accelerator group may use the first j+1 only (any placement can be
	// relabelled so: symmetry breaking, which leaves the optimum alone)
	q.symmetric = p.symmetric()
	q.x = make([][]mip.Var, c.NumGroups)
	rank := 0
	for g, ts := range p.targets {
		allowed := len(ts)
		if q.symmetric && !c.GroupCPU[g] {
			allowed = min(len(ts), rank+1)
			rank++
		}
		switch {
		case len(ts) == 2:
			q.x[g] = []mip.Var{m.AddVar(fmt.Sprintf("x_%d", g), 0, float64(allowed-1), true)}
			q.binaries++
		case len(ts) > 2:
			row := lin{}
			for i, d := range ts {
				hi := 1.0
				if i >= allowed {
					hi = 0
				}
				v := m.AddVar(fmt.Sprintf("x_%d_%d", g, d), 0, hi, true)
				q.x[g] = append(q.x[g], v)
				row = row.v(v, 1)
				q.binaries++
			}
			q.eq(fmt.Sprintf("one_%d", g), row.k(-1))
		}
	}
	// start and completion times, (2) and (3)
	q.S, q.C = make([]mip.Var, n), make([]mip.Var, n)
	for v := 0; v < n; v++ {
		q.S[v] = m.AddContinuous(fmt.Sprintf("S_%d", v), 0, M)
		q.C[v] = m.AddContinuous(fmt.Sprintf("C_%d", v), 0, M)
		row := lin{}.v(q.C[v], 1).v(q.S[v], -1)
		for _, d := range p.targets[c.Group[v]] {
			row = row.plus(q.onV(v, d), -p.dur[v][d]*scale)
		}
		q.eq(fmt.Sprintf("dur_%d", v), row)
		if len(c.Succ[v]) == 0 {
			q.ge(fmt.Sprintf("cmax_%d", v), lin{}.v(q.cmax, 1).v(q.C[v], -1))
		}
	}
	// precedence (1): a consumer starts after its producer completes (and,
	// below, after the transfer when they are apart)
	for v := 0; v < n; v++ {
		for _, e := range c.Succ[v] {
			q.ge(fmt.Sprintf("prec_%d_%d", v, e.To), lin{}.v(q.S[e.To], 1).v(q.C[v], -1))
		}
	}
	// a device's busy time is within the makespan (a valid cut)
	for d := 0; d < p.nDev; d++ {
		row := lin{}.v(q.cmax, 1)
		any := false
		for v := 0; v < n; v++ {
			if p.canRun(v, d) {
				row = row.plus(q.onV(v, d), -p.dur[v][d]*scale)
				any = true
			}
		}
		if any {
			q.ge(fmt.Sprintf("load_%d", d), row)
		}
	}
	q.nonOverlap()
	q.communication()
	if !o.NoCongestion {
		if err := q.congestion(); err != nil {
			return nil, err
		}
	}
	if err := q.memory(); err != nil {
		return nil, err
	}
	return q, m.Err()
}

// common lists the devices both vertices may run on.
func (q *ilp) common(a, b int) []int {
	var ds []int
	for _, d := range q.p.targets[q.p.c.Group[a]] {
		if q.p.canRun(b, d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// apart tells whether the time windows keep a and b apart in every
// schedule within the upper bound: 1 when a completes before b can start,
// -1 when b completes before a can start, else 0. Such pairs never
// overlap and need no ordering variable.
func (q *ilp) apart(a, b int) int {
	switch {
	case q.lct[a] <= q.est[b]:
		return 1
	case q.lct[b] <= q.est[a]:
		return -1
	}
	return 0
}

// nonOverlap adds the constraints (4) and (10): two vertices on one device
// do not overlap. Vertices joined by a path are ordered by precedence
// already; for the others an ordering variable picks who goes first, and
// the pair's rows hold only when both are on the device.
func (q *ilp) nonOverlap() {
	p, M := q.p, q.bigM
	n := p.c.Len()
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if p.comparable(a, b) || q.apart(a, b) != 0 {
				continue
			}
			ds := q.common(a, b)
			if len(ds) == 0 {
				continue
			}
			delta := q.m.AddBinary(fmt.Sprintf("d_%d_%d", a, b))
			q.binaries++
			q.pair[[2]int{a, b}] = delta
			if p.c.Group[a] == p.c.Group[b] {
				// same group: always the same device
				q.ge(fmt.Sprintf("no_%d_%d", a, b), lin{}.v(q.S[a], 1).v(q.C[b], -1).v(delta, M))
				q.ge(fmt.Sprintf("no_%d_%d", b, a), lin{}.v(q.S[b], 1).v(q.C[a], -1).v(delta, -M).k(M))
				continue
			}
			for _, d := range ds {
				// M(2 - on_a - on_b) relaxes the rows unless both are on d
				both := lin{c: 2 * M}.plus(q.onV(a, d), -M).plus(q.onV(b, d), -M)
				q.ge(fmt.Sprintf("no_%d_%d_%d", a, b, d), lin{}.v(q.S[a], 1).v(q.C[b], -1).v(delta, M).plus(both, 1))
				q.ge(fmt.Sprintf("no_%d_%d_%d", b, a, d), lin{}.v(q.S[b], 1).v(q.C[a], -1).v(delta, -M).k(M).plus(both, 1))
			}
		}
	}
}

// communication adds the communication vertices of the augmented DAG: for
// each vertex v and device d a consumer may be on, the transfer of v's
// outputs to d. Its time is the sum over v's fine producers of the time to
// send the largest tensor each sends to a consumer on d: y >= T(b) (x_v,s +
// x_w,d - 1) for consumer w on d and v on s != d, which is the paper's
// z_k p_k with z_k = x_i XOR x_j (5)-(6) split by direction, and, as the
// engine sends one tensor per producer and destination device, counted
// once for consumers that share a device. Consumers on d start after it.
func (q *ilp) communication() {
	p, M, m := q.p, q.bigM, q.m
	n := p.c.Len()
	for v := 0; v < n; v++ {
		own := p.targets[p.c.Group[v]]
		for _, d := range p.dests(v) {
			k := xferKey{v, d}
			cv := &commVars{
				S: m.AddContinuous(fmt.Sprintf("kS_%d_%d", v, d), 0, M),
				C: m.AddContinuous(fmt.Sprintf("kC_%d_%d", v, d), 0, M),
				y: make([]mip.Var, len(p.prods[v])),
			}
			q.comm[k] = cv
			for _, s := range own {
				if s != d {
					cv.act = append(cv.act, actVar{s, m.AddContinuous(fmt.Sprintf("act_%d_%d_%d", v, s, d), 0, 1)})
				}
			}
			q.ge(fmt.Sprintf("kstart_%d_%d", v, d), lin{}.v(cv.S, 1).v(q.C[v], -1))
			sum := lin{}.v(cv.C, 1).v(cv.S, -1)
			var consumers []int // in order of first appearance
			isConsumer := map[int]bool{}
			for i, pr := range p.prods[v] {
				cv.y[i] = -1
				for _, o := range pr.outs {
					if !p.canRun(o.To, d) {
						continue
					}
					if cv.y[i] < 0 {
						cv.y[i] = m.AddContinuous(fmt.Sprintf("y_%d_%d_%d", v, i, d), 0, M)
						sum = sum.v(cv.y[i], -1)
					}
					if !isConsumer[o.To] {
						isConsumer[o.To] = true
						consumers = append(consumers, o.To)
					}
					onW := q.onV(o.To, d)
					for _, a := range cv.act {
						s := a.src
						t := p.transfer(s, d, o.Bytes) * scale
						// y >= T (x_v,s + x_w,d - 1)
						q.ge(fmt.Sprintf("y_%d_%d_%d_%d_%d", v, i, o.To, s, d),
							lin{}.v(cv.y[i], 1).plus(q.onV(v, s), -t).plus(onW, -t).k(t))
					}
				}
			}
			q.eq(fmt.Sprintf("kdur_%d_%d", v, d), sum)
			for _, w := range consumers {
				onW := q.onV(w, d)
				// S_w >= C_k - M (1 - x_w,d)
				q.ge(fmt.Sprintf("krecv_%d_%d_%d", v, d, w), lin{}.v(q.S[w], 1).v(cv.C, -1).k(M).plus(onW, -M))
				for _, a := range cv.act {
					// act >= x_v,s + x_w,d - 1
					q.ge(fmt.Sprintf("act_%d_%d_%d_%d", v, a.src, d, w), lin{}.v(a.v, 1).plus(q.onV(v, a.src), -1).plus(onW, -1).k(1))
				}
			}
		}
	}
}

// congestion adds the constraints (7): two transfers whose routes share a
// link do not overlap (each link carries one transfer at a time). Links
// are first-come-first-served queues (section 3.2.1), so two transfers
// from one device go in the order their producers complete there: the
// order of the producers (a path, or the non-overlap variable of the
// pair), and for one producer by destination device, as the engine sends
// them. Transfers from different devices that share a link get an
// ordering variable of their own. A row holds only when both transfers
// exist and leave from those devices (M (2 - act - act')); pairs whose
// order precedence already implies are left out.
func (q *ilp) congestion() error {
	p := q.p
	keys := make([]xferKey, 0, len(q.comm))
	for v := 0; v < p.c.Len(); v++ {
		for _, d := range p.dests(v) {
			keys = append(keys, xferKey{v, d})
		}
	}
	for i, k1 := range keys {
		for _, k2 := range keys[i+1:] {
			c1, c2 := q.comm[k1], q.comm[k2]
			for _, a1 := range c1.act {
				for _, a2 := range c2.act {
					if !p.conflict(a1.src, k1.d, a2.src, k2.d) {
						continue
					}
					if err := q.congestionPair(k1, k2, a1.src, a2.src, a1.v, a2.v); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func (q *ilp) congestionPair(k1, k2 xferKey, s1, s2 int, a1, a2 mip.Var) error {
	p, M := q.p, q.bigM
	c1, c2 := q.comm[k1], q.comm[k2]
	both := lin{c: 2 * M}.v(a1, -M).v(a2, -M)
	name := fmt.Sprintf("cg_%d_%d_%d_%d_%d_%d", k1.v, k1.d, k2.v, k2.d, s1, s2)
	first := func(x, y *commVars) { q.ge(name, lin{}.v(y.S, 1).v(x.C, -1).plus(both, 1)) }
	v1, v2 := k1.v, k2.v
	switch {
	case v1 == v2:
		if k1.d < k2.d {
			first(c1, c2)
		} else {
			first(c2, c1)
		}
		return nil
	case p.reach[v1].has(v2) || (s1 == s2 && q.apart(v1, v2) > 0):
		// v1 completes first: its transfer goes first
		if !q.endsBefore(v1, k1.d, v2) {
			first(c1, c2)
		}
		return nil
	case p.reach[v2].has(v1) || (s1 == s2 && q.apart(v1, v2) < 0):
		if !q.endsBefore(v2, k2.d, v1) {
			first(c2, c1)
		}
		return nil
	case q.endsBefore(v1, k1.d, v2) || q.endsBefore(v2, k2.d, v1):
		return nil
	}
	var delta mip.Var
	if s1 == s2 {
		// both producers on s1: the device's order decides (FCFS)
		a, b := min(v1, v2), max(v1, v2)
		dv, ok := q.pair[[2]int{a, b}]
		if !ok {
			return fmt.Errorf("internal: no ordering variable for vertices %d and %d on device %d", a, b, s1)
		}
		delta = dv
		if a != v1 { // delta = 1 means v2 first
			c1, c2 = c2, c1
		}
	} else {
		key := [2]xferKey{k1, k2}
		dv, ok := q.cross[key]
		if !ok {
			dv = q.m.AddBinary(fmt.Sprintf("dx_%d_%d_%d_%d", k1.v, k1.d, k2.v, k2.d))
			q.binaries++
			q.cross[key] = dv
		}
		delta = dv
	}
	// delta = 1: c1's transfer first; delta = 0: c2's first
	q.ge(name+"_a", lin{}.v(c2.S, 1).v(c1.C, -1).v(delta, -M).k(M).plus(both, 1))
	q.ge(name+"_b", lin{}.v(c1.S, 1).v(c2.C, -1).v(delta, M).plus(both, 1))
	return nil
}

// endsBefore reports whether, in every schedule within the upper bound,
// the transfer of a's outputs to d ends before b completes (so before any
// transfer of b starts): the transfer ends before its consumer on d
// starts, and each consumer w that may be on d either reaches b or must
// start before b can complete (latest start of w <= earliest completion
// of b).
func (q *ilp) endsBefore(a, d, b int) bool {
	p := q.p
	for _, pr := range p.prods[a] {
		for _, o := range pr.outs {
			w := o.To
			if !p.canRun(w, d) || w == b || p.reach[w].has(b) {
				continue
			}
			if q.lct[w]-q.fast[w] > q.est[b]+q.fast[b] {
				return false
			}
		}
	}
	return true
}

// memBounds is the memory each device may hold under the mode, in
// bytes (+Inf: no bound). Balanced bounds are at least the largest
// group's memory, so that every group fits somewhere.
func (p *problem) memBounds(mode MemoryMode, slack float64) []float64 {
	cl := p.est.Cluster
	b := make([]float64, p.nDev)
	acc, _ := placers.Targets(cl)
	var total, largest int64
	for g := range p.targets {
		if !p.c.GroupCPU[g] {
			total += p.groupMem[g]
			largest = max(largest, p.groupMem[g])
		}
	}
	for d := range b {
		switch mode {
		case MemoryNone:
			b[d] = math.Inf(1)
			continue
		}
		b[d] = float64(cl.Devices[d].Memory)
		if mode == MemoryBalance && contains(acc, d) && len(acc) > 1 {
			b[d] = math.Min(b[d], math.Max((1+slack)*float64(total)/float64(len(acc)), float64(largest)))
		}
	}
	return b
}

// memory adds the constraints (8): each device's groups' summed memory
// within its bound (memBounds).
func (q *ilp) memory() error {
	p := q.p
	const gib = 1 << 30 // rows in GiB keep the coefficients moderate
	for d, limit := range q.o.bounds {
		if math.IsInf(limit, 1) {
			continue
		}
		row := lin{}
		any := false
		for g := range p.targets {
			if p.canRunGroup(g, d) {
				row = row.plus(q.on(g, d), -float64(p.groupMem[g])/gib)
				any = true
			}
		}
		if any {
			q.ge(fmt.Sprintf("mem_%d", d), row.k(limit/gib))
		}
	}
	return nil
}

// start builds CBC's MIP start from a schedule of the problem.
func (q *ilp) start(t *timing) []float64 {
	p := q.p
	x := make([]float64, len(q.m.Vars))
	x[q.cmax] = t.makespan * scale
	for g, vars := range q.x {
		if len(vars) == 0 {
			continue
		}
		// the device of any vertex of the group
		d := -1
		for v, gv := range p.c.Group {
			if gv == g {
				d = t.dev[v]
				break
			}
		}
		ts := p.targets[g]
		if len(ts) == 2 {
			if d == ts[1] {
				x[vars[0]] = 1
			}
			continue
		}
		for i, td := range ts {
			if td == d {
				x[vars[i]] = 1
			}
		}
	}
	for v := range q.S {
		x[q.S[v]] = t.start[v] * scale
		x[q.C[v]] = t.finish[v] * scale
	}
	before := func(a, b int) bool { // a runs (or could run) before b
		if t.start[a] != t.start[b] {
			return t.start[a] < t.start[b]
		}
		return a < b
	}
	for ab, dv := range q.pair {
		if before(ab[0], ab[1]) {
			x[dv] = 1
		}
	}
	for k, cv := range q.comm {
		xf := t.xfers[k]
		if xf == nil {
			x[cv.S] = t.finish[k.v] * scale
			x[cv.C] = t.finish[k.v] * scale
			continue
		}
		x[cv.S] = xf.start * scale
		x[cv.C] = xf.finish * scale
		for i, y := range cv.y {
			if y >= 0 {
				x[y] = xf.part[i] * scale
			}
		}
		if a, ok := cv.actFrom(xf.src); ok {
			x[a] = 1
		}
	}
	for key, dv := range q.cross {
		a, b := t.xfers[key[0]], t.xfers[key[1]]
		if a != nil && b != nil && a.start <= b.start {
			x[dv] = 1
		}
	}
	return x
}

// solveGrace is how long CBC may overrun its time limit before it is
// interrupted.
const solveGrace = 10 * time.Second

// ilpResult is a solved ILP.
type ilpResult struct {
	dev    []int // per vertex
	start  []float64
	finish []float64
	// value is the ILP's makespan (seconds).
	value float64
	sol   *mip.Solution
}

// solve runs CBC on the ILP with the given start (nil: none).
func (q *ilp) solve(ctx context.Context, warm []float64) (*ilpResult, error) {
	if q.o.TimeLimit > 0 {
		// CBC checks its limit between steps that can take half a minute
		// on a large model: interrupt it (it then reports its incumbent)
		// if it overruns by more than solveGrace
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, q.o.TimeLimit+solveGrace)
		defer cancel()
	}
	sol, err := mip.Solve(ctx, q.m, mip.Options{TimeLimit: q.o.TimeLimit, RelGap: q.o.RelGap,
		Threads: q.o.Threads, WarmStart: warm, Dir: q.o.Dir})
	if err != nil {
		if errors.Is(err, mip.ErrInfeasible) {
			return nil, fmt.Errorf("%w: the Pesto ILP is infeasible (memory constraints: %s): %v", placers.ErrDoesNotFit, q.o.Memory, err)
		}
		return nil, err
	}
	p := q.p
	n := p.c.Len()
	r := &ilpResult{dev: make([]int, n), start: make([]float64, n), finish: make([]float64, n),
		value: sol.Objective / scale, sol: sol}
	for v := 0; v < n; v++ {
		g := p.c.Group[v]
		ts := p.targets[g]
		r.dev[v] = ts[0]
		switch {
		case len(ts) == 2:
			if sol.Value(q.x[g][0]) > 0.5 {
				r.dev[v] = ts[1]
			}
		case len(ts) > 2:
			best := -1.0
			for i, xv := range q.x[g] {
				if val := sol.Value(xv); val > best {
					best, r.dev[v] = val, ts[i]
				}
			}
		}
		r.start[v] = sol.Value(q.S[v]) / scale
		r.finish[v] = sol.Value(q.C[v]) / scale
	}
	return r, nil
}

// serialBound is an upper bound on any sensible schedule's makespan: every
// vertex at its slowest and every transfer at its slowest, one after
// another.
func (p *problem) serialBound() float64 {
	var s float64
	for v := range p.dur {
		var worst float64
		for _, d := range p.targets[p.c.Group[v]] {
			worst = math.Max(worst, p.dur[v][d])
		}
		s += worst
		for _, pr := range p.prods[v] {
			var b int64
			for _, o := range pr.outs {
				b = max(b, o.Bytes)
			}
			var t float64
			for src := 0; src < p.nDev; src++ {
				for dst := 0; dst < p.nDev; dst++ {
					if src != dst {
						t = math.Max(t, p.transfer(src, dst, b))
					}
				}
			}
			s += t * float64(p.nDev)
		}
	}
	return s
}
