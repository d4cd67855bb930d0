package tarnawski

import (
	"context"
	"errors"
	"fmt"
	"math"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
	"placesim/placers/mip"
)

// latencyIP is the latency IP of Appendix A over the ops: slot 0 is all
// CPU cores together (absent without CPUs), slots 1..K*q the q subgraph
// slots of each accelerator (q = 1: Figure 5; q > 1: Figure 6).
type latencyIP struct {
	model *mip.Model
	x     [][]mip.Var // x[op][slot]
	total mip.Var
	q     int
}

// buildLatencyIP writes Figures 5/6 for m: x[v][j] places op v in slot j;
// CommIn/CommOut per hyperedge and slot (eqs. 4, 5: a hyperedge is its
// producer's output, paid once per slot it enters or leaves);
// SubgraphStart after every input's latency (6, with the big-M of Lemma
// A.1), SubgraphFinish = start + in + compute + out (7); a CPU op's
// latency follows its predecessors' (8, 9); an accelerator op's latency
// is its slot's finish (10); an accelerator's slots run one after the
// other (14); every slot is contiguous (2, by Lemma A.1's z variables);
// colocated ops share a device (not necessarily a slot); memory per
// accelerator over its slots (3*). The paper assumes at least as many CPU
// cores as the graph is wide; CPU ops here never wait for each other.
func buildLatencyIP(m *maxload.Model, q int) *latencyIP {
	g := m.Graph
	n, K := len(g.Ops), m.K()
	slots := 1 + K*q
	mod := mip.NewModel("tarnawski latency " + g.Name)
	ip := &latencyIP{model: mod, x: make([][]mip.Var, n), q: q}
	// H bounds every latency: all work and all communication in sequence
	H := 0.0
	for op := 0; op < n; op++ {
		t := m.AccTime[op]
		if math.IsInf(t, 1) || (m.L() > 0 && m.CPUTime[op] > t) {
			t = m.CPUTime[op]
		}
		if !math.IsInf(t, 1) {
			H += t
		}
	}
	for _, h := range m.Comm {
		H += 2 * h.Cost
	}
	H = H*1.01 + 1e-9
	ip.total = mod.AddContinuous("total_latency", 0, math.Inf(1))
	lat := make([]mip.Var, n)
	for v := 0; v < n; v++ {
		ip.x[v] = make([]mip.Var, slots)
		row := make([]mip.Term, 0, slots)
		for j := 0; j < slots; j++ {
			hi := 1.0
			if (j == 0 && m.L() == 0) || (j > 0 && math.IsInf(m.AccTime[v], 1)) {
				hi = 0
			}
			ip.x[v][j] = mod.AddVar(fmt.Sprintf("x_%d_%d", v, j), 0, hi, true)
			row = append(row, mip.Term{Var: ip.x[v][j], Coef: 1})
		}
		mod.AddConstraint(fmt.Sprintf("assign_%d", v), row, mip.EQ, 1) // (1)
		lat[v] = mod.AddContinuous(fmt.Sprintf("latency_%d", v), 0, math.Inf(1))
		mod.AddConstraint(fmt.Sprintf("total_%d", v), []mip.Term{{Var: ip.total, Coef: 1}, {Var: lat[v], Coef: -1}}, mip.GE, 0)
		if m.L() > 0 {
			mod.AddConstraint(fmt.Sprintf("cpu_%d", v), []mip.Term{{Var: lat[v], Coef: 1}, {Var: ip.x[v][0], Coef: -m.CPUTime[v]}}, mip.GE, 0) // (8)
		}
	}
	for _, e := range g.Edges { // (9)
		terms := []mip.Term{{Var: lat[e.To], Coef: 1}, {Var: lat[e.From], Coef: -1}}
		if m.L() > 0 {
			terms = append(terms, mip.Term{Var: ip.x[e.To][0], Coef: -m.CPUTime[e.To]})
		}
		mod.AddConstraint(fmt.Sprintf("prec_%d_%d", e.From, e.To), terms, mip.GE, 0)
	}
	start := make([]mip.Var, slots)
	finish := make([]mip.Var, slots)
	for j := 1; j < slots; j++ {
		start[j] = mod.AddContinuous(fmt.Sprintf("start_%d", j), 0, math.Inf(1))
		finish[j] = mod.AddContinuous(fmt.Sprintf("finish_%d", j), 0, math.Inf(1))
		fin := []mip.Term{{Var: finish[j], Coef: 1}, {Var: start[j], Coef: -1}} // (7)
		for v := 0; v < n; v++ {
			if t := m.AccTime[v]; t != 0 && !math.IsInf(t, 1) {
				fin = append(fin, mip.Term{Var: ip.x[v][j], Coef: -t})
			}
			// (10): Latency_v >= Finish_j - (1 - x_vj) H
			mod.AddConstraint(fmt.Sprintf("done_%d_%d", v, j), []mip.Term{{Var: lat[v], Coef: 1}, {Var: finish[j], Coef: -1}, {Var: ip.x[v][j], Coef: -H}}, mip.GE, -H)
		}
		for h, e := range m.Comm {
			in := mod.AddContinuous(fmt.Sprintf("commin_%d_%d", h, j), 0, 1)
			out := mod.AddContinuous(fmt.Sprintf("commout_%d_%d", h, j), 0, 1)
			r := int(e.Ops[0])
			for _, s := range e.Ops[1:] {
				mod.AddConstraint(fmt.Sprintf("in_%d_%d_%d", h, j, s), []mip.Term{{Var: in, Coef: 1}, {Var: ip.x[s][j], Coef: -1}, {Var: ip.x[r][j], Coef: 1}}, mip.GE, 0)   // (4)
				mod.AddConstraint(fmt.Sprintf("out_%d_%d_%d", h, j, s), []mip.Term{{Var: out, Coef: 1}, {Var: ip.x[r][j], Coef: -1}, {Var: ip.x[s][j], Coef: 1}}, mip.GE, 0) // (5)
			}
			// (6): SubgraphStart_j >= Latency_r - (1 - CommIn) H
			mod.AddConstraint(fmt.Sprintf("ready_%d_%d", h, j), []mip.Term{{Var: start[j], Coef: 1}, {Var: lat[r], Coef: -1}, {Var: in, Coef: -H}}, mip.GE, -H)
			if e.Cost != 0 {
				fin = append(fin, mip.Term{Var: in, Coef: -e.Cost}, mip.Term{Var: out, Coef: -e.Cost})
			}
		}
		mod.AddConstraint(fmt.Sprintf("finish_%d", j), fin, mip.EQ, 0)
		if (j-1)%q != 0 { // (14)
			mod.AddConstraint(fmt.Sprintf("order_%d", j), []mip.Term{{Var: start[j], Coef: 1}, {Var: finish[j-1], Coef: -1}}, mip.GE, 0)
		}
		addOpContiguity(mod, m, ip.x, j)
	}
	for i := 0; i < K; i++ { // (3*)
		var mem []mip.Term
		for v := 0; v < n; v++ {
			for j := 1 + i*q; j <= (i+1)*q; j++ {
				mem = append(mem, mip.Term{Var: ip.x[v][j], Coef: float64(m.Size[v])})
			}
		}
		mod.AddConstraint(fmt.Sprintf("memory_%d", i), mem, mip.LE, float64(m.AccMem))
	}
	ip.colocate(m)
	mod.SetObjective([]mip.Term{{Var: ip.total, Coef: 1}})
	return ip
}

