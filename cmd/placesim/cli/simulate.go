package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"placesim/internal/units"
	"placesim/study"
)

func newSimulateCmd() *cobra.Command {
	var f runFlags
	var pf pipelineFlags
	var placer string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "simulate --workload W --cluster C --placer P",
		Short: "Place a workload with one placer and simulate one step",
		Long: `Place the workload on the cluster with the placer, simulate one step and
print step time, throughput, per-device busy time and peak memory, per-link
traffic and any out-of-memory.

Exit codes: 0 ok, 1 error, 2 the step ran out of memory.`,
		Example: `  placesim simulate -w zoo:mlp -c 4xV100-pcie --placer round-robin
  placesim simulate -w zoo:mlp -c 4xV100-pcie --placer random --seed 3 --json
  placesim simulate -w 'zoo:mlp?training=true' -c 4xV100-pcie --pipeline 1f1b --microbatches 8 --stages even
  placesim simulate -w 'zoo:mlp?training=true' -c 8xV100-nvlink --data-parallel 4 --allreduce-overlap`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, g, c, spec, err := f.setup()
			if err != nil {
				return err
			}
			spec.Placer = placer
			if err := pf.apply(cmd, &spec); err != nil {
				return err
			}
			o, err := study.Run(context.Background(), reg, g, c, spec)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, o); err != nil {
					return err
				}
			} else {
				printOutcome(out, o)
			}
			switch {
			case o.Error != "":
				return &exitError{ExitError, fmt.Errorf("%s", o.Error)}
			case o.OOM != nil:
				return &exitError{ExitOOM, o.OOM.Err()}
			}
			return nil
		},
	}
	f.register(cmd, "4xV100-pcie")
	pf.register(cmd)
	cmd.Flags().StringVarP(&placer, "placer", "p", "single", "placer name (placesim list placers)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	return cmd
}

func printOutcome(w io.Writer, o *study.Outcome) {
	fmt.Fprintf(w, "workload %s on %s, placer %s (seed %d)\n", o.Workload, o.Cluster, o.Placer, o.Seed)
	if o.PlaceTime != nil {
		fmt.Fprintf(w, "placement time   %s\n", units.Seconds(*o.PlaceTime))
	}
	if o.Error != "" {
		fmt.Fprintf(w, "error            %s\n", o.Error)
		return
	}
	fmt.Fprintf(w, "step time        %s\n", units.Seconds(o.StepTime))
	fmt.Fprintf(w, "throughput       %.2f samples/s\n", o.Throughput)
	fmt.Fprintf(w, "bytes moved      %s in %d transfers\n", units.Bytes(o.BytesMoved), o.Transfers)
	fmt.Fprintf(w, "\n%-12s %6s %12s %6s %12s %12s %12s\n", "device", "ops", "busy", "util", "params", "peak mem", "capacity")
	for _, d := range o.Devices {
		fmt.Fprintf(w, "%-12s %6d %12s %5.1f%% %12s %12s %12s\n", d.Name, d.Ops, units.Seconds(d.Busy), 100*d.Utilisation,
			units.Bytes(d.ParamBytes), units.Bytes(d.PeakMemory), units.Bytes(d.Capacity))
	}
	if len(o.Links) > 0 {
		fmt.Fprintf(w, "\n%-24s %-8s %12s %12s %9s %12s\n", "link", "kind", "busy", "bytes", "transfers", "queue delay")
		for _, l := range o.Links {
			fmt.Fprintf(w, "%-24s %-8s %12s %12s %9d %12s\n", l.From+"->"+l.To, l.Kind, units.Seconds(l.Busy),
				units.Bytes(l.Bytes), l.Transfers, units.Seconds(l.QueueDelay))
		}
	}
	printParallel(w, o)
	if o.OOM != nil {
		fmt.Fprintf(w, "\nOUT OF MEMORY: %v\n", o.OOM.Err())
	}
}
