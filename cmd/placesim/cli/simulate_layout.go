package cli

import (
	"context"
	"fmt"

	"placesim/study"
)

// simulateLayoutRun is simulate --layout: the regime "layout:LAYOUT"
// played on a decoder-only model by study.SimulateLayout, printed as
// train prints it.
func simulateLayoutRun(opts *SimulateOptions) error {
	// the graph regime's flags (pipeline_flags.go) and the graph-only
	// flags have no meaning for a layout
	for _, name := range []string{"pipeline", "microbatches", "stages", "recompute", "data-parallel", "allreduce-bucket", "allreduce-overlap", "allreduce-model", "estimates", "noise-sigma", "opt"} {
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
	registry, err := opts.Registry()
	if err != nil {
		return err
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel, err := withTimeout(ctx, opts.Timeout)
	if err != nil {
		return err
	}
	defer cancel()
	j, r, err := study.SimulateLayout(ctx, registry, study.LayoutRequest{Workload: opts.Run.workload, Cluster: opts.Run.cluster, Regime: regime, Planner: planner})
	if err = timeoutError(ctx, opts.Timeout, err); err != nil {
		return flagNamed(err, names)
	}
	return writeLayoutResult(opts.Out, opts.JSON, layoutPoint(opts.Run.workload, opts.Run.cluster, planner, regime), j, r)
}
