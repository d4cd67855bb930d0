package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"placesim/internal/units"
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
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	ctx, cancel, err := withTimeout(opts.Ctx, opts.Timeout)
	if err != nil {
		return err
	}
	defer cancel()
	out, err := study.Place(ctx, reg, study.PlaceRequest{Inputs: in, Spec: spec})
	err = timeoutError(ctx, opts.Timeout, err)
	if err != nil {
		return err
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(opts.ErrOut, "warning: %s\n", w)
	}
	if opts.JSON {
		if err := writeJSON(opts.Out, out); err != nil {
			return err
		}
	} else {
		printPlacement(opts.Out, out, opts.Explain)
	}
	if out.Error != "" {
		return &exitError{ExitError, fmt.Errorf("%s", out.Error)}
	}
	return nil
}

// maxOpsShown bounds the op names printed per device in text output.
const maxOpsShown = 8

func printPlacement(w io.Writer, o *study.Placement, explain bool) {
	fmt.Fprintf(w, "workload %s on %s, placer %s (seed %d)\n", o.Workload, o.Cluster, o.Placer, o.Seed)
	if o.PlaceTime != nil {
		fmt.Fprintf(w, "placement time   %s\n", units.Seconds(*o.PlaceTime))
	}
	if o.MaxLoad != nil {
		fmt.Fprintf(w, "max-load         %.6f ms per sample (bottleneck %s)\n", *o.MaxLoad*1e3, o.Bottleneck)
	}
	if o.Ideals > 0 {
		fmt.Fprintf(w, "ideals           %d (DP table %.1f MiB)\n", o.Ideals, float64(o.DPTableBytes)/(1<<20))
	}
	if o.Objective != "" && o.Objective != "max-load" && o.ObjectiveValue != nil {
		fmt.Fprintf(w, "%-16s %.6f ms\n", o.Objective, *o.ObjectiveValue*1e3)
	}
	fmt.Fprintf(w, "regime           %s\n", o.Regime)
	if o.Fallback != "" {
		fmt.Fprintf(w, "fallback         %s\n", o.Fallback)
	}
	if len(o.Relaxed) > 0 {
		fmt.Fprintf(w, "relaxed          %s\n", strings.Join(o.Relaxed, ", "))
	}
	if o.Rewritten != "" {
		fmt.Fprintf(w, "rewritten graph  %s\n", o.Rewritten)
	}
	if o.Error != "" {
		fmt.Fprintf(w, "simulation       failed: %s\n", o.Error)
	} else {
		fmt.Fprintf(w, "simulated step   %s, %.2f samples/s\n", units.Seconds(o.StepTime), o.Throughput)
	}
	if o.PeriodPerSample != nil {
		fmt.Fprintf(w, "pipeline period  %.6f ms per sample\n", *o.PeriodPerSample*1e3)
	}
	if o.OOM != nil {
		fmt.Fprintf(w, "OUT OF MEMORY    %v\n", o.OOM.Err())
	}
	fmt.Fprintf(w, "\nsplit\n")
	for _, p := range o.Placement {
		shown := p.Ops
		more := ""
		if len(shown) > maxOpsShown {
			more = fmt.Sprintf(" ... (%d more)", len(shown)-maxOpsShown)
			shown = shown[:maxOpsShown]
		}
		load := ""
		if p.Load != nil {
			load = fmt.Sprintf("  load %.6f ms", *p.Load)
		}
		fmt.Fprintf(w, "  %-10s %5d ops%s  %s%s\n", p.Device, len(p.Ops), load, strings.Join(shown, " "), more)
	}
	if explain {
		fmt.Fprintln(w)
		if o.Explain != "" {
			fmt.Fprint(w, o.Explain)
			fmt.Fprintf(w, "bottleneck: %s\n", o.Bottleneck)
		} else {
			fmt.Fprintf(w, "placer %s does not report loads\n", o.Placer)
		}
	}
	if len(o.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes")
		for _, n := range o.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}
