package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"placesim/engine"
	"placesim/internal/units"
	"placesim/placers"
	"placesim/placers/tarnawski/maxload"
	"placesim/study"
)

// placeOutput is the object place --json prints. Times are seconds except
// maxLoad, objectiveValue and periodPerSample, which are ms (per sample).
type placeOutput struct {
	Placer   string `json:"placer"`
	Workload string `json:"workload"`
	Cluster  string `json:"cluster"`
	Seed     uint64 `json:"seed"`
	// MaxLoad is the max-load of the split in ms per sample (max-load
	// placers only).
	MaxLoad        *float64 `json:"maxLoad,omitempty"`
	Objective      string   `json:"objective,omitempty"`
	ObjectiveValue *float64 `json:"objectiveValue,omitempty"`
	Bottleneck     string   `json:"bottleneck,omitempty"`
	PlaceTime      *float64 `json:"placeTime"`
	// StepTime, Throughput, PeakMemory and OOM come from simulating the
	// plan once; PeriodPerSample (ms) from its pipeline, if it has one.
	StepTime        float64     `json:"stepTime"`
	Throughput      float64     `json:"throughput"`
	PeriodPerSample *float64    `json:"periodPerSample,omitempty"`
	PeakMemory      []int64     `json:"peakMemory"`
	OOM             *engine.OOM `json:"oom"`
	Placement       []placePart `json:"placement"`
	Notes           []string    `json:"notes,omitempty"`
	// Error is set when the plan could not be simulated.
	Error string `json:"error,omitempty"`
}

// placePart is one device's share of the split.
type placePart struct {
	Device string `json:"device"`
	// Load in ms per sample (max-load placers only).
	Load   *float64 `json:"load,omitempty"`
	Memory *int64   `json:"memory,omitempty"`
	Ops    []string `json:"ops"`
}

func newPlaceCmd() *cobra.Command {
	var f runFlags
	var placer string
	var asJSON, explain bool
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
			reg, g, c, spec, err := f.setup()
			if err != nil {
				return err
			}
			p, err := reg.New(placer, spec.Options)
			if err != nil {
				return err
			}
			est, err := study.NewEstimates(g, c, spec.Estimates)
			if err != nil {
				return err
			}
			start := time.Now()
			req := &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: spec.Seed}
			plan, rep, err := placers.PlaceWithReport(context.Background(), p, req)
			elapsed := time.Since(start).Seconds()
			if err != nil {
				return fmt.Errorf("place %s with %s: %w", g.Name, placer, err)
			}
			if rep == nil {
				// score any placer's split in the max-load model too (the
				// paper's comparison of expert and other splits)
				rep = maxLoadReport(req, plan)
			}
			out := &placeOutput{Placer: placer, Workload: g.Name, Cluster: c.Name, Seed: spec.Seed}
			if !f.reproducible {
				out.PlaceTime = &elapsed
			}
			// the split is printed even when its simulation fails
			res, simErr := engine.Simulate(g, c, plan, engine.Options{})
			if simErr != nil {
				out.Error = fmt.Sprintf("simulate the plan: %v", simErr)
			} else {
				out.StepTime, out.Throughput, out.OOM = res.StepTime, res.Throughput, res.OOM
				for _, d := range res.Devices {
					out.PeakMemory = append(out.PeakMemory, d.PeakMemory)
				}
				if res.Pipeline != nil && res.Pipeline.Period > 0 {
					ms := res.Pipeline.Period * float64(res.Pipeline.MicroBatches) / float64(g.Batch) * 1e3
					out.PeriodPerSample = &ms
				}
			}
			loads := map[string]placers.DeviceShare{}
			if rep != nil {
				out.Objective, out.Bottleneck, out.Notes = rep.Objective, rep.Bottleneck, rep.Notes
				if rep.MaxLoad > 0 {
					ms := rep.MaxLoad * 1e3
					out.MaxLoad = &ms
				}
				if rep.Objective != "" {
					v := rep.Value * 1e3
					out.ObjectiveValue = &v
				}
				for _, d := range rep.Devices {
					loads[d.Device] = d
				}
			}
			// a plan on a rewritten graph (split, fused) lists that graph's ops
			pg := placers.PlanGraph(g, plan)
			byDev := make([][]string, len(c.Devices))
			for op, d := range plan.Device {
				byDev[d] = append(byDev[d], pg.Ops[op].Name)
			}
			for d, ops := range byDev {
				if len(ops) == 0 {
					continue
				}
				part := placePart{Device: c.Devices[d].Name, Ops: ops}
				if s, ok := loads[part.Device]; ok {
					l, m := s.Load*1e3, s.Memory
					part.Load, part.Memory = &l, &m
				}
				out.Placement = append(out.Placement, part)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(w, out); err != nil {
					return err
				}
			} else {
				printPlacement(w, out, rep, explain)
			}
			if simErr != nil {
				return &exitError{ExitError, fmt.Errorf("%s", out.Error)}
			}
			return nil
		},
	}
	f.register(cmd, "")
	cmd.Flags().StringVarP(&placer, "placer", "p", "tarnawski-dp", "placer name (placesim list placers)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (maxLoad in ms per sample at the top level)")
	cmd.Flags().BoolVar(&explain, "explain", false, "print each device's load, compute and communication, and the bottleneck device")
	return cmd
}

// maxOpsShown bounds the op names printed per device in text output.
const maxOpsShown = 8

func printPlacement(w io.Writer, o *placeOutput, rep *placers.Report, explain bool) {
	fmt.Fprintf(w, "workload %s on %s, placer %s (seed %d)\n", o.Workload, o.Cluster, o.Placer, o.Seed)
	if o.PlaceTime != nil {
		fmt.Fprintf(w, "placement time   %s\n", units.Seconds(*o.PlaceTime))
	}
	if o.MaxLoad != nil {
		fmt.Fprintf(w, "max-load         %.6f ms per sample (bottleneck %s)\n", *o.MaxLoad, o.Bottleneck)
	}
	if o.Objective != "" && o.Objective != "max-load" && o.ObjectiveValue != nil {
		fmt.Fprintf(w, "%-16s %.6f ms\n", o.Objective, *o.ObjectiveValue)
	}
	if o.Error != "" {
		fmt.Fprintf(w, "simulation       failed: %s\n", o.Error)
	} else {
		fmt.Fprintf(w, "simulated step   %s, %.2f samples/s\n", units.Seconds(o.StepTime), o.Throughput)
	}
	if o.PeriodPerSample != nil {
		fmt.Fprintf(w, "pipeline period  %.6f ms per sample\n", *o.PeriodPerSample)
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
		if rep != nil && rep.Explain != "" {
			fmt.Fprint(w, rep.Explain)
			fmt.Fprintf(w, "bottleneck: %s\n", rep.Bottleneck)
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

// maxLoadReport scores a plan in the max-load model of Tarnawski et al.,
// or returns nil when the model does not apply (no accelerator, a plan
// that rewrites the graph, or one over memory).
func maxLoadReport(req *placers.Request, plan *engine.Plan) *placers.Report {
	if plan.Graph != nil {
		return nil
	}
	m, err := maxload.New(req)
	if err != nil {
		return nil
	}
	assign := m.Assignment(plan)
	for _, d := range assign {
		if d < 0 {
			return nil
		}
	}
	rep, err := m.Report(assign, "", []string{"max-load computed by placesim from the plan (the placer does not report one)"})
	if err != nil {
		return nil
	}
	return rep
}
