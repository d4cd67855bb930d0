package reports

import (
	"fmt"
	"io"
	"strings"

	"placesim/internal/units"
	"placesim/runresult"
)

// maxOpsShown bounds the op names printed per device in text output.
const maxOpsShown = 8

// WritePlacement writes a placement as placesim place prints it: the
// objective, placement time, regime, simulated step, the split (the ops of
// each device, at most maxOpsShown by name), with explain each device's
// load and the bottleneck, and the placer's notes.
func WritePlacement(w io.Writer, o *runresult.Placement, explain bool) error {
	ew := &errWriter{w: w}
	writePlacement(ew, o, explain)
	return ew.err
}

func writePlacement(w io.Writer, o *runresult.Placement, explain bool) {
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
	// the placer's notes in runresult.Record.Notes' order
	if o.Rewritten != "" {
		fmt.Fprintf(w, "rewritten graph  %s\n", o.Rewritten)
	}
	if o.Fallback != "" {
		fmt.Fprintf(w, "fallback         %s\n", o.Fallback)
	}
	if len(o.Relaxed) > 0 {
		fmt.Fprintf(w, "relaxed          %s\n", strings.Join(o.Relaxed, ", "))
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
		fmt.Fprintf(w, "OUT OF MEMORY    %s\n", o.OOM.Err())
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
