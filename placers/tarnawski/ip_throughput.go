package tarnawski

import (
	"context"
	"fmt"
	"math"
	"slices"

	"placesim/placers/maxload"
	"placesim/placers/mip"
)

// unitGraph is the graph of colocation units (ops sharing a colour class,
// forward and backward together) with no contraction beyond colocation:
// the non-contiguous IP's variables. It reuses dpGraph's fields; it has no
// edges.
func unitGraph(m *maxload.Model) *dpGraph {
	g := m.Graph
	dg := &dpGraph{name: g.Name, nodeOf: make([]int32, len(g.Ops))}
	index := map[string]int{}
	for i := range g.Ops {
		c := g.Ops[i].Colocation
		id, ok := index[c]
		if c == "" || !ok {
			id = len(dg.ops)
			if c != "" {
				index[c] = id
			}
			dg.ops = append(dg.ops, nil)
		}
		dg.nodeOf[i] = int32(id)
		dg.ops[id] = append(dg.ops[id], i)
	}
	dg.n = len(dg.ops)
	dg.pred = make([][]int32, dg.n)
	dg.succ = make([][]int32, dg.n)
	dg.artificial = make([]bool, dg.n)
	dg.sumCosts(m)
	return dg
}

// throughputIP is the max-load IP of Figure 7 (Appendix C) over the nodes
// of dg: x[v][i] = 1 when node v is on model device i.
type throughputIP struct {
	model   *mip.Model
	x       [][]mip.Var
	maxLoad mip.Var
}

// buildThroughputIP writes Figure 7 for dg on m's devices:
//
//	min MaxLoad
//	sum_i x[v][i] = 1                                  (15)
//	sum_v m_v x[v][i] <= M            (accelerators)   (17)
//	cut[h][i] >= x[r][i] - x[s][i], x[s][i] - x[r][i]  (18), (19)
//	MaxLoad >= sum_h c_h cut[h][i] + sum_v p_acc x[v][i] (20)
//	MaxLoad >= sum_v p_cpu x[v][i]    (CPUs)           (21)
//
// The paper's CommIn[u][i] + CommOut[u][i] is one cut variable per
// hyperedge h = {u} ∪ consumers and accelerator i (they cannot both be 1),
// forced to 1 when h has nodes on i and off it. With contiguous set, each
// device's nodes must be contiguous in dg, by the z variables of Lemma A.1,
// eqs. (11)-(13). CPU parts also get the CPU memory bound (an extension:
// the simulated CPU has a capacity). Nodes an accelerator cannot run have
// x[v][i] fixed to 0 there.
func buildThroughputIP(m *maxload.Model, dg *dpGraph, contiguous bool) *throughputIP {
	K, L := m.K(), m.L()
	nd := K + L
	mod := mip.NewModel(fmt.Sprintf("tarnawski throughput %s", dg.name))
	ip := &throughputIP{model: mod, x: make([][]mip.Var, dg.n)}
	ip.maxLoad = mod.AddContinuous("maxload", 0, math.Inf(1))
	for v := 0; v < dg.n; v++ {
		ip.x[v] = make([]mip.Var, nd)
		row := make([]mip.Term, 0, nd)
		for i := 0; i < nd; i++ {
			hi := 1.0
			if i < K && dg.cpuOnly[v] > 0 {
				hi = 0
			}
			ip.x[v][i] = mod.AddVar(fmt.Sprintf("x_%d_%d", v, i), 0, hi, true)
			row = append(row, mip.Term{Var: ip.x[v][i], Coef: 1})
		}
		mod.AddConstraint(fmt.Sprintf("assign_%d", v), row, mip.EQ, 1)
	}
	for i := 0; i < nd; i++ {
		limit := m.AccMem
		if i >= K {
			limit = m.CPUMem
		}
		var mem, load []mip.Term
		for v := 0; v < dg.n; v++ {
			mem = append(mem, mip.Term{Var: ip.x[v][i], Coef: float64(dg.size[v])})
			p := dg.pAcc[v]
			if i >= K {
				p = dg.pCPU[v]
			}
			if p != 0 && !math.IsInf(p, 0) {
				load = append(load, mip.Term{Var: ip.x[v][i], Coef: p})
			}
		}
		if limit < math.MaxInt64 {
			mod.AddConstraint(fmt.Sprintf("memory_%d", i), mem, mip.LE, float64(limit))
		}
		if i < K {
			for h, e := range dg.hyper {
				if e.cost == 0 {
					continue
				}
				cut := mod.AddContinuous(fmt.Sprintf("cut_%d_%d", h, i), 0, 1)
				r := e.nodes[0]
				for _, s := range e.nodes[1:] {
					mod.AddConstraint(fmt.Sprintf("in_%d_%d_%d", h, i, s), []mip.Term{{Var: cut, Coef: 1}, {Var: ip.x[r][i], Coef: -1}, {Var: ip.x[s][i], Coef: 1}}, mip.GE, 0)
					mod.AddConstraint(fmt.Sprintf("out_%d_%d_%d", h, i, s), []mip.Term{{Var: cut, Coef: 1}, {Var: ip.x[r][i], Coef: 1}, {Var: ip.x[s][i], Coef: -1}}, mip.GE, 0)
				}
				load = append(load, mip.Term{Var: cut, Coef: e.cost})
			}
		}
		load = append(load, mip.Term{Var: ip.maxLoad, Coef: -1})
		mod.AddConstraint(fmt.Sprintf("load_%d", i), load, mip.LE, 0)
		if contiguous {
			addContiguity(mod, dg, ip.x, i)
		}
	}
	breakSymmetry(mod, ip.x, 0, K)
	breakSymmetry(mod, ip.x, K, K+L)
	// every node runs somewhere: a bound the LP relaxation cannot see
	lb := 0.0
	for v := 0; v < dg.n; v++ {
		t := dg.pCPU[v]
		if dg.cpuOnly[v] == 0 {
			t = math.Min(t, dg.pAcc[v])
		}
		if !math.IsInf(t, 1) {
			lb = math.Max(lb, t)
		}
	}
	mod.Vars[ip.maxLoad].Lower = lb
	mod.SetObjective([]mip.Term{{Var: ip.maxLoad, Coef: 1}})
	return ip
}

