package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"placesim/internal/units"
	"placesim/study"
	"placesim/workloads"
)

// StatsOptions are stats' parsed flags and surroundings.
type StatsOptions struct {
	*Factory
	Workload, Cluster string
	JSON, Lenient     bool
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
file describes, if any.`,
		Example: `  placesim stats 'zoo:inception_v3?batch=512&training=true' --cluster 4xV100-pcie
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
	cmd.Flags().BoolVar(&opts.Lenient, "lenient", false, "ONNX: import unsupported ops as zero-cost placeholders, with a warning per op type (model.onnx?lenient=true)")
	return cmd
}

func statsRun(opts *StatsOptions) error {
	o, err := study.Stats(study.StatsRequest{Inputs: study.Inputs{Workload: opts.Workload, Cluster: opts.Cluster}, Lenient: opts.Lenient})
	if err != nil {
		return err
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(opts.ErrOut, "warning: %s\n", w)
	}
	if opts.JSON {
		return writeJSON(opts.Out, o)
	}
	printStats(opts.Out, o)
	return nil
}

func printStats(w io.Writer, o *study.WorkloadStats) {
	s := &o.Stats
	fmt.Fprintf(w, "workload           %s (batch %d, training %v)\n", o.Workload, o.Batch, o.Training)
	fmt.Fprintf(w, "ops                %d (forward %d, backward %d, update %d)\n", s.Ops, s.Forward, s.Backward, s.Update)
	fw, prec := s.Framework, s.Precision
	if fw == "" {
		fw = "as in the file"
	}
	if prec == "" {
		prec = "fp32"
	}
	fmt.Fprintf(w, "kernels            %d per step (framework %s, precision %s)\n", s.Kernels, fw, prec)
	fmt.Fprintf(w, "edges              %d (%s)\n", s.Edges, units.Bytes(s.EdgeBytes))
	fmt.Fprintf(w, "layers             %d\n", s.Layers)
	fmt.Fprintf(w, "colocation groups  %d\n", s.ColocationGroups)
	fmt.Fprintf(w, "FLOPs              %.4g\n", s.FLOPs)
	printLayerFLOPs(w, s.LayerFLOPs)
	fmt.Fprintf(w, "parameters         %s (trainable %s)\n", units.Bytes(s.ParamBytes), units.Bytes(s.TrainableBytes))
	fmt.Fprintf(w, "resident           %s (parameters, gradient buffers, optimizer state)\n", units.Bytes(s.ResidentBytes))
	fmt.Fprintf(w, "activations        %s (forward outputs; kept for backward %s)\n", units.Bytes(s.ActivationBytes), units.Bytes(s.SavedBytes))
	if o.Trace != nil {
		printTrace(w, o.Trace)
	}
	if c := o.CCR; c != nil {
		fmt.Fprintf(w, "CCR                %.4g (Celeritas eq. 1 on %s: transfers %s -> %s, compute on %s)\n", c.Value, c.Cluster, c.From, c.To, c.Compute)
	} else {
		fmt.Fprintf(w, "CCR                - (give --cluster)\n")
	}
}

// maxLayerGroups is how many layer groups stats prints by name; the
// smaller rest are summed on one line.
const maxLayerGroups = 12

// printLayerFLOPs prints the forward FLOPs by layer group (all of them
// when there are at most maxLayerGroups, else the largest and the rest
// summed).
func printLayerFLOPs(w io.Writer, groups []workloads.GroupFLOPs) {
	if len(groups) == 0 {
		return
	}
	shown := groups
	var rest workloads.GroupFLOPs
	if len(groups) > maxLayerGroups {
		big := append([]workloads.GroupFLOPs(nil), groups...)
		sort.SliceStable(big, func(i, j int) bool { return big[i].FLOPs > big[j].FLOPs })
		keep := map[string]bool{}
		for _, g := range big[:maxLayerGroups-1] {
			keep[g.Group] = true
		}
		shown = nil
		for _, g := range groups {
			if keep[g.Group] {
				shown = append(shown, g)
			} else {
				rest.Ops += g.Ops
				rest.FLOPs += g.FLOPs
				rest.Group = fmt.Sprintf("(%d more groups)", len(groups)-maxLayerGroups+1)
			}
		}
	}
	fmt.Fprintf(w, "forward FLOPs by layer group:\n")
	for _, g := range append(shown, rest) {
		if g.Group == "" {
			continue
		}
		fmt.Fprintf(w, "  %-16s %10.4g  (%d ops)\n", g.Group, g.FLOPs, g.Ops)
	}
}
