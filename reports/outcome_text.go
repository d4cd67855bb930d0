package reports

import (
	"fmt"
	"io"

	"placesim/internal/units"

	"placesim/runresult"
)

// WriteOutcome prints one run as simulate shows it: the placement, the
// regime and notes, step time, throughput, bytes moved, a line per device
// and per link, the pipeline's and data parallelism's figures, and the
// out-of-memory, if any. pipelineNotes follow the pipeline's figures (the
// gap to the placer's max-load: study.MaxLoadGap).
func WriteOutcome(w io.Writer, o *runresult.Record, pipelineNotes []string) {
	fmt.Fprintf(w, "workload %s on %s, placer %s (seed %d)\n", o.Workload, o.Cluster, o.Placer, o.Seed)
	if o.PlaceTime != nil {
		fmt.Fprintf(w, "placement time   %s\n", units.Seconds(*o.PlaceTime))
	}
	if o.Regime != "" {
		fmt.Fprintf(w, "regime           %s\n", o.Regime)
	}
	for _, n := range o.Notes() {
		fmt.Fprintf(w, "note             %s\n", n)
	}
	if o.RegimeNote != "" {
		fmt.Fprintf(w, "note             %s\n", o.RegimeNote)
	}
	if o.Error != "" {
		fmt.Fprintf(w, "error            %s\n", o.Error)
		return
	}
	if o.NotComparable != "" {
		return
	}
	fmt.Fprintf(w, "step time        %s\n", units.Seconds(o.StepTime))
	fmt.Fprintf(w, "throughput       %.2f samples/s\n", o.Throughput)
	fmt.Fprintf(w, "bytes moved      %s in %d transfers\n", units.Bytes(o.BytesMoved), o.Transfers)
	fmt.Fprintf(w, "\n%-12s %6s %12s %6s %12s %12s %12s\n", "device", "ops", "busy", "util", "params", "peak mem", "capacity")
	for _, d := range resultOf(o).Devices {
		fmt.Fprintf(w, "%-12s %6d %12s %5.1f%% %12s %12s %12s\n", d.Name, d.Ops, units.Seconds(d.Busy), 100*d.Utilisation,
			units.Bytes(d.ParamBytes), units.Bytes(d.PeakMemory), units.Bytes(d.Capacity))
	}
	if len(resultOf(o).Links) > 0 {
		fmt.Fprintf(w, "\n%-24s %-8s %12s %12s %9s %12s\n", "link", "kind", "busy", "bytes", "transfers", "queue delay")
		for _, l := range resultOf(o).Links {
			fmt.Fprintf(w, "%-24s %-8s %12s %12s %9d %12s\n", l.From+"->"+l.To, l.Kind, units.Seconds(l.Busy),
				units.Bytes(l.Bytes), l.Transfers, units.Seconds(l.QueueDelay))
		}
	}
	writeParallel(w, o, pipelineNotes)
	if o.OOM != nil {
		fmt.Fprintf(w, "\nOUT OF MEMORY: %v\n", o.OOM.Err())
	}
}

// writeParallel prints the pipeline and data-parallel figures, if any.
func writeParallel(w io.Writer, o *runresult.Record, pipelineNotes []string) {
	if p := resultOf(o).Pipeline; p != nil {
		rc := ""
		if p.Recompute {
			rc = ", recomputation"
		}
		fmt.Fprintf(w, "\npipeline         %s, %d micro-batches, %d stages%s\n", p.Schedule, p.MicroBatches, len(p.Stages), rc)
		fmt.Fprintf(w, "period           %s per micro-batch (steady state)\n", units.Seconds(p.Period))
		fmt.Fprintf(w, "bubble fraction  %.1f%%\n", 100*p.BubbleFraction)
		for _, line := range pipelineNotes {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintf(w, "\n%-6s %-20s %6s %12s %6s %12s %12s %8s\n", "stage", "devices", "ops", "busy", "util", "params", "peak mem", "versions")
		for s, st := range p.Stages {
			devs := fmt.Sprint(st.Devices)
			fmt.Fprintf(w, "%-6d %-20s %6d %12s %5.1f%% %12s %12s %8d\n", s, devs[1:len(devs)-1], st.Ops, units.Seconds(st.Busy),
				100*st.Utilisation, units.Bytes(st.ParamBytes), units.Bytes(st.PeakMemory), st.WeightVersions)
		}
	}
	if d := resultOf(o).DataParallel; d != nil {
		fmt.Fprintf(w, "\ndata parallel    %d replicas, %d all-reduces\n", d.Replicas, len(d.AllReduces))
		fmt.Fprintf(w, "all-reduce model %s\n", d.Model)
		if d.GradientBytes > 0 {
			wire := ""
			if d.WireBytes > 0 {
				wire = fmt.Sprintf(" at %d bytes an element", d.WireBytes)
			}
			fmt.Fprintf(w, "all-reduce       %s of gradients%s, %s, algbw %s, busbw %s\n", units.Bytes(d.GradientBytes), wire, d.Algorithm, units.Rate(d.AlgBW), units.Rate(d.BusBW))
		}
		if len(d.AllReduces) > 0 {
			fmt.Fprintf(w, "\n%-6s %-6s %-6s %12s %12s %12s %-12s %12s %12s\n", "stage", "bucket", "round", "bytes", "start", "time", "algorithm", "algbw", "busbw")
			for _, a := range d.AllReduces {
				fmt.Fprintf(w, "%-6d %-6d %-6d %12s %12s %12s %-12s %12s %12s\n", a.Stage, a.Bucket, a.Round, units.Bytes(a.Bytes),
					units.Seconds(a.Start), units.Seconds(a.End-a.Start), a.Algorithm, units.Rate(a.AlgBW), units.Rate(a.BusBW))
			}
		}
	}
}
