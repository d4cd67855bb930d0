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

// PlaceOptions are place's parsed flags and surroundings.
type PlaceOptions struct {
	*Factory
	Ctx    context.Context
	Run    runFlags
	Placer string
	JSON   bool
	// Format is --format (and its --json shorthand).
	Format  formatFlag
	Explain bool
	// Timeout bounds the placement and its simulation (--timeout).
	Timeout time.Duration
}

// NewCmdPlace builds place; runF, when not nil, replaces placeRun.
func NewCmdPlace(f *Factory, runF func(*PlaceOptions) error) *cobra.Command {
	opts := &PlaceOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "place --placer P --workload W [--cluster C]",
		Short: "Place a workload and print the split, its objective and the placement time",
		Long: `Place the workload on the cluster with one placer and print the split (the
ops of each device), the placer's objective (the max-load, in ms per sample,
for the max-load placers of Tarnawski et al.), the placement time, and the
step time of simulating the plan once (with the period per sample when the
plan is a pipeline). --explain adds each device's load and names the
bottleneck device; --json prints one object with maxLoad at the top level.

Without --cluster, a workload file that describes its machine (an
msr-fiddle file: k accelerators, l CPUs, accelerator memory) is placed on
that machine.`,
		Example: `  placesim place --placer tarnawski-dp --workload ../shared/workloads/msr-fiddle/LayerGraphs/bert24_training.json
  placesim place -p tarnawski-dp -w FILE.json --json
  placesim place -p tarnawski-ip --opt time-limit=30 -w FILE.json --explain
  placesim place -p local-search -w 'zoo:bert?layers=3&training=true' -c 6xacc+1cpu`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if err := opts.Format.apply(&opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return placeRun(opts)
		},
	}
	registerTimeout(cmd, &opts.Timeout)
	opts.Run.register(cmd, "")
	cmd.Flags().StringVarP(&opts.Placer, "placer", "p", "tarnawski-dp", "placer name (placesim list placers)")
	opts.Format.register(cmd, " (json: one object, maxLoad in seconds per sample at the top level)", formatTable, formatJSON)
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "print each device's load, compute and communication, and the bottleneck device")
	return cmd
}

func placeRun(opts *PlaceOptions) error {
	in, spec, err := opts.Run.request()
	if err != nil {
		return err
	}
	spec.Placer = opts.Placer
	out, err := runWithin(opts.Ctx, opts.Factory, opts.Timeout, func(ctx context.Context, reg *placers.Registry) (*runresult.Placement, error) {
		return study.Place(ctx, reg, study.PlaceRequest{Inputs: in, Spec: spec})
	})
	if err != nil {
		return err
	}
	printWarnings(opts.ErrOut, "", out.Warnings)
	if opts.JSON {
		if err := writeJSON(opts.Out, out); err != nil {
			return err
		}
	} else {
		if err := reports.WritePlacement(opts.Out, out, opts.Explain); err != nil {
			return err
		}
	}
	if out.Error != "" {
		return &exitError{ExitError, fmt.Errorf("%s", out.Error)}
	}
	return nil
}
