package graphalg

import (
	"fmt"
	"math"
	"sort"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// Coarse is a coarse-grain graph whose ops are clusters of a fine graph's
// ops (Celeritas section 5.2): a coarse op's time on a device kind is the
// sum of its members' estimated times; a coarse edge carries what the
// members would send across (per producer and coarse consumer, the largest
// edge, as the engine sends it), summed.
//
// Colocation follows the rule of Book (Celeritas section 6.1): a colocation
// unit goes where its first op (in cluster order) goes; the cluster holding
// it is the unit's anchor. The members of a cluster whose units are
// anchored elsewhere (in training, the backward ops of forward ops fused
// earlier) cannot run where the cluster runs, so each cluster is cut into
// runs of consecutive members with the same anchor, and every run is a
// coarse op; the runs of one anchor form a colocation group of the coarse
// graph. A placer that keeps the coarse graph's colocation therefore keeps
// the fine graph's, and Expand puts every fine op on its own coarse op's
// device: the coarse schedule is the one that runs. Runs of clusters that
// are consecutive in a topological order are consecutive in it too, so the
// coarse graph stays acyclic (Lemma 2).
//
// A unit's whole memory (OpMemories of its ops, counted once) is charged to
// the run holding its first op, as ParamBytes; a coarse op's TempBytes is
// the largest transient footprint (output plus workspace) of its members.
// Coarse ops have type CoarseOpType, whose outputs OpMemories does not
// charge again, so OpMemories of the coarse graph sums, per coarse op, the
// fine graph's OpMemories of the units it anchors. The coarse graph is for
// placing, not simulating.
type Coarse struct {
	// Graph is the coarse graph, validated.
	Graph *workloads.Graph
	// Members lists each coarse op's fine ops in cluster order.
	Members [][]int
	// Of maps a fine op to its coarse op.
	Of []int
	// Cluster maps a coarse op (a run) to the cluster it was cut from.
	Cluster []int
}

// CoarseOpType is the Type of a coarse graph's ops: their ParamBytes is
// already the whole memory charged to them (see Coarse).
const CoarseOpType = "cluster"

// UnitCharges is the memory each op of order carries when every colocation
// unit of t is charged, whole and once, to its first op in order (mem gives
// each op's own memory, OpMemories): the memory a cluster of consecutive
// ops of order carries in the coarse graph, as eq. 6's bound must see it.
// Ops missing from order are charged nothing.
func UnitCharges(mem []int64, t *Targets, order []int) []int64 {
	unitMem := make([]int64, len(t.Units))
	for op, m := range mem {
		unitMem[t.UnitOf[op]] += m
	}
	out := make([]int64, len(mem))
	done := make([]bool, len(t.Units))
	for _, op := range order {
		if u := t.UnitOf[op]; !done[u] {
			done[u] = true
			out[op] = unitMem[u]
		}
	}
	return out
}

// NewCoarse builds the coarse graph of g for the given clusters, which
// must partition g's ops. The clusters may be any partition: if the coarse
// graph has a cycle (a fusion against Theorem 1) the error wraps ErrLoop
// and names the loop. est gives the members' times and memory.
func NewCoarse(g *workloads.Graph, d *DAG, est *devices.Estimates, t *Targets, clusters [][]int) (*Coarse, error) {
	n := len(g.Ops)
	of := make([]int, n)
	for i := range of {
		of[i] = -1
	}
	for k, ops := range clusters {
		if len(ops) == 0 {
			return nil, fmt.Errorf("coarsen %q: cluster %d is empty", g.Name, k)
		}
		for _, op := range ops {
			if op < 0 || op >= n {
				return nil, fmt.Errorf("coarsen %q: cluster %d names op %d, graph has ops 0..%d", g.Name, k, op, n-1)
			}
			if of[op] >= 0 {
				return nil, fmt.Errorf("coarsen %q: op %q is in clusters %d and %d", g.Name, g.Ops[op].Name, of[op], k)
			}
			of[op] = k
		}
	}
	for i, k := range of {
		if k < 0 {
			return nil, fmt.Errorf("coarsen %q: op %q is in no cluster", g.Name, g.Ops[i].Name)
		}
	}
	// the anchor cluster of each unit: the one holding its first op
	anchor := make([]int, len(t.Units))
	for u := range anchor {
		anchor[u] = -1
	}
	for k, ops := range clusters {
		for _, op := range ops {
			if u := t.UnitOf[op]; anchor[u] < 0 {
				anchor[u] = k
			}
		}
	}
	c := &Coarse{Of: make([]int, n)}
	for i := range c.Of {
		c.Of[i] = -1
	}
	groupCPU := make([]bool, len(clusters))
	runsOf := make([]int, len(clusters))
	for k, ops := range clusters {
		c.split(d, ops, k, func(op int) int { return anchor[t.UnitOf[op]] })
	}
	for x := range c.Members {
		runsOf[anchor[t.UnitOf[c.Members[x][0]]]]++
	}
	for u, a := range anchor {
		if t.needCPU[u] {
			groupCPU[a] = true
		}
	}
	// one representative device per kind, for the members' times
	var kindDev []int
	seen := map[string]bool{}
	for i, dev := range est.Cluster.Devices {
		if !seen[dev.Kind.Name] {
			seen[dev.Kind.Name] = true
			kindDev = append(kindDev, i)
		}
	}
	mem := OpMemories(g, est)
	unitMem := make([]int64, len(t.Units))
	for op, m := range mem {
		unitMem[t.UnitOf[op]] += m
	}
	charged := make([]bool, len(t.Units))
	nc := len(c.Members)
	cg := workloads.NewGraph(g.Name+"/coarse", g.Batch)
	cg.Training = g.Training
	cg.Ops = make([]workloads.Op, 0, nc)
	for k, ops := range c.Members {
		a := anchor[t.UnitOf[ops[0]]]
		op := workloads.Op{Name: fmt.Sprintf("cluster%d", k), Type: CoarseOpType, Layer: g.Ops[ops[0]].Layer,
			Role: g.Ops[ops[0]].Role, CPUOnly: groupCPU[a], Measured: make(map[string]float64, len(kindDev))}
		if runsOf[a] > 1 {
			op.Colocation = fmt.Sprintf("fused%d", a)
		}
		for _, dv := range kindDev {
			s := 0.0
			for _, m := range ops {
				s += est.OpTime(m, dv)
			}
			if !math.IsInf(s, 1) {
				op.Measured[est.Cluster.Devices[dv].Kind.Name] = s
			}
		}
		for _, m := range ops {
			op.FLOPs += g.Ops[m].FLOPs
			op.BytesAccessed += g.Ops[m].BytesAccessed
			op.FixedBytes += g.Ops[m].FixedBytes
			if u := t.UnitOf[m]; !charged[u] {
				charged[u] = true
				op.ParamBytes += unitMem[u]
			}
			_, o, tmp := est.OpMemory(m)
			op.TempBytes = max(op.TempBytes, o+tmp)
		}
		cg.AddOp(op)
	}
	// coarse edges: per producer, the largest dependency to each other
	// cluster, summed per cluster pair
	type pair struct{ a, b int }
	bytes := map[pair]int64{}
	best := map[int]int64{}
	for u := 0; u < n; u++ {
		clear(best)
		a := c.Of[u]
		lo, hi := d.SuccRange(u)
		for j := lo; j < hi; j++ {
			b := c.Of[d.SuccAt(j)]
			if b == a {
				continue
			}
			if x := d.BytesAt(d.DepOfSucc(j)); x > best[b] {
				best[b] = x
			} else if _, ok := best[b]; !ok {
				best[b] = x
			}
		}
		for b, x := range best {
			bytes[pair{a, b}] += x
		}
	}
	pairs := make([]pair, 0, len(bytes))
	for p := range bytes {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].a != pairs[j].a {
			return pairs[i].a < pairs[j].a
		}
		return pairs[i].b < pairs[j].b
	})
	for _, p := range pairs {
		cg.AddEdge(p.a, p.b, bytes[p])
	}
	if err := cg.Validate(); err != nil {
		if _, cyc := cg.TopoOrder(); cyc != nil {
			return nil, fmt.Errorf("coarsen %q: %w: %v", g.Name, ErrLoop, cyc)
		}
		return nil, fmt.Errorf("coarsen %q: %w", g.Name, err)
	}
	c.Graph = cg
	return c, nil
}

