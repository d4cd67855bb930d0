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
// Colocation follows the rule of Book: a colocation unit goes where its
// first op (in cluster order) goes, so a unit's whole memory is charged to
// the coarse op holding that first op, and the coarse graph itself has no
// colocation groups. A coarse op's ParamBytes is the memory charged to it
// (the OpMemories of the units it decides) and its TempBytes the largest
// transient footprint (output plus workspace) of its members, so that
// OpMemories and Reserve of the coarse graph give the fine graph's: a
// placer that keeps memory per coarse op keeps it for the fine graph once
// the plan is expanded. The coarse graph is for placing, not simulating.
type Coarse struct {
	// Graph is the coarse graph, validated.
	Graph *workloads.Graph
	// Members lists each coarse op's fine ops in cluster order.
	Members [][]int
	// Of maps a fine op to its coarse op.
	Of []int
	// unitAnchor maps a fine colocation unit to the coarse op that decides
	// its device; unitOf maps a fine op to its unit.
	unitAnchor, unitOf []int
}

// NewCoarse builds the coarse graph of g for the given clusters, which
// must partition g's ops. The clusters may be any partition: if the coarse
// graph has a cycle (a fusion against Theorem 1) the error wraps ErrLoop
// and names the loop. est gives the members' times and memory.
func NewCoarse(g *workloads.Graph, d *DAG, est *devices.Estimates, t *Targets, clusters [][]int) (*Coarse, error) {
	n, nc := len(g.Ops), len(clusters)
	c := &Coarse{Members: clusters, Of: make([]int, n), unitOf: t.UnitOf, unitAnchor: make([]int, len(t.Units))}
	for i := range c.Of {
		c.Of[i] = -1
	}
	for k, ops := range clusters {
		if len(ops) == 0 {
			return nil, fmt.Errorf("coarsen %q: cluster %d is empty", g.Name, k)
		}
		for _, op := range ops {
			if op < 0 || op >= n {
				return nil, fmt.Errorf("coarsen %q: cluster %d names op %d, graph has ops 0..%d", g.Name, k, op, n-1)
			}
			if c.Of[op] >= 0 {
				return nil, fmt.Errorf("coarsen %q: op %q is in clusters %d and %d", g.Name, g.Ops[op].Name, c.Of[op], k)
			}
			c.Of[op] = k
		}
	}
	for i, k := range c.Of {
		if k < 0 {
			return nil, fmt.Errorf("coarsen %q: op %q is in no cluster", g.Name, g.Ops[i].Name)
		}
	}
	for u := range c.unitAnchor {
		c.unitAnchor[u] = -1
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
	cg := workloads.NewGraph(g.Name+"/coarse", g.Batch)
	cg.Training = g.Training
	cg.Ops = make([]workloads.Op, 0, nc)
	for k, ops := range clusters {
		op := workloads.Op{Name: fmt.Sprintf("cluster%d", k), Type: "cluster", Layer: g.Ops[ops[0]].Layer,
			Measured: make(map[string]float64, len(kindDev))}
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
			u := t.UnitOf[m]
			if c.unitAnchor[u] >= 0 {
				continue
			}
			c.unitAnchor[u] = k
			if t.needCPU[u] {
				op.CPUOnly = true
			}
			for _, x := range t.Units[u] {
				op.ParamBytes += mem[x]
			}
		}
		for _, m := range ops {
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

// Estimates are the exact estimates of the coarse graph on cluster cl:
// since the coarse ops carry their members' estimated times and memory,
// they are the fine estimates summed (transfer times are the cluster's,
// without the fine estimates' noise).
func (c *Coarse) Estimates(cl *devices.Cluster) (*devices.Estimates, error) {
	return devices.NewEstimates(c.Graph, cl, devices.EstimateOptions{Mode: devices.Exact})
}

// Expand maps a plan for the coarse graph to the fine graph: a fine op goes
// to the device of the coarse op that decides its colocation unit, and
// takes its own coarse op's priority (from Priority, or else from its
// position in Order). The result has no Order, since members of a coarse op
// may be pulled to another device by colocation.
func (c *Coarse) Expand(p *engine.Plan) *engine.Plan {
	n := len(c.Of)
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
		out.Device[op] = p.Device[c.unitAnchor[c.unitOf[op]]]
		if prio != nil {
			out.Priority[op] = prio[c.Of[op]]
		}
	}
	return out
}
