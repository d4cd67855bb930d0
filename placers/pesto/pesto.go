package pesto

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/mip"
)

var (
	_ placers.Placer   = (*Pesto)(nil)
	_ placers.Reporter = (*Pesto)(nil)
)

// Schedule modes: how the plan carries the ILP's per-device order.
const (
	// ScheduleOrder fixes each device's sequence of ops (Plan.Order), so
	// the engine plays Pesto's schedule: of the ILP's vertex order with
	// each vertex's ops back to back (ScheduleBlock) and the ILP's order
	// used as priorities at op granularity (list scheduling with the
	// estimates), the one whose replay with the estimates is faster.
	ScheduleOrder = "order"
	// ScheduleBlock fixes each device's sequence as the ILP's vertex order
	// with a merged vertex's ops back to back in a topological order
	// (section 3.3: "individual vertices of a merged-vertex are scheduled
	// sequentially on the same device").
	ScheduleBlock = "block"
	// SchedulePriority ranks the ops by the ILP's order (Plan.Priority): a
	// device runs its highest-ranked ready op.
	SchedulePriority = "priority"
	// ScheduleNone keeps the placement only (the engine's default
	// first-ready order; the paper's fallback for very coarse graphs).
	ScheduleNone = "none"
)

// Starts: the candidate MIP starts.
const (
	StartMETF = "metf"
	StartBest = "best"
)

// Config is Pesto's configuration.
type Config struct {
	// Coarsen: Target is the vertex count (option vertices=, default 200);
	// GroupCap the share a placement group may grow to (groupcap=, default
	// 1/(2k) for k accelerators).
	Coarsen CoarsenOptions
	// ILP: timelimit=, gap=, threads=, memory=, slack=, congestion=, dir=.
	ILP ILPOptions
	// Start adds candidate MIP starts: StartMETF (default: m-ETF's
	// schedule only) or StartBest (also the Expert placement, mapped to the
	// placement groups; the faster in the ILP's model is given to CBC)
	// (start=).
	Start string
	// WarmStart gives CBC m-ETF's schedule as its MIP start (warmstart=,
	// default true).
	WarmStart bool
	// Schedule is ScheduleOrder (default), SchedulePriority or ScheduleNone
	// (schedule=).
	Schedule string
	// Search is the number of simulations the placement-group search may
	// spend on the fastest of the ILP's plan and the starts (search=,
	// default DefaultSearch; 0: none).
	Search int
	// LayerSearch is the number of simulations the layer search
	// (layerSearch: whole layers moved and swapped between the GPUs) may
	// spend; its plan is one more candidate of the guard (layersearch=,
	// default DefaultLayerSearch; 0: none).
	LayerSearch int
	// RangeSearch is the number of simulations the range search
	// (rangeSearch: runs of a layer's ops, such as time steps, moved between the GPUs,
	// from the layer search's plans) may spend; its plan is one more
	// candidate of the guard (rangesearch=, default DefaultRangeSearch; 0:
	// none; it needs the layer search).
	RangeSearch int
	// OrderSearch is the number of simulations the order search
	// (orderSearch: producers of cross-device transfers moved in their
	// device's order, section 3.2.2) may spend on the fastest plan found
	// (ordersearch=, default DefaultOrderSearch; 0: none).
	OrderSearch int
}

// Defaults of Config.
const (
	DefaultVertices = 200
	// DefaultTimeLimit is CBC's budget per Pesto placement (the paper
	// solves its ILPs in "a few minutes" to an hour, section 5.3, on
	// coarsened graphs of ~200 vertices): a minute here, so that a
	// comparison of every placer on one model stays within two minutes on
	// two cores (issue 28); CBC may overrun it by solveGrace, and the
	// result is never worse than the warm start in Pesto's own model.
	DefaultTimeLimit = time.Minute
	DefaultSlack     = 0.2
	DefaultVertexCap = 2
)

// Pesto is the Pesto placer: coarsening (section 3.3), then the ILP
// (section 3.2.2) on CBC with m-ETF's schedule as warm start; the plan
// carries the placement and the ILP's per-device order.
type Pesto struct{ cfg Config }

// New makes a Pesto placer from its options (Args).
func New(a Args) (placers.Placer, error) { return &Pesto{cfg: a.config()}, nil }

// NewWithConfig makes a Pesto placer from a configuration.
func NewWithConfig(cfg Config) *Pesto { return &Pesto{cfg: cfg} }

// Name implements placers.Placer.
func (*Pesto) Name() string { return "pesto" }