// colocate ties each op of a colour class to the class's first op: the
// same device (CPU, or one accelerator in any of its slots).
func (ip *latencyIP) colocate(m *maxload.Model) {
	g := m.Graph
	first := map[string]int{}
	K, q := m.K(), ip.q
	for v := range g.Ops {
		c := g.Ops[v].Colocation
		if c == "" {
			continue
		}
		u, ok := first[c]
		if !ok {
			first[c] = v
			continue
		}
		ip.model.AddConstraint(fmt.Sprintf("colo_%d_%d_cpu", u, v), []mip.Term{{Var: ip.x[u][0], Coef: 1}, {Var: ip.x[v][0], Coef: -1}}, mip.EQ, 0)
		for i := 0; i < K; i++ {
			var row []mip.Term
			for j := 1 + i*q; j <= (i+1)*q; j++ {
				row = append(row, mip.Term{Var: ip.x[u][j], Coef: 1}, mip.Term{Var: ip.x[v][j], Coef: -1})
			}
			ip.model.AddConstraint(fmt.Sprintf("colo_%d_%d_%d", u, v, i), row, mip.EQ, 0)
		}
	}
}

// addOpContiguity is eqs. (11)-(13) for slot j over the op graph.
func addOpContiguity(mod *mip.Model, m *maxload.Model, x [][]mip.Var, j int) {
	g := m.Graph
	z := make([]mip.Var, len(g.Ops))
	for v := range g.Ops {
		z[v] = mod.AddContinuous(fmt.Sprintf("z_%d_%d", v, j), 0, 1)
		mod.AddConstraint(fmt.Sprintf("zx_%d_%d", v, j), []mip.Term{{Var: z[v], Coef: 1}, {Var: x[v][j], Coef: -1}}, mip.GE, 0)
	}
	for _, e := range g.Edges {
		u, v := e.From, e.To
		mod.AddConstraint(fmt.Sprintf("zz_%d_%d_%d", u, v, j), []mip.Term{{Var: z[v], Coef: 1}, {Var: z[u], Coef: -1}}, mip.LE, 0)
		mod.AddConstraint(fmt.Sprintf("zc_%d_%d_%d", u, v, j), []mip.Term{{Var: z[v], Coef: 1}, {Var: x[v][j], Coef: -1}, {Var: x[u][j], Coef: 1}}, mip.LE, 1)
	}
}

