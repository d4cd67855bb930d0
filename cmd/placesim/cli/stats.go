package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/internal/units"
	"placesim/study"
	"placesim/workloads"
)

// statsOutput is what stats prints (--json: this object).
type statsOutput struct {
	Workload string `json:"workload"`
	Batch    int    `json:"batch"`
	Training bool   `json:"training"`
	workloads.Stats
	CCR *ccrOutput `json:"ccr"`
}

// ccrOutput is Celeritas' eq. 1 on a cluster: transfers between devices
// From and To, computation on Compute.
type ccrOutput struct {
	Value   float64 `json:"value"`
	Cluster string  `json:"cluster"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Compute string  `json:"compute"`
}

func newStatsCmd() *cobra.Command {
	var cluster string
	var asJSON bool
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
  placesim stats ../shared/workloads/msr-fiddle/bert24.json --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := study.LoadWorkload(args[0])
			if err != nil {
				return err
			}
			o := statsOutput{Workload: g.Name, Batch: g.Batch, Training: g.Training, Stats: workloads.ComputeStats(g)}
			if cluster != "" || g.Hint != nil {
				c, err := study.ResolveCluster(cluster, g)
				if err != nil {
					return err
				}
				if o.CCR, err = clusterCCR(g, c); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), o)
			}
			printStats(cmd.OutOrStdout(), &o)
			return nil
		},
	}
	cmd.Flags().StringVarP(&cluster, "cluster", "c", "", "cluster preset or file for the CCR (default: the machine the workload file describes; none: no CCR)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// clusterCCR computes eq. 1 of Celeritas on c (see the command's help).
func clusterCCR(g *workloads.Graph, c *devices.Cluster) (*ccrOutput, error) {
	devs := c.Accelerators()
	if len(devs) < 2 {
		devs = devs[:0]
		for i := range c.Devices {
			devs = append(devs, i)
		}
	}
	if len(devs) < 2 {
		return nil, fmt.Errorf("CCR of %q on cluster %q: it needs two devices to send data between, the cluster has %d", g.Name, c.Name, len(c.Devices))
	}
	src, dst := devs[0], devs[1]
	w := make([]float64, len(g.Ops))
	for i := range g.Ops {
		t, err := c.OpTime(&g.Ops[i], src)
		for d := 0; err != nil && d < len(c.Devices); d++ {
			t, err = c.OpTime(&g.Ops[i], d)
		}
		if err != nil {
			return nil, fmt.Errorf("CCR of %q on cluster %q: %w", g.Name, c.Name, err)
		}
		w[i] = t
	}
	v := workloads.CCR(g, func(op int) float64 { return w[op] },
		func(b int64) float64 { return c.TransferTime(src, dst, b) })
	return &ccrOutput{Value: v, Cluster: c.Name, From: c.Devices[src].Name, To: c.Devices[dst].Name, Compute: c.Devices[src].Name}, nil
}

func printStats(w io.Writer, o *statsOutput) {
	s := &o.Stats
	fmt.Fprintf(w, "workload           %s (batch %d, training %v)\n", o.Workload, o.Batch, o.Training)
	fmt.Fprintf(w, "ops                %d (forward %d, backward %d, update %d)\n", s.Ops, s.Forward, s.Backward, s.Update)
	fmt.Fprintf(w, "edges              %d (%s)\n", s.Edges, units.Bytes(s.EdgeBytes))
	fmt.Fprintf(w, "layers             %d\n", s.Layers)
	fmt.Fprintf(w, "colocation groups  %d\n", s.ColocationGroups)
	fmt.Fprintf(w, "FLOPs              %.4g\n", s.FLOPs)
	fmt.Fprintf(w, "parameters         %s (%.4g fp32 values; trainable %s)\n", units.Bytes(s.ParamBytes), float64(s.ParamBytes)/4, units.Bytes(s.TrainableBytes))
	fmt.Fprintf(w, "resident           %s (parameters, gradient buffers, optimizer state)\n", units.Bytes(s.ResidentBytes))
	fmt.Fprintf(w, "activations        %s (forward outputs; kept for backward %s)\n", units.Bytes(s.ActivationBytes), units.Bytes(s.SavedBytes))
	if c := o.CCR; c != nil {
		fmt.Fprintf(w, "CCR                %.4g (Celeritas eq. 1 on %s: transfers %s -> %s, compute on %s)\n", c.Value, c.Cluster, c.From, c.To, c.Compute)
	} else {
		fmt.Fprintf(w, "CCR                - (give --cluster)\n")
	}
}