// breakSymmetry orders the identical devices lo..hi-1 (all accelerators,
// or all CPUs): device i may hold node v only if device i-1 holds a node
// before v. Any split can be relabelled so (devices in the order of their
// first node), so the optimum is kept and the branch and bound does not
// revisit the (hi-lo)! relabellings of each split. y[v][i] counts the
// nodes up to v on device i.
func breakSymmetry(mod *mip.Model, x [][]mip.Var, lo, hi int) {
	if hi-lo < 2 {
		return
	}
	prev := make([]mip.Var, hi) // y[v-1][i]
	cur := make([]mip.Var, hi)
	for v := range x {
		for i := lo; i < hi; i++ {
			if i > lo {
				if v == 0 {
					mod.Vars[x[v][i]].Upper = 0
				} else {
					mod.AddConstraint(fmt.Sprintf("order_%d_%d", v, i), []mip.Term{{Var: x[v][i], Coef: 1}, {Var: prev[i-1], Coef: -1}}, mip.LE, 0)
				}
			}
			cur[i] = mod.AddContinuous(fmt.Sprintf("y_%d_%d", v, i), 0, float64(v+1))
			row := []mip.Term{{Var: cur[i], Coef: 1}, {Var: x[v][i], Coef: -1}}
			if v > 0 {
				row = append(row, mip.Term{Var: prev[i], Coef: -1})
			}
			mod.AddConstraint(fmt.Sprintf("count_%d_%d", v, i), row, mip.EQ, 0)
		}
		prev, cur = cur, prev
	}
}

// addContiguity adds eqs. (11)-(13) of Lemma A.1 for device i: z[v] >=
// x[v], z[v] <= z[u] and z[v] <= x[v] - x[u] + 1 for every edge (u, v).
func addContiguity(mod *mip.Model, dg *dpGraph, x [][]mip.Var, i int) {
	z := make([]mip.Var, dg.n)
	for v := 0; v < dg.n; v++ {
		z[v] = mod.AddContinuous(fmt.Sprintf("z_%d_%d", v, i), 0, 1)
		mod.AddConstraint(fmt.Sprintf("zx_%d_%d", v, i), []mip.Term{{Var: z[v], Coef: 1}, {Var: x[v][i], Coef: -1}}, mip.GE, 0)
	}
	for v := 0; v < dg.n; v++ {
		for _, u := range dg.pred[v] {
			mod.AddConstraint(fmt.Sprintf("zz_%d_%d_%d", u, v, i), []mip.Term{{Var: z[v], Coef: 1}, {Var: z[u], Coef: -1}}, mip.LE, 0)
			mod.AddConstraint(fmt.Sprintf("zc_%d_%d_%d", u, v, i), []mip.Term{{Var: z[v], Coef: 1}, {Var: x[v][i], Coef: -1}, {Var: x[u][i], Coef: 1}}, mip.LE, 1)
		}
	}
}

// start is the IP's warm start from an assignment of model devices to
// ops: the x values, with the devices of each kind relabelled in the order
// of their first node as the symmetry breaking wants (CBC recomputes the
// continuous variables).
func (ip *throughputIP) start(dg *dpGraph, assign []int, K int) []float64 {
	vals := make([]float64, len(ip.model.Vars))
	relabel := map[int]int{}
	nextAcc, nextCPU := 0, K
	for v := 0; v < dg.n; v++ {
		d := assign[dg.ops[v][0]]
		r, ok := relabel[d]
		if !ok {
			if d < K {
				r = nextAcc
				nextAcc++
			} else {
				r = nextCPU
				nextCPU++
			}
			relabel[d] = r
		}
		vals[ip.x[v][r]] = 1
	}
	return vals
}

// assignment reads the model device of every op from a solution.
func (ip *throughputIP) assignment(dg *dpGraph, nOps int, sol *mip.Solution) []int {
	assign := make([]int, nOps)
	for v := 0; v < dg.n; v++ {
		best := slices.IndexFunc(ip.x[v], func(x mip.Var) bool { return sol.Value(x) > 0.5 })
		if best < 0 {
			best = 0
			for i, x := range ip.x[v] {
				if sol.Value(x) > sol.Value(ip.x[v][best]) {
					best = i
				}
			}
		}
		for _, op := range dg.ops[v] {
			assign[op] = best
		}
	}
	return assign
}

// solveIP runs CBC on ip, warm-started from warm (a model device per op)
// when given, and returns the assignment.
func solveIP(ctx context.Context, ip *throughputIP, dg *dpGraph, nOps, K int, warm []int, o mip.Options) ([]int, *mip.Solution, error) {
	if warm != nil {
		o.WarmStart = ip.start(dg, warm, K)
	}
	sol, err := mip.Solve(ctx, ip.model, o)
	if err != nil {
		return nil, sol, err
	}
	return ip.assignment(dg, nOps, sol), sol, nil
}