// split cuts cluster k (ops in cluster order) into coarse ops of one
// anchor each and appends them to c: runs of consecutive ops with the same
// anchor, and a run joins the cluster's latest coarse op of its anchor
// whose merge makes no loop among the cluster's coarse ops (no path from
// that op to the run through another of them). Coarse ops are never merged across
// clusters, so when the clusters are runs of a topological order every
// path between two ops of the cluster stays inside it, and the coarse
// graph stays acyclic.
func (c *Coarse) split(d *DAG, ops []int, k int, anchor func(int) int) {
	base := len(c.Members)
	byAnchor := map[int][]int{} // anchor -> its coarse ops in the cluster
	var succ []map[int]bool     // coarse op (from base) -> in-cluster successors
	var preds, stack []int      // scratch
	reaches := func(from int, to []int) bool {
		want := map[int]bool{}
		for _, x := range to {
			if x != from {
				want[x] = true
			}
		}
		if len(want) == 0 {
			return false
		}
		seen := map[int]bool{from: true}
		stack = append(stack[:0], from)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for y := range succ[x-base] {
				if want[y] {
					return true
				}
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		return false
	}
	start := 0
	for i := 1; i <= len(ops); i++ {
		if i < len(ops) && anchor(ops[i]) == anchor(ops[start]) {
			continue
		}
		run := ops[start:i:i]
		a := anchor(run[0])
		start = i
		// the cluster's coarse ops feeding the run
		preds = preds[:0]
		for _, op := range run {
			lo, hi := d.PredRange(op)
			for j := lo; j < hi; j++ {
				if x := c.Of[d.PredAt(j)]; x >= base {
					preds = append(preds, x)
				}
			}
		}
		x := -1
		for j := len(byAnchor[a]) - 1; j >= 0; j-- {
			if y := byAnchor[a][j]; !reaches(y, preds) {
				x = y
				break
			}
		}
		if x >= 0 {
			c.Members[x] = append(c.Members[x], run...)
		} else {
			x = len(c.Members)
			byAnchor[a] = append(byAnchor[a], x)
			c.Members = append(c.Members, run)
			c.Cluster = append(c.Cluster, k)
			succ = append(succ, map[int]bool{})
		}
		for _, op := range run {
			c.Of[op] = x
		}
		for _, y := range preds {
			if y != x {
				succ[y-base][x] = true
			}
		}
	}
}

// Estimates are the exact estimates of the coarse graph on cluster cl:
// since the coarse ops carry their members' estimated times and memory,
// they are the fine estimates summed (transfer times are the cluster's,
// without the fine estimates' noise).
func (c *Coarse) Estimates(cl *devices.Cluster) (*devices.Estimates, error) {
	return devices.NewEstimates(c.Graph, cl, devices.EstimateOptions{Mode: devices.Exact})
}

// Expand maps a plan for the coarse graph to the fine graph: a fine op goes
// to the device of its coarse op and takes its priority (from Priority, or
// else from its position in Order). The result has no Order (the engine
// interleaves the members of coarse ops on a device by priority). It is an
// error (wrapping ErrSplitUnit) when p puts two coarse ops of one
// colocation group on different devices: the fine graph's colocation unit
// would be split.
func (c *Coarse) Expand(p *engine.Plan) (*engine.Plan, error) {
	n := len(c.Of)
	if len(p.Device) != len(c.Members) {
		return nil, fmt.Errorf("coarse plan has %d devices for %d coarse ops", len(p.Device), len(c.Members))
	}
	group := map[string]int{}
	for k := range c.Members {
		name := c.Graph.Ops[k].Colocation
		if name == "" {
			continue
		}
		if first, ok := group[name]; !ok {
			group[name] = k
		} else if p.Device[first] != p.Device[k] {
			return nil, fmt.Errorf("%w: coarse ops %q and %q of colocation group %q are on devices %d and %d",
				ErrSplitUnit, c.Graph.Ops[first].Name, c.Graph.Ops[k].Name, name, p.Device[first], p.Device[k])
		}
	}
	out := &engine.Plan{Device: make([]int, n)}
	prio := p.Priority
	if prio == nil && p.Order != nil {
		prio = make([]float64, len(c.Members))
		for _, ops := range p.Order {
			for i, op := range ops {
				prio[op] = -float64(i)
			}
		}
	}
	if prio != nil {
		out.Priority = make([]float64, n)
	}
	for op := 0; op < n; op++ {
		out.Device[op] = p.Device[c.Of[op]]
		if prio != nil {
			out.Priority[op] = prio[c.Of[op]]
		}
	}
	return out, nil
}
