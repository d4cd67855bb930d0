package cli

import (
	"github.com/spf13/cobra"

	"placesim/reports"
	"placesim/study"
)

// StatsOptions are stats' parsed flags and surroundings.
type StatsOptions struct {
	*Factory
	Workload, Cluster string
	JSON, Lenient     bool
	// Ops is --ops: how many of the longest ops to list (0: none).
	Ops int
	// Format is --format (and its --json shorthand).
	Format formatFlag
}

// NewCmdStats builds stats; runF, when not nil, replaces statsRun.
func NewCmdStats(f *Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "stats WORKLOAD",
		Short: "Print a workload's ops, edges, FLOPs, parameter and activation bytes and CCR",
		Long: `Print a workload's size (ops by role, edges, layers, colocation groups),
work (FLOPs), memory (parameters, resident bytes with gradients and
optimizer state, forward activations and the part kept for the backward
pass) and, for a cluster, its communication-to-computation ratio, eq. 1 of
Celeritas: the sum over edges of the time to send the edge's bytes between
two of the cluster's accelerators (the first two), over the sum of the ops'
compute times on the first accelerator (an op it cannot run: the first
device that can). Without --cluster the CCR uses the machine the workload
file describes, if any.

--ops N prices every op on the cluster's first accelerator with the cost
model the simulation charges (kernel table, roofline, launch overhead):
the time by role and kernel class, each class's achieved TFLOP/s and
GB/s, and the N longest ops with the roofline term that sets each (compute,
memory, or a measured time). Set side by side with a profiler's kernel
table it shows where a simulated step and a measured one part. The ops
are summed one after another: overlap and communication are the
simulation's (placesim simulate, placesim validate --explain).`,
		Example: `  placesim stats 'zoo:inception_v3?batch=512&training=true' --cluster 4xV100-pcie
  placesim stats 'zoo:bert?size=large&seq=512&batch=8&training=true&precision=fp16' -c 1xV100 --ops 20
  placesim stats ../shared/workloads/msr-fiddle/bert24.json --json
  placesim stats model.onnx --lenient`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Workload = args[0]
			if err := opts.Format.apply(&opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return statsRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Cluster, "cluster", "c", "", "cluster preset or file for the CCR (default: the machine the workload file describes; none: no CCR)")
	opts.Format.register(cmd, " (json: one object)", formatTable, formatJSON)
	cmd.Flags().IntVar(&opts.Ops, "ops", 0, "price every op on the cluster's first accelerator and list the N longest, with the time by role and kernel class (0: none; needs a cluster)")
	cmd.Flags().BoolVar(&opts.Lenient, "lenient", false, "ONNX: import unsupported ops as zero-cost placeholders, with a warning per op type (model.onnx?lenient=true)")
	return cmd
}

func statsRun(opts *StatsOptions) error {
	o, err := study.Stats(study.StatsRequest{Inputs: study.Inputs{Workload: opts.Workload, Cluster: opts.Cluster}, Lenient: opts.Lenient, Ops: opts.Ops})
	if err != nil {
		return flagNamed(err, map[string]string{"ops": "--ops", "cluster": "--cluster"})
	}
	printWarnings(opts.ErrOut, "", o.Warnings)
	if opts.JSON {
		return writeJSON(opts.Out, o)
	}
	return reports.WriteStats(opts.Out, o)
}
