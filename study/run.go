package study

import (
	"context"
	"fmt"
	"strings"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// Spec says what one run is.
type Spec struct {
	Placer    string
	Options   placers.Options
	Seed      uint64
	Estimates devices.EstimateOptions
	// Trace asks the engine for a full trace (Gantt, memory timelines).
	Trace bool
	// Reproducible leaves wall-clock measurements (placement time) out of
	// the outcome, so that the same inputs give byte-identical output.
	Reproducible bool
	// Regime is how the plan is played, the same for every placer of a
	// comparison (the zero Regime: one step). A pipeline or data
	// parallelism a placer attached to its plan gives way to it; a plan
	// that replicates the model itself is not comparable in a regime
	// without data parallelism (Record.NotComparable).
	Regime
	// MaxMemory bounds the memory one simulation may take for itself
	// (engine.Options.MaxMemory; 0: the engine's default).
	MaxMemory int64
	// PlacerRegime, with a step Regime, plays the plan in the regime its
	// placer chose (its own pipeline or replicas), as simulate and place
	// do when no regime flag is given; a comparison never sets it.
	PlacerRegime bool
}

// Run places g on c with the placer named in s (from reg) and simulates
// the plan. Placer and simulation failures are recorded in the Record's
// Error; the returned error is for bad specs (unknown placer, bad options).
func Run(ctx context.Context, reg *placers.Registry, g *workloads.Graph, c *devices.Cluster, s Spec) (*Record, error) {
	if s.Layout != nil {
		return nil, fmt.Errorf("%w: workload %s is a dataflow graph; a regime with a layout (%s) plays a decoder-only model (zoo:NAME for NAME in %s) through SimulateLayout",
			ErrLayoutWorkload, g.Name, s.Regime, strings.Join(zoo.LLMNames(), ", "))
	}
	p, err := reg.New(s.Placer, s.Options)
	if err != nil {
		return nil, err
	}
	if err := s.checkSizes(g, c); err != nil {
		return nil, err
	}
	out := &Record{Point: Point{Placer: s.Placer, Workload: g.Name, Cluster: c.Name, Seed: s.Seed, Regime: s.Regime.String()}, Graph: g}
	label := out.Regime
	s.Regime = s.Regime.resolve(c)
	pc, back, err := placementCluster(c, s.DataParallel)
	if err != nil {
		return nil, err
	}
	est, err := NewEstimates(g, pc, s.Estimates)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	plan, rep, err := placers.PlaceWithReport(ctx, p, &placers.Request{Graph: g, Cluster: pc, Estimates: est, Seed: s.Seed})
	if !s.Reproducible {
		el := time.Since(start).Seconds()
		out.PlaceTime = &el
	}
	if rep != nil && rep.MaxLoad > 0 {
		s := rep.MaxLoad
		out.MaxLoad = &s
	}
	if rep != nil {
		out.Fallback, out.Relaxed = rep.Fallback, rep.Relaxed
	}
	own := s.PlacerRegime && s.Regime.IsStep() && s.Stages.Kind == StagesAuto
	out.Regime = label
	if err == nil && own {
		out.Regime = PlanRegime(plan).String()
	}
	if err != nil {
		out.Error = fmt.Sprintf("place: %v", err)
		return out, nil
	}
	if plan.Graph != nil && plan.Graph != g {
		// the placer rewrote the graph (splitting, fusion): the run is
		// reported, traced and charted against the graph that ran
		out.Graph = plan.Graph
		out.Rewritten = fmt.Sprintf("graph rewritten by the placer: %d ops (the workload has %d)", len(plan.Graph.Ops), len(g.Ops))
	}
	if !own {
		var nc string
		plan, out.RegimeNote, nc = playIn(plan, placers.NativeRegime(p), s.Regime)
		if nc != "" {
			out.NotComparable = nc
			return out, nil
		}
	}
	if plan, err = s.parallelize(g, c, plan, back); err != nil {
		return nil, err
	}
	plan = withCollective(g, plan)
	out.Plan = plan
	res, err := engine.Simulate(g, c, plan, engine.Options{Trace: s.Trace, MaxMemory: s.MaxMemory})
	if err != nil {
		out.Error = fmt.Sprintf("simulate: %v", err)
		return out, nil
	}
	if err := checkFinite(res.StepTime, res.Throughput); err != nil {
		out.Error = fmt.Sprintf("simulate: %v", err)
		return out, nil
	}
	if res.OOM == nil {
		if err := checkPlausible(res.StepTime, g.Name, c.Name); err != nil {
			out.Error = fmt.Sprintf("simulate: %v", err)
			return out, nil
		}
	}
	out.Result = res
	out.StepTime, out.Throughput = res.StepTime, res.Throughput
	out.OOM = res.OOM
	out.BytesMoved, out.Transfers = res.BytesMoved, res.TransferCount
	out.OrderRelaxed = res.OrderRelaxed != ""
	for _, d := range res.Devices {
		out.PeakMemory = append(out.PeakMemory, d.PeakMemory)
		out.Capacity = append(out.Capacity, d.Capacity)
	}
	return out, nil
}

// checkSizes refuses sizes that cannot be simulated before any work: more
// micro-batches than the workload's batch has samples, a negative memory
// limit. A graph of one sample (batch 1, msr-fiddle's per-sample costs)
// takes any number of micro-batches: each is a whole sample
// (engine.SamplesPerStep).
func (s *Spec) checkSizes(g *workloads.Graph, c *devices.Cluster) error {
	if p := s.Pipeline; p != nil && g.Batch > 1 && p.MicroBatches > g.Batch {
		return fmt.Errorf("%d micro-batches exceed the batch of %d samples of workload %q (valid range: micro-batches in [1, %d])",
			p.MicroBatches, g.Batch, g.Name, g.Batch)
	}
	if s.MaxMemory < 0 {
		return fmt.Errorf("max memory %d (valid range: >= 0 bytes, 0 for the default)", s.MaxMemory)
	}
	return s.checkPairTables(c)
}

// checkPairTables counts the cluster's per-device-pair tables (routes,
// transfer factors: they grow with the square of its devices) against the
// memory limit before the estimates make them (issue 31).
func (s *Spec) checkPairTables(c *devices.Cluster) error {
	limit := s.MaxMemory
	if limit == 0 {
		limit = engine.DefaultMaxMemory
	}
	return devices.CheckPairTables(c, limit)
}

// Check validates s against g and c as Run would before placing, so that a
// comparison refuses a bad spec up front instead of recording the same
// error for every placer: sizes, the data-parallel split of the cluster,
// the estimate options (without building the estimates: each run builds
// its own once) and a stage file.
func (s *Spec) Check(g *workloads.Graph, c *devices.Cluster) error {
	if err := s.checkSizes(g, c); err != nil {
		return err
	}
	if _, _, err := placementCluster(c, s.DataParallel); err != nil {
		return err
	}
	if err := CheckEstimates(g, s.Estimates); err != nil {
		return err
	}
	if s.Pipeline != nil && s.Stages.Kind == StagesFile {
		if _, _, err := LoadStages(s.Stages.File, g, c); err != nil {
			return err
		}
	}
	return nil
}
