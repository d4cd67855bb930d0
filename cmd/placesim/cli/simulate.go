package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"placesim/placers"
	"placesim/reports"
	"placesim/runresult"
	"placesim/study"
)

// SimulateOptions are simulate's parsed flags and surroundings.
type SimulateOptions struct {
	*Factory
	Ctx      context.Context
	Run      runFlags
	Pipeline pipelineFlags
	Placer   string
	// Layout is --layout: one iteration of a decoder-only model under a
	// large-model layout (the regime "layout:LAYOUT"), played by
	// engine/llm; --placer, when given, plans its pipeline stages.
	Layout string
	// OutDir is --out: with --layout, the folder results.json and
	// results.csv are written into (as train -o).
	OutDir string
	// Quiet is -q: no "wrote" line on standard error.
	Quiet bool
	JSON  bool
	// Format is --format (and its --json shorthand).
	Format formatFlag
	// Timeout bounds the placement and its simulation (--timeout).
	Timeout time.Duration
	// Changed reports whether a flag was given on the command line.
	Changed func(name string) bool
}

// NewCmdSimulate builds simulate; runF, when not nil, replaces simulateRun
// (tests).
func NewCmdSimulate(f *Factory, runF func(*SimulateOptions) error) *cobra.Command {
	opts := &SimulateOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "simulate --workload W --cluster C --placer P",
		Short: "Place a workload with one placer and simulate one step",
		Long: `Place the workload on the cluster with the placer, simulate one step and
print step time, throughput, per-device busy time and peak memory, per-link
traffic and any out-of-memory.

--layout LAYOUT plays one training iteration of a decoder-only model
(-w zoo:NAME, NAME one of placesim models' large transformers) under a
tensor/pipeline/context/expert/data-parallel layout, as placesim train
does (the regime "layout:LAYOUT"); --placer, when given, splits the layers
over the pipeline stages instead of Megatron's even split. A layout with a
graph workload, or beside --pipeline or --data-parallel, is an error.
With --layout, -o DIR writes results.json and results.csv as train -o does
(placesim check --baseline DIR/results.json replays them).

Exit codes: 0 ok, 1 error, 2 the step ran out of memory, 130 interrupted.`,
		Example: `  placesim simulate -w zoo:mlp -c 4xV100-pcie --placer round-robin
  placesim simulate -w zoo:mlp -c 4xV100-pcie --placer random --seed 3 --json
  placesim simulate -w 'zoo:mlp?training=true' -c 4xV100-pcie --pipeline 1f1b --microbatches 8 --stages even
  placesim simulate -w 'zoo:mlp?training=true' -c 8xV100-nvlink --data-parallel 4 --allreduce-overlap
  placesim simulate -w zoo:llama3.1-70b -c dgx-h100 --layout tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,mbs=1,gbs=128
  placesim simulate -w zoo:llama3.1-70b -c dgx-h100 --layout tp=8,pp=8,dp=1,gbs=64 --placer tarnawski-dp
  placesim simulate -w zoo:llama3.1-8b -c dgx-h100 --layout tp=2,pp=2,dp=2,gbs=64 -o out`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx, opts.Changed = cmd.Context(), cmd.Flags().Changed
			if err := opts.Format.apply(&opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return simulateRun(opts)
		},
	}
	registerTimeout(cmd, &opts.Timeout)
	opts.Run.register(cmd, "4xV100-pcie")
	opts.Pipeline.register(cmd)
	cmd.Flags().StringVarP(&opts.Placer, "placer", "p", "single", "placer name (placesim list placers)")
	cmd.Flags().StringVar(&opts.Layout, "layout", "", "large-model layout of a decoder-only model, e.g. tp=4,pp=4,dp=2,sp,zero=1,mbs=1,gbs=64 (as placesim train)")
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "", "with --layout: output directory: results.json and results.csv with the iteration's record (placesim check --baseline DIR/results.json)")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "no \"wrote\" line on standard error")
	opts.Format.register(cmd, " (json: one object)", formatTable, formatJSON)
	return cmd
}

func simulateRun(opts *SimulateOptions) error {
	if opts.Layout != "" {
		return simulateLayoutRun(opts)
	}
	if opts.OutDir != "" {
		return fmt.Errorf("--out %s: simulate writes a results folder only with --layout (a graph workload's results: placesim run or compare -o)", opts.OutDir)
	}
	in, spec, err := opts.Run.request()
	if err != nil {
		return err
	}
	spec.Placer = opts.Placer
	if opts.Changed != nil && !opts.Changed("cluster") {
		// without -c a workload file that describes its machine (an
		// msr-fiddle file) is simulated on it, as the README says
		in.Cluster, in.DefaultCluster = "", in.Cluster
	}
	if spec.Regime, err = opts.Pipeline.single(opts.Changed); err != nil {
		return err
	}
	// without regime flags the plan plays as its placer made it
	spec.PlacerRegime = true
	o, err := runWithin(opts.Ctx, opts.Factory, opts.Timeout, func(ctx context.Context, reg *placers.Registry) (*runresult.Record, error) {
		return study.Simulate(ctx, reg, study.SimulateRequest{Inputs: in, Spec: spec})
	})
	if err != nil {
		return flagNamed(err, regimeFlagNames(nil))
	}
	// a lenient import's warnings (unsupported ONNX ops, unknown
	// msr-fiddle fields) on every command, not only stats (issue 31)
	if o.Graph != nil {
		printWarnings(opts.ErrOut, "", o.Graph.Warnings)
	}
	if opts.JSON {
		if err := reports.OutcomeJSON(opts.Out, o); err != nil {
			return err
		}
	} else {
		reports.WriteOutcome(opts.Out, o, study.MaxLoadGap(o))
	}
	switch {
	case o.NotComparable != "":
		return &exitError{ExitError, fmt.Errorf("%s: %s", o.Placer, o.NotComparable)}
	case o.Error != "":
		return &exitError{ExitError, fmt.Errorf("%s", o.Error)}
	case o.OOM != nil:
		return &exitError{ExitOOM, o.OOM.Err()}
	}
	return nil
}
