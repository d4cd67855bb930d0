package tarnawski

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/mip"
)

var (
	_ placers.Placer   = (*IP)(nil)
	_ placers.Reporter = (*IP)(nil)
)

// IP is the Integer Programming placer of the paper, solved with CBC:
// tarnawski-ip (contiguous splits) and tarnawski-ip-noncontig. With
// objective=throughput (default) it minimises the max-load (Figure 7,
// Appendix C); with objective=latency the single-sample latency (Figures 5
// and 6, Appendix A).
type IP struct {
	contiguous bool
	objective  string
	mipOpts    mip.Options
	warm       bool
	slots      int
	maxMemory  int64
	pipe       pipelineOpts
}

// NewIP makes tarnawski-ip (options: IPArgs).
func NewIP(a IPArgs) (placers.Placer, error) { return newIP(true, a, 1), nil }

// NewIPNonContig makes tarnawski-ip-noncontig: the same IP without the
// contiguity constraints (section 5.2); with objective=latency every
// accelerator holds up to slots=q contiguous subgraphs (default 2,
// Figure 6).
func NewIPNonContig(a IPNonContigArgs) (placers.Placer, error) {
	return newIP(false, a.IPArgs, a.Slots), nil
}

func newIP(contiguous bool, a IPArgs, slots int) *IP {
	return &IP{contiguous: contiguous, objective: a.Objective, warm: a.WarmStart == "dp", slots: slots,
		maxMemory: int64(a.MaxMemoryMiB) << 20, pipe: a.Pipeline,
		mipOpts: mip.Options{TimeLimit: a.TimeLimit, NodeLimit: a.NodeLimit, RelGap: a.Gap, Threads: a.Threads,
			Format: a.Format, Binary: a.Solver, Dir: a.Keep}}
}

// Name implements placers.Placer.
func (p *IP) Name() string {
	if p.contiguous {
		return "tarnawski-ip"
	}
	return "tarnawski-ip-noncontig"
}

// Place implements placers.Placer.
func (p *IP) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	plan, _, err := p.PlaceReport(ctx, req)
	return plan, err
}

// PlaceReport implements placers.Reporter. A solve stopped by the time
// limit returns its best incumbent and says so in the report's notes.
func (p *IP) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	if _, err := mip.LookPath(p.mipOpts.Binary); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	m, err := prepare(p.Name(), req)
	if err != nil {
		return nil, nil, err
	}
	dp, err := buildDPGraph(m)
	if err != nil {
		return nil, nil, err
	}
	// the warm start: the DP's split (DPL's when the graph has too many
	// ideals); it also decides feasibility
	var notes []string
	var warm []int
	if p.warm || p.contiguous {
		start := "the DP's split"
		sol, err := (&DP{maxMemory: p.maxMemory}).solve(ctx, m)
		if errors.Is(err, ErrTooManyIdeals) {
			// too many ideals for the exact DP within seconds: DPL's split
			start = "DPL's split (" + err.Error() + ")"
			sol, err = (&DP{maxMemory: p.maxMemory, linearize: true}).solve(ctx, m)
		}
		switch {
		case errors.Is(err, placers.ErrDoesNotFit) && !p.contiguous:
			// a non-contiguous split may still fit: solve without a start
		case err != nil:
			return nil, nil, err
		default:
			if p.warm {
				warm = sol.assign
				ml, _, _ := m.Evaluate(warm)
				notes = append(notes, fmt.Sprintf("warm start: %s, max-load %.6f ms", start, ml*1e3))
			}
		}
	}
	if p.objective == "latency" {
		return p.placeLatency(ctx, m, dp, warm, notes)
	}
	nodes := dp
	if !p.contiguous {
		nodes = unitGraph(m)
	}
	ip := buildThroughputIP(m, nodes, p.contiguous)
	assign, sol, err := solveIP(ctx, ip, nodes, len(m.Graph.Ops), m.K(), warm, p.mipOpts)
	switch {
	case err != nil && warm != nil && ctx.Err() == nil && !errors.Is(err, mip.ErrNoSolver):
		// The warm start is a feasible split, so any failure (CBC 2.10
		// can crash, or claim infeasibility, when its time limit strikes
		// during preprocessing) leaves it the best known answer.
		notes = append(notes, fmt.Sprintf("CBC failed (%s): the warm start is returned", firstLine(err.Error())))
		assign = warm
	case errors.Is(err, mip.ErrInfeasible):
		return nil, nil, infeasible(m, nodes, "split")
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", p.Name(), err)
	default:
		notes = append(notes, solveNotes(sol, "max-load", 1e3, "ms")...)
	}
	return finish(m, assign, p.pipe, "max-load", notes)
}

// solveNotes describes a CBC run: status, objective, bound, gap, time.
func solveNotes(sol *mip.Solution, what string, scale float64, unit string) []string {
	var notes []string
	if sol.TimedOut {
		notes = append(notes, fmt.Sprintf("CBC stopped at its time or node limit after %.1f s: best incumbent returned, not proven optimal", sol.Runtime.Seconds()))
	} else {
		notes = append(notes, fmt.Sprintf("CBC solved to the gap in %.1f s", sol.Runtime.Seconds()))
	}
	n := fmt.Sprintf("IP %s %.6f %s", what, sol.Objective*scale, unit)
	if !math.IsNaN(sol.Bound) {
		n += fmt.Sprintf(", bound %.6f %s, gap %.3g %%", sol.Bound*scale, unit, 100*sol.Gap)
	}
	if sol.WarmStarted {
		n += ", warm start accepted"
	}
	return append(notes, n)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
