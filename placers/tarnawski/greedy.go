package tarnawski

import (
	"context"

	"placesim/engine"
	"placesim/placers"
)

var (
	_ placers.Placer   = (*Greedy)(nil)
	_ placers.Reporter = (*Greedy)(nil)
)

// Greedy is the greedy baseline of Tarnawski et al. (Appendix F): contract
// colocated nodes and strongly connected components (the DP's
// preprocessing), fix a topological order, fill each accelerator in turn
// with as many nodes of that order as fit its memory, and put the rest on
// a CPU. It ignores times and communication.
type Greedy struct{ pipe pipelineOpts }

// NewGreedy makes the greedy placer (options pipeline, micro-batches).
func NewGreedy(a PipelineArgs) (placers.Placer, error) { return &Greedy{pipe: a.Pipeline}, nil }

// Name implements placers.Placer.
func (*Greedy) Name() string { return "greedy" }

// Place implements placers.Placer.
func (p *Greedy) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := p.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter.
func (p *Greedy) PlaceReport(_ context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	m, err := prepare(p.Name(), req)
	if err != nil {
		return nil, nil, err
	}
	dg, err := buildDPGraph(m)
	if err != nil {
		return nil, nil, err
	}
	var parts []part
	var rest []int32
	cur, used := part{}, int64(0)
	for _, v := range dg.dfsOrder() {
		switch {
		case dg.cpuOnly[v] > 0 || len(parts) == m.K():
			rest = append(rest, v)
		case used+dg.size[v] <= m.AccMem:
			cur.nodes = append(cur.nodes, v)
			used += dg.size[v]
		default:
			// the accelerator is full: the next one, if any
			if len(cur.nodes) > 0 {
				parts = append(parts, cur)
			}
			cur, used = part{}, 0
			if len(parts) < m.K() && dg.size[v] <= m.AccMem {
				cur.nodes, used = []int32{v}, dg.size[v]
			} else {
				rest = append(rest, v) // too large for any accelerator
			}
		}
	}
	if len(cur.nodes) > 0 && len(parts) < m.K() {
		parts = append(parts, cur)
	}
	// drop empty accelerator parts
	k := 0
	for _, pt := range parts {
		if len(pt.nodes) > 0 {
			parts[k] = pt
			k++
		}
	}
	parts = parts[:k]
	if len(rest) > 0 {
		var cpuMem int64
		for _, v := range rest {
			cpuMem += dg.size[v]
		}
		if m.L() == 0 || cpuMem > m.CPUMem {
			return nil, nil, infeasible(m, dg, "greedy split")
		}
		parts = append(parts, part{nodes: rest, cpu: true})
	}
	return finish(m, assignParts(m, dg, parts), p.pipe, "max-load", nil)
}
