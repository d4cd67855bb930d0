package cli

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"placesim/study"
)

// explainLLMRun prints one large-model row taken apart (validate FILE
// --explain ID on a file of ../shared/fidelity/llm.tsv's format).
func explainLLMRun(opts *ValidateOptions, rows []study.LLMRow) error {
	if opts.MaxMedian > 0 || opts.MaxWorst > 0 || opts.MaxMultiGPU > 0 {
		return fmt.Errorf("--explain takes one row apart; --max-median, --max-worst and --max-multi-gpu judge the whole file (give one or the other)")
	}
	e, err := study.ExplainLLM(rows, opts.Explain)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return writeJSON(opts.Out, e)
	}
	w, r := opts.Out, e.Row
	if r.Failure != "" {
		fmt.Fprintf(w, "%s: %s\n", r.ID, r.Failure)
		return nil
	}
	fmt.Fprintf(w, "%s: %s on %d GPUs of %s, %s\n", r.ID, r.Model, r.GPUs, r.System, r.Layout)
	fmt.Fprintf(w, "measured %.2f, simulated %.2f %s (error %+.1f %%); iteration %.3f s, %d micro-batches per pipeline, layers per pipeline rank %v, bubble %.1f %%\n",
		r.Measured, r.Simulated, r.Unit, 100*r.Error, e.IterationTime, e.MicroBatches, e.Layers, 100*e.Bubble)
	fmt.Fprintf(w, "exposed communication (slowest rank):")
	for _, k := range []string{"TP", "CP", "EP", "PP", "DP"} {
		fmt.Fprintf(w, " %s %.3f s", k, e.Exposed[k])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "optimizer step (slowest rank): %.3f s\n", e.Optimizer)
	fmt.Fprintf(w, "\nkernels on pipeline rank 0's GPU, one micro-batch (layer parts: per layer; backward without recomputation):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\top\tforward us\tbackward us\tmechanism\tadds us")
	for _, op := range e.Ops {
		extra := ""
		if op.Mechanism != "" {
			extra = fmt.Sprintf("%.1f", 1e6*op.Extra)
		}
		mech := op.Mechanism
		if op.Recomputed {
			mech = strings.TrimPrefix(mech+", recomputed", ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%s\t%s\n", op.Part, op.Op, 1e6*op.Forward, 1e6*op.Backward, mech, extra)
	}
	tw.Flush()
	if len(e.Mechanisms) > 0 {
		var names []string
		for n := range e.Mechanisms {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "\nmechanisms over an iteration of the rank with the most layers (its compute stream, before overlap):\n")
		for _, n := range names {
			fmt.Fprintf(w, "  %-22s %.3f s (%.1f %% of the iteration)\n", n, e.Mechanisms[n], 100*e.Mechanisms[n]/e.IterationTime)
		}
	}
	return nil
}