// MemoryAware implements placers.MemoryAware: false, since Pesto relaxes
// its memory constraint (to the capacities, then to none) when m-ETF finds
// no start within it; the report's Relaxed says when it did.
func (*Pesto) MemoryAware() bool { return false }

// Place implements placers.Placer.
func (p *Pesto) Place(ctx context.Context, req *placers.Request) (*engine.Plan, error) {
	r, err := p.Solve(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.Plan, nil
}

// PlaceReport implements placers.Reporter.
func (p *Pesto) PlaceReport(ctx context.Context, req *placers.Request) (*engine.Plan, *placers.Report, error) {
	r, err := p.Solve(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return r.Plan, r.Report(), nil
}

// Result is what Solve found.
type Result struct {
	Plan   *engine.Plan
	Coarse *Coarse
	// Makespan is the ILP's objective (seconds): the step time in its
	// model. Evaluated is the step time of the plan's placement and order
	// replayed in the ILP's model as early as possible (at most Makespan).
	Makespan, Evaluated float64
	// WarmStart is the m-ETF start's makespan in the ILP's model (NaN
	// without one).
	WarmStart float64
	// ExpertStart is the Expert start's makespan in the ILP's model (NaN
	// unless start=best and it keeps the memory bounds); StartFrom names
	// the start given to CBC.
	ExpertStart float64
	StartFrom   string
	// Memory is the memory form the ILP used: the configured one
	// (MemoryAsked), or MemoryLimit or MemoryNone when m-ETF found no
	// placement within it.
	Memory, MemoryAsked MemoryMode
	// Solver is CBC's solution (nil when it found no incumbent and the
	// warm start was used).
	Solver *mip.Solution
	// TimedOut: CBC stopped at its time limit (or the deadline) before it
	// proved optimality; the plan is its best incumbent.
	TimedOut bool
	// Simulated is the ILP's plan's step time in the engine with the
	// estimates; StartTimes the starts' ("m-ETF 0.123s"); Kept names the
	// start returned instead because it simulates faster (KeptTime), ""
	// when the ILP's plan is returned (see guard).
	Simulated  float64
	StartTimes []string
	Kept       string
	KeptTime   float64
	// SearchMoves is the number of placement-group moves the search kept
	// from the start it returns (SearchTime: the plan's step with the
	// estimates after them); SearchEvals the simulations it ran from
	// SearchStarts candidates.
	SearchMoves, SearchEvals, SearchStarts int
	SearchTime                             float64
	// LayerUnits is the number of layers the layer search moved,
	// LayerEvals its simulations and LayerTime its plan's step with the
	// estimates (0 when it did not run).
	LayerUnits, LayerEvals int
	LayerTime              float64
	// RangeStarts is the number of layer plans the range search started
	// from, RangeEvals its simulations, RangeMoves the moves it kept and
	// RangeTime its plan's step with the estimates (0 when it found none
	// faster than its starts).
	RangeStarts, RangeEvals, RangeMoves int
	RangeTime                           float64
	// OrderMoves is the number of order moves the order search kept,
	// OrderEvals its simulations and OrderTime the plan's step with the
	// estimates after them (0 when none was kept).
	OrderMoves, OrderEvals int
	OrderTime              float64
	// UsedWarmStart: CBC returned no better incumbent and the plan is the
	// warm start's; SolverError says why when CBC failed; WorseThanStart
	// when CBC ended on a schedule worse than its start.
	UsedWarmStart  bool
	SolverError    string
	WorseThanStart bool
	// Rows, Cols and Binaries size the ILP.
	Rows, Cols, Binaries int
	// BlockTime and ListTime are the replays with the estimates, at op
	// granularity, of the ILP's order with vertices' ops back to back and
	// of the ILP's order as priorities (schedule=order keeps the faster).
	BlockTime, ListTime float64
	// CoarsenTime, BuildTime and SolveTime split the placement time.
	CoarsenTime, BuildTime, SolveTime time.Duration
}

// Solve places req's graph: it coarsens the graph, builds and solves the
// ILP and maps its solution back to the graph's ops.
func (p *Pesto) Solve(ctx context.Context, req *placers.Request) (*Result, error) {
	if req == nil || req.Graph == nil || req.Cluster == nil || req.Estimates == nil {
		return nil, fmt.Errorf("pesto: the request needs a graph, a cluster and estimates")
	}
	if req.Estimates.Graph != nil && len(req.Estimates.Graph.Ops) != len(req.Graph.Ops) {
		return nil, fmt.Errorf("pesto: estimates are for %d ops, graph %q has %d", len(req.Estimates.Graph.Ops), req.Graph.Name, len(req.Graph.Ops))
	}
	cfg := p.cfg
	acc, _ := placers.Targets(req.Cluster)
	if cfg.Coarsen.GroupCap == 0 && len(acc) > 1 {
		cfg.Coarsen.GroupCap = 1 / (2 * float64(len(acc)))
	}
	if cfg.Coarsen.MemCap == 0 && len(acc) > 1 {
		cfg.Coarsen.MemCap = 1 / float64(len(acc))
	}
	res := &Result{WarmStart: math.NaN(), ExpertStart: math.NaN(), StartFrom: "m-etf"}
	t0 := time.Now()
	c, err := Coarsen(ctx, req.Graph, req.Estimates, cfg.Coarsen)
	if err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	res.Coarse = c
	pr, err := newProblem(c, req.Estimates)
	if err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	res.CoarsenTime = time.Since(t0)
	t1 := time.Now()
	upper := pr.serialBound()
	var warm *timing
	var wdev []int
	var worders [][]int
	// memory: the configured form; when m-ETF cannot keep it (the balance
	// is too tight for the groups), the capacities; failing those too, none
	res.MemoryAsked = cfg.ILP.Memory
	modes := []MemoryMode{cfg.ILP.Memory}
	switch cfg.ILP.Memory {
	case MemoryBalance:
		modes = append(modes, MemoryLimit, MemoryNone)
	case MemoryLimit:
		modes = append(modes, MemoryNone)
	}
	for _, m := range modes {
		cfg.ILP.Memory, cfg.ILP.bounds = m, pr.memBounds(m, cfg.ILP.Slack)
		if !cfg.WarmStart {
			break
		}
		wdev, worders, err = pr.warmStart(ctx, cfg.ILP.bounds)
		if err == nil || !errors.Is(err, placers.ErrDoesNotFit) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	res.Memory = cfg.ILP.Memory
	if wdev != nil {
		if pr.symmetric() {
			wdev, worders = pr.relabel(wdev, worders)
		}
		if warm, err = pr.evaluate(wdev, worders); err != nil {
			return nil, fmt.Errorf("pesto: m-ETF warm start: %w", err)
		}
		res.WarmStart = warm.makespan
		if cfg.Start == StartBest {
			edev, eorders, eerr := pr.expertStart(ctx, req, cfg.ILP.bounds)
			if eerr != nil {
				return nil, fmt.Errorf("pesto: %w", eerr)
			}
			if edev != nil {
				if pr.symmetric() {
					edev, eorders = pr.relabel(edev, eorders)
				}
				ew, eerr := pr.evaluate(edev, eorders)
				if eerr != nil {
					return nil, fmt.Errorf("pesto: Expert start: %w", eerr)
				}
				res.ExpertStart = ew.makespan
				if ew.makespan < warm.makespan {
					warm, wdev, worders = ew, edev, eorders
					res.StartFrom = "expert"
				}
			}
		}
		// every solution at least as good as the start has its times within
		// the start's makespan, which makes a tight big-M
		upper = warm.makespan*(1+1e-6) + 1e-9
	}
	q, err := buildILP(pr, cfg.ILP, upper)
	if err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	res.Rows, res.Cols, res.Binaries = len(q.m.Constraints), len(q.m.Vars), q.binaries
	var start []float64
	if warm != nil {
		start = q.start(warm)
	}
	res.BuildTime = time.Since(t1)
	t2 := time.Now()
	sol, err := q.solve(ctx, start)
	res.SolveTime = time.Since(t2)
	var dev []int
	var orders [][]int
	switch {
	case err == nil:
		res.Solver, res.TimedOut = sol.sol, sol.sol.TimedOut
		res.Makespan = sol.value
		dev = sol.dev
		orders = pr.orderByStart(dev, sol.start, sol.finish)
	case mip.IsMissing(err) || ctx.Err() != nil && !errors.Is(err, mip.ErrNoIncumbent) && warm == nil:
		return nil, fmt.Errorf("pesto: %w", err)
	case warm != nil:
		// no incumbent before the limit, or CBC failed (it can crash or
		// call a model infeasible when its limit cuts preprocessing short):
		// the warm start is a solution of the model
		res.UsedWarmStart, res.TimedOut = true, errors.Is(err, mip.ErrNoIncumbent)
		res.SolverError, _, _ = strings.Cut(err.Error(), "\n")
		res.Makespan = warm.makespan
		dev, orders = wdev, worders
	default:
		return nil, fmt.Errorf("pesto: %w", err)
	}
	ev, err := pr.evaluate(dev, orders)
	if err != nil {
		return nil, fmt.Errorf("pesto: the ILP's schedule: %w", err)
	}
	res.Evaluated = ev.makespan
	if warm != nil && !res.UsedWarmStart && warm.makespan < ev.makespan*(1-1e-9) {
		// CBC ended on a worse schedule than its start (it drops a start
		// it judges infeasible within its tolerances): keep the start
		res.UsedWarmStart, res.WorseThanStart = true, true
		dev, orders, res.Evaluated, res.Makespan = wdev, worders, warm.makespan, warm.makespan
	}
	if res.Plan, err = p.plan(req, pr, dev, orders, cfg.Schedule, res); err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	if err := p.guard(ctx, req, pr, res, wdev, worders, cfg.Schedule); err != nil {
		return nil, fmt.Errorf("pesto: %w", err)
	}
	return res, nil
}

// plan maps a vertex placement and per-device vertex orders to the fine
// graph: every member of a vertex goes to its device; the order follows
// the schedule mode.
func (p *Pesto) plan(req *placers.Request, pr *problem, dev []int, orders [][]int, mode string, res *Result) (*engine.Plan, error) {
	c := pr.c
	n := len(c.Fine.Ops)
	plan := &engine.Plan{Device: make([]int, n)}
	for op := range plan.Device {
		plan.Device[op] = dev[c.Of[op]]
	}
	block := make([][]int, pr.nDev)
	prio := make([]float64, n)
	for d, vs := range orders {
		block[d] = []int{}
		for _, v := range vs {
			for _, op := range c.Members[v] {
				// a device compares only its own ops' priorities
				prio[op] = -float64(len(block[d]))
				block[d] = append(block[d], op)
			}
		}
	}
	switch mode {
	case ScheduleBlock:
		plan.Order = block
	case SchedulePriority:
		plan.Priority = prio
	case ScheduleOrder:
		f := newFineSim(req.Graph, req.Estimates)
		tb, _, err := f.run(plan.Device, block, nil)
		if err != nil {
			return nil, fmt.Errorf("the ILP's order: %w", err)
		}
		tp, ran, err := f.run(plan.Device, nil, prio)
		if err != nil {
			return nil, err
		}
		res.BlockTime, res.ListTime = tb, tp
		plan.Order = block
		if tp < tb {
			plan.Order = ran
		}
	}
	return plan, nil
}

// Fallback says which start's schedule the plan is and why CBC's own
// solution is not used ("m-ETF warm start; CBC: <reason>"), or "" when the
// plan is CBC's.
func (r *Result) Fallback() string {
	if !r.UsedWarmStart {
		return ""
	}
	name := "m-ETF"
	if r.StartFrom != "m-etf" {
		name = r.StartFrom
	}
	why := "no incumbent better than the start"
	switch {
	case r.SolverError != "":
		why = r.SolverError
	case r.WorseThanStart:
		why = "its solution is worse than the start"
	case r.TimedOut:
		why = "no incumbent before its time limit"
	}
	return fmt.Sprintf("%s warm start; CBC: %s", name, why)
}

// Report describes the solve.
func (r *Result) Report() *placers.Report {
	rep := &placers.Report{Objective: "makespan", Value: r.Makespan}
	c := r.Coarse
	rep.Notes = append(rep.Notes,
		fmt.Sprintf("coarsened %d ops to %d vertices in %d batches, %d placement groups", len(c.Fine.Ops), c.Len(), c.Batches, c.NumGroups),
		fmt.Sprintf("ILP: %d rows, %d columns, %d binaries", r.Rows, r.Cols, r.Binaries),
		fmt.Sprintf("time: coarsen %.2fs, build %.2fs, solve %.2fs", r.CoarsenTime.Seconds(), r.BuildTime.Seconds(), r.SolveTime.Seconds()))
	if !math.IsNaN(r.WarmStart) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("m-ETF warm start: makespan %.6gs in the ILP's model", r.WarmStart))
	}
	if !math.IsNaN(r.ExpertStart) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Expert start: makespan %.6gs in the ILP's model; CBC started from %s", r.ExpertStart, r.StartFrom))
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("memory constraints: %s", r.Memory))
	if s := r.Solver; s != nil {
		status := string(s.Status)
		if r.TimedOut {
			status = "time limit hit: best incumbent used"
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("CBC: %s, makespan %.6gs, bound %.6gs, gap %.2f%%, MIP start accepted: %v",
			status, r.Makespan, s.Bound/scale, 100*s.Gap, s.WarmStarted))
	}
	if r.UsedWarmStart {
		why := "CBC found no better incumbent before its limit"
		if r.SolverError != "" {
			why = "CBC gave no solution (" + r.SolverError + ")"
		}
		rep.Notes = append(rep.Notes, why+": the "+r.StartFrom+" start's schedule is used")
		rep.Fallback = r.Fallback()
	}
	if r.Simulated > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("simulated with the estimates: the ILP's plan %.6gs; starts: %s", r.Simulated, strings.Join(r.StartTimes, ", ")))
	}
	if r.Kept != "" {
		rep.Fallback = fmt.Sprintf("%s: it simulates faster with the estimates than the ILP's plan (%.6gs against %.6gs)", keptName(r.Kept), r.KeptTime, r.Simulated)
	}
	if r.LayerEvals > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("layer search: %d layers, %d simulations, %.6gs with the estimates", r.LayerUnits, r.LayerEvals, r.LayerTime))
	}
	if r.RangeEvals > 0 {
		if r.RangeMoves == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("range search: no run of the longest (%d/%d of a layer's ops) moved gives a faster plan than its %d layer plans (%d simulations)", rangeLengths[len(rangeLengths)-1], rangeSlices, r.RangeStarts, r.RangeEvals))
		} else {
			rep.Notes = append(rep.Notes, fmt.Sprintf("range search: %d runs of layers' ops moved, %.6gs with the estimates (%d simulations from %d layer plans)", r.RangeMoves, r.RangeTime, r.RangeEvals, r.RangeStarts))
		}
	}
	if r.SearchEvals > 0 {
		from := "the ILP's plan"
		if r.Kept != "" {
			from = "the " + keptName(r.Kept)
		}
		if r.SearchMoves == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("placement-group search: no move of %d candidates gives a faster plan (%d simulations)", r.SearchStarts, r.SearchEvals))
		} else {
			rep.Notes = append(rep.Notes, fmt.Sprintf("placement-group search: %d moves of %s, %.6gs with the estimates (%d simulations from %d candidates)", r.SearchMoves, from, r.SearchTime, r.SearchEvals, r.SearchStarts))
			switch {
			case r.Kept != "":
				rep.Fallback = fmt.Sprintf("%s improved by %d placement-group moves: it simulates faster with the estimates than the ILP's plan (%.6gs against %.6gs)", keptName(r.Kept), r.SearchMoves, r.SearchTime, r.Simulated)
			case rep.Fallback != "":
				rep.Fallback += fmt.Sprintf("; improved by %d placement-group moves (%.6gs against %.6gs with the estimates)", r.SearchMoves, r.SearchTime, r.Simulated)
			}
		}
	}
	if r.OrderEvals > 0 {
		if r.OrderMoves == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("order search: no move of a transfer's producer in its device's order gives a faster plan (%d simulations)", r.OrderEvals))
		} else {
			moves := fmt.Sprintf("%d moves", r.OrderMoves)
			if r.OrderMoves == 1 {
				moves = "1 move"
			}
			rep.Notes = append(rep.Notes, fmt.Sprintf("order search: %s of transfers' producers in their devices' order, %.6gs with the estimates (%d simulations)", moves, r.OrderTime, r.OrderEvals))
			if rep.Fallback != "" {
				rep.Fallback += fmt.Sprintf("; its order improved by %s (%.6gs with the estimates)", moves, r.OrderTime)
			}
		}
	}
	if r.Memory != r.MemoryAsked {
		rep.Relaxed = append(rep.Relaxed, fmt.Sprintf("memory: %s relaxed to %s (m-ETF found no placement within %s)", r.MemoryAsked, r.Memory, r.MemoryAsked))
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("schedule replayed in the ILP's model: %.6gs", r.Evaluated))
	if r.BlockTime > 0 {
		pick := "vertices back to back"
		if r.ListTime < r.BlockTime {
			pick = "order as priorities"
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("op-level replay with the estimates: vertices back to back %.6gs, order as priorities %.6gs: plan order from %s", r.BlockTime, r.ListTime, pick))
	}
	return rep
}

// keptName names a plan the guard kept instead of the ILP's: "<start>
// start", or the layer search's plan.
func keptName(kept string) string {
	switch kept {
	case keptLayerSearch:
		return "layer search's plan (whole layers on the GPUs)"
	case keptRangeSearch:
		return "range search's plan (layers split into runs of their ops, such as time steps, on the GPUs)"
	}
	return kept + " start"
}

// String summarises the result on one line.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d vertices, ILP %.4gs (evaluated %.4gs, warm start %.4gs)", r.Coarse.Len(), r.Makespan, r.Evaluated, r.WarmStart)
	if r.TimedOut {
		b.WriteString(", time limit hit")
	}
	return b.String()
}