// latencyStart turns a device assignment into slots: an accelerator's
// forward ops in its first slot, its other ops in the second (or all in
// the first when q = 1). It may violate contiguity; CBC then ignores it.
func (ip *latencyIP) latencyStart(m *maxload.Model, assign []int) []float64 {
	vals := make([]float64, len(ip.model.Vars))
	for op, d := range assign {
		j := 0
		if m.IsAcc(d) {
			j = 1 + d*ip.q
			if ip.q > 1 && !isForward(&m.Graph.Ops[op]) {
				j++
			}
		}
		vals[ip.x[op][j]] = 1
	}
	return vals
}

// placeLatency solves the latency IP and returns its plan; the report's
// value is the IP's latency, its max-load the split's in the max-load model.
func (p *IP) placeLatency(ctx context.Context, m *maxload.Model, dg *dpGraph, warm []int, notes []string) (*engine.Plan, *placers.Report, error) {
	ip := buildLatencyIP(m, p.slots)
	o := p.mipOpts
	if warm != nil {
		o.WarmStart = ip.latencyStart(m, warm)
	}
	sol, err := mip.Solve(ctx, ip.model, o)
	if err != nil {
		if errors.Is(err, mip.ErrInfeasible) {
			return nil, nil, infeasible(m, dg, "split")
		}
		return nil, nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	assign := make([]int, len(m.Graph.Ops))
	for op, xs := range ip.x {
		best := 0
		for j, x := range xs {
			if sol.Value(x) > sol.Value(xs[best]) {
				best = j
			}
		}
		switch {
		case best == 0:
			assign[op] = m.K() // all CPU ops on the first CPU
		default:
			assign[op] = (best - 1) / p.slots
		}
	}
	notes = append(notes, solveNotes(sol, "latency", 1e3, "ms")...)
	plan, rep, err := finish(m, assign, pipelineOpts{}, "latency", notes)
	if err != nil {
		return nil, nil, err
	}
	rep.Value = sol.Value(ip.total)
	return plan, rep, nil
}
