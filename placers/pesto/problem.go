package pesto

import (
	"fmt"
	"math"

	"placesim/devices"
	"placesim/placers"
)

// problem is the scheduling problem the ILP and its warm start solve: the
// vertices of a coarse graph with their times on each target device, the
// placement groups, the transfers each vertex's fine producers make, and
// the reachability between vertices. Times are seconds.
type problem struct {
	c    *Coarse
	est  *devices.Estimates
	nDev int
	// targets lists each group's devices (accelerators, or CPUs).
	targets [][]int
	// dur[v][d] is vertex v's time on device d (its members' estimates).
	dur [][]float64
	// prods lists each vertex's fine producers whose output another group
	// reads.
	prods [][]producer
	// reach[v] holds the vertices reachable from v by a non-empty path.
	reach []bitset
	// groupMem is each group's memory footprint.
	groupMem []int64
}

// producer is a fine op whose output goes to vertices of other groups.
type producer struct {
	op   int
	outs []Edge // per consumer vertex: the largest fine edge's bytes
}

// maxILPVertices bounds the vertices the ILP accepts (its pairwise
// constraints grow with the square).
const maxILPVertices = 3000

func newProblem(c *Coarse, est *devices.Estimates) (*problem, error) {
	n := c.Len()
	if n > maxILPVertices {
		return nil, fmt.Errorf("%w: %d vertices for the ILP (at most %d: coarsen with vertices=N)", placers.ErrBadOption, n, maxILPVertices)
	}
	cl := est.Cluster
	p := &problem{c: c, est: est, nDev: len(cl.Devices), targets: make([][]int, c.NumGroups),
		dur: make([][]float64, n), prods: make([][]producer, n), groupMem: make([]int64, c.NumGroups)}
	acc, cpus := placers.Targets(cl)
	for g := range p.targets {
		if c.GroupCPU[g] {
			if len(cpus) == 0 {
				return nil, fmt.Errorf("graph %q has CPU-only ops and cluster %q no CPU device", c.Fine.Name, cl.Name)
			}
			p.targets[g] = cpus
		} else {
			p.targets[g] = acc
		}
	}
	for v := 0; v < n; v++ {
		p.dur[v] = make([]float64, p.nDev)
		for d := range p.dur[v] {
			p.dur[v][d] = math.Inf(1)
		}
		for _, d := range p.targets[c.Group[v]] {
			var s float64
			for _, op := range c.Members[v] {
				s += est.OpTime(op, d)
			}
			if math.IsInf(s, 0) || math.IsNaN(s) {
				return nil, fmt.Errorf("op of %q cannot run on target device %s", c.Fine.Name, cl.Devices[d].Name)
			}
			p.dur[v][d] = s
		}
		p.groupMem[c.Group[v]] += c.Memory[v]
	}
	// fine producers and the bytes they send to each other-group vertex
	g := c.Fine
	for v := 0; v < n; v++ {
		for _, op := range c.Members[v] {
			var outs []Edge
			for _, eid := range g.Out(op) {
				e := g.Edges[eid]
				w := c.Of[e.To]
				if c.Group[w] == c.Group[v] {
					continue
				}
				found := false
				for i := range outs {
					if outs[i].To == w {
						outs[i].Bytes = max(outs[i].Bytes, e.Bytes)
						found = true
						break
					}
				}
				if !found {
					outs = append(outs, Edge{To: w, Bytes: e.Bytes})
				}
			}
			if len(outs) > 0 {
				p.prods[v] = append(p.prods[v], producer{op: op, outs: outs})
			}
		}
	}
	// reachability, in reverse topological order
	order, err := p.topo()
	if err != nil {
		return nil, err
	}
	p.reach = make([]bitset, n)
	for i := n - 1; i >= 0; i-- {
		v := order[i]
		r := newBitset(n)
		for _, e := range c.Succ[v] {
			r.set(e.To)
			r.or(p.reach[e.To])
		}
		p.reach[v] = r
	}
	return p, nil
}

// topo is a topological order of the vertices (Kahn, smallest first).
func (p *problem) topo() ([]int, error) {
	n := p.c.Len()
	indeg := make([]int, n)
	for v := 0; v < n; v++ {
		indeg[v] = len(p.c.Pred[v])
	}
	var order []int
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, e := range p.c.Succ[order[i]] {
			if indeg[e.To]--; indeg[e.To] == 0 {
				order = append(order, e.To)
			}
		}
	}
	if len(order) != n {
		return nil, fmt.Errorf("coarse graph of %q has a cycle", p.c.Fine.Name)
	}
	return order, nil
}

// windows returns, for schedules of makespan at most upper, each vertex's
// earliest start (the longest path of fastest times from a source) and
// latest completion (upper less the longest path of fastest times to a
// sink); communication only delays, so these hold for every such schedule.
func (p *problem) windows(upper float64) (est, lct []float64) {
	n := p.c.Len()
	order, _ := p.topo()
	fast := make([]float64, n)
	for v := range fast {
		fast[v] = math.Inf(1)
		for _, d := range p.targets[p.c.Group[v]] {
			fast[v] = math.Min(fast[v], p.dur[v][d])
		}
	}
	est, lct = make([]float64, n), make([]float64, n)
	for _, v := range order {
		for _, e := range p.c.Succ[v] {
			est[e.To] = math.Max(est[e.To], est[v]+fast[v])
		}
	}
	tail := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		v := order[i]
		for _, e := range p.c.Succ[v] {
			tail[v] = math.Max(tail[v], fast[e.To]+tail[e.To])
		}
		lct[v] = upper - tail[v]
	}
	return est, lct
}

// comparable reports whether a path joins a and b (either way).
func (p *problem) comparable(a, b int) bool { return p.reach[a].has(b) || p.reach[b].has(a) }

// canRun reports whether vertex v may be placed on device d.
func (p *problem) canRun(v, d int) bool { return p.canRunGroup(p.c.Group[v], d) }

// canRunGroup reports whether group g may be placed on device d.
func (p *problem) canRunGroup(g, d int) bool {
	for _, t := range p.targets[g] {
		if t == d {
			return true
		}
	}
	return false
}

// dests lists the devices a transfer of v may go to: the target devices of
// its consumers in other groups on which v itself may not be.
func (p *problem) dests(v int) []int {
	mark := make([]bool, p.nDev)
	for _, pr := range p.prods[v] {
		for _, o := range pr.outs {
			for _, d := range p.targets[p.c.Group[o.To]] {
				mark[d] = true
			}
		}
	}
	var ds []int
	own := p.targets[p.c.Group[v]]
	for d, m := range mark {
		if m && !(len(own) == 1 && own[0] == d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// transfer is the estimated time to send b bytes from s to d.
func (p *problem) transfer(s, d int, b int64) float64 { return p.est.TransferTime(s, d, b) }

// conflict reports whether transfers from s1 to d1 and from s2 to d2 share
// a directed link of their routes (they then queue behind each other).
func (p *problem) conflict(s1, d1, s2, d2 int) bool {
	if s1 == s2 && d1 == d2 {
		return true
	}
	r1, r2 := p.est.Cluster.Route(s1, d1), p.est.Cluster.Route(s2, d2)
	for _, a := range r1 {
		for _, b := range r2 {
			if a == b {
				return true
			}
		}
	}
	return false
}

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}
