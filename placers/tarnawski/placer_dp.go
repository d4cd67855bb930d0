package tarnawski

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/maxload"
)

var (
	_ placers.Placer   = (*DP)(nil)
	_ placers.Reporter = (*DP)(nil)
)

// DefaultMaxMemoryMiB bounds the memory (MiB) of the DP's ideals, their
// lattice and its table (option max-memory-mib); beyond it the DP stops
// with ErrTooManyIdeals, naming the ideal count and the memory it would
// need. Table 1's largest input, Inception-V3 with 36,596 ideals, needs
// about 10 MiB.
const DefaultMaxMemoryMiB = 1024

// DP is the max-load dynamic program over ideals (section 5.1.1) for
// contiguous splits, tarnawski-dp; with Linearize it is DPL (section
// 5.1.2), tarnawski-dpl, which first adds a DFS path of artificial edges
// so that the ideals are the |V|+1 prefixes of one topological order.
type DP struct {
	linearize bool
	maxMemory int64 // bytes
	maxIdeals int   // 0: DefaultMaxIdeals
	workers   int
	pipe      pipelineOpts
}

// NewDP makes tarnawski-dp (options: DPArgs).
func NewDP(a DPArgs) (placers.Placer, error) { return newDP(false, a), nil }

// NewDPL makes tarnawski-dpl, the DP on the linearised graph (same options).
func NewDPL(a DPArgs) (placers.Placer, error) { return newDP(true, a), nil }

func newDP(lin bool, a DPArgs) *DP {
	return &DP{linearize: lin, maxMemory: int64(a.MaxMemoryMiB) << 20, workers: a.Workers, pipe: a.Pipeline}
}

// Name implements placers.Placer.
func (p *DP) Name() string {
	if p.linearize {
		return "tarnawski-dpl"
	}
	return "tarnawski-dp"
}

// Place implements placers.Placer.
func (p *DP) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := p.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter: the plan and its max-load.
func (p *DP) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	m, err := prepare(p.Name(), req)
	if err != nil {
		return nil, nil, err
	}
	sol, err := p.solve(ctx, m)
	fallback := ""
	if errors.Is(err, ErrTooManyIdeals) && !p.linearize {
		// the exact DP would take too long: DPL's split (section 5.1.2),
		// shown as a fallback
		fallback = "tarnawski-dpl's split: " + err.Error()
		lin := *p
		lin.linearize = true
		sol, err = lin.solve(ctx, m)
	}
	if err != nil {
		return nil, nil, err
	}
	notes := []string{fmt.Sprintf("%d DP nodes, %d ideals, %d ideal pairs walked, DP table %s", sol.dg.n, sol.res.ideals, sol.res.pairs, formatBytes(sol.res.tableBytes))}
	plan, rep, err := finish(m, sol.assign, p.pipe, "max-load", notes)
	if rep != nil {
		rep.Ideals, rep.TableBytes = sol.res.ideals, sol.res.tableBytes
		rep.Fallback = fallback
	}
	return plan, rep, err
}

// dpSolution is a DP split mapped back to ops.
type dpSolution struct {
	dg     *dpGraph
	res    *dpResult
	assign []int // model device per op
}

// solve runs the preprocessing, then DPL (its optimum bounds the DP's
// and prunes its walks) and, for tarnawski-dp, the ideal enumeration and
// the DP.
func (p *DP) solve(ctx context.Context, m *maxload.Model) (*dpSolution, error) {
	dg, err := buildDPGraph(m)
	if err != nil {
		return nil, err
	}
	lim := dpLimits{K: m.K(), L: m.L(), accMem: m.AccMem, cpuMem: m.CPUMem, bound: math.Inf(1)}
	res, err := runDPL(ctx, dg, dg.dfsOrder(), lim)
	if err != nil {
		return nil, err
	}
	if !p.linearize {
		// DPL's split is contiguous, so its max-load bounds the optimum
		// (with a margin for the sums' rounding)
		lim.bound = res.value * (1 + 1e-9)
		stride := (lim.K + 1) * (lim.L + 1)
		maxIdeals := p.maxIdeals
		if maxIdeals == 0 {
			maxIdeals = DefaultMaxIdeals
		}
		ids, err := enumerateIdeals(ctx, dg, stride, p.maxMemory, maxIdeals)
		if err != nil {
			return nil, err
		}
		workers := p.workers
		if workers == 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		if res, err = runDP(ctx, dg, ids, lim, workers); err != nil {
			return nil, err
		}
	}
	if math.IsInf(res.value, 1) {
		what := "contiguous split"
		if p.linearize {
			what = "split along the linearised order"
		}
		return nil, infeasible(m, dg, what)
	}
	return &dpSolution{dg: dg, res: res, assign: assignParts(m, dg, res.parts)}, nil
}

// assignParts maps parts (in topological order) to model devices: the
// accelerator parts to accelerators 0, 1, ... and the CPU parts to CPUs,
// in that order.
func assignParts(m *maxload.Model, dg *dpGraph, parts []part) []int {
	assign := make([]int, len(m.Graph.Ops))
	nextAcc, nextCPU := 0, 0
	for _, pt := range parts {
		d := nextAcc
		if pt.cpu {
			d = m.K() + nextCPU
			nextCPU++
		} else {
			nextAcc++
		}
		for _, v := range pt.nodes {
			for _, op := range dg.ops[v] {
				assign[op] = d
			}
		}
	}
	return assign
}
