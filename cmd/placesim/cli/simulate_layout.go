package cli

import (
	"context"
	"fmt"
	"time"

	"placesim/engine/llm"
	"placesim/placers"
	"placesim/study"
)

// simulateLayoutRun is simulate --layout: the regime "layout:LAYOUT"
// played on a decoder-only model by study.SimulateLayout, printed as
// train prints it.
func simulateLayoutRun(opts *SimulateOptions) error {
	// the graph regime's flags (pipeline_flags.go) and the graph-only
	// flags have no meaning for a layout
	for _, name := range append(append([]string{}, regimeFlags...), "estimates", "noise-sigma", "opt") {
		if opts.Changed != nil && opts.Changed(name) {
			return fmt.Errorf("--%s does not apply with --layout (the layout carries its own pipeline, data parallelism and recomputation: pp, vp, dp, mbs, gbs, recompute; the model's costs are exact): drop it", name)
		}
	}
	names := layoutFlagNames("--placer")
	regime, err := study.LayoutRegime(opts.Layout)
	if err != nil {
		return flagNamed(err, names)
	}
	planner := study.PlannerEven
	if opts.Changed != nil && opts.Changed("placer") {
		planner = opts.Placer
	}
	if opts.OutDir != "" {
		// refused before the iteration is simulated
		release, err := claimLayoutOut(opts.OutDir, "simulate")
		if err != nil {
			return err
		}
		defer release()
	}
	j, r, err := simulateLayout(opts.Ctx, opts.Factory, opts.Timeout, study.LayoutRequest{Workload: opts.Run.workload, Cluster: opts.Run.cluster, Regime: regime, Planner: planner})
	if err != nil {
		return flagNamed(err, names)
	}
	p := layoutPoint(opts.Run.workload, opts.Run.cluster, planner, regime)
	if opts.OutDir != "" {
		res := layoutResults("simulate", "simulate-layout", opts.Run.workload, opts.Run.cluster, opts.Layout, []string{planner}, []study.Record{layoutRecord(p, j, r)})
		if err := writeLayoutResults(opts.ErrOut, opts.Quiet, opts.OutDir, res, nil); err != nil {
			return err
		}
	}
	return writeLayoutResult(opts.Out, opts.JSON, p, j, r)
}

// simulateLayout is study.SimulateLayout of req within timeout (0: none;
// runWithin), for simulate --layout and train.
func simulateLayout(ctx context.Context, f *Factory, timeout time.Duration, req study.LayoutRequest) (*llm.Job, *llm.Result, error) {
	type played struct {
		j *llm.Job
		r *llm.Result
	}
	out, err := runWithin(ctx, f, timeout, func(ctx context.Context, reg *placers.Registry) (played, error) {
		j, r, err := study.SimulateLayout(ctx, reg, req)
		return played{j, r}, err
	})
	return out.j, out.r, err
}
