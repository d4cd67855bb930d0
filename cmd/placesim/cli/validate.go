package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"placesim/internal/units"
	"placesim/study"
	"placesim/workloads/zoo"
)

// ValidateOptions are validate's parsed flags and surroundings.
type ValidateOptions struct {
	*Factory
	Ctx                 context.Context
	File, Format        string
	MaxMedian, MaxWorst float64
	// MaxMultiGPU bounds every data-parallel row's |error| (0: none).
	MaxMultiGPU float64
	// Explain, when set, is the id of the one row to take apart.
	Explain string
	// InputCost and InputGHz are a what-if CPU cost per image (a
	// duration) at a clock for every row whose program has a CPU input
	// pipeline ("" and 0: none).
	InputCost string
	InputGHz  float64
}

// NewCmdValidate builds validate; runF, when not nil, replaces
// validateRun (tests).
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "validate FILE",
		Short: "Simulate measured training settings and print placesim's error on each",
		Long: `Read a file of measured training throughputs (tab-separated, a header row
with the columns id, workload, cluster, gpus, precision, framework,
measured, unit, tokens_per_sample, source, note; see validation/README.md),
simulate each setting and print, per row, the measurement, placesim's
figure and the error = simulated / measured - 1, then the median and the
worst |error|.

A row's workload is a zoo spec with the global batch; the row's precision
and framework (its fusion profile: pytorch, tensorflow, tensorflow-xla =
xla, mxnet) are added to it. Its cluster is a preset or a cluster file
relative to FILE. gpus > 1 runs data parallel over that many GPUs with the
batch split evenly, gradients all-reduced in 25 MiB buckets, overlapping
the backward pass for pytorch and mxnet (DDP, Horovod) and after it for
tensorflow. A tokens/s row multiplies samples/s by tokens_per_sample. A row
that fails (out of memory) counts as error -100 %. Optional columns:
program, the reference training program whose work beyond the model's
kernels is added and whose own all-reduce replaces the framework's
(fairseq, dle-convnets, dle-pt-bert, dle-tf-bert, dle-tf2-bert), and
accumulation, its gradient accumulation steps (validation/README.md).

--max-median and --max-worst make the command exit 1 when the median or
worst |error| is above the threshold (fractions: 0.1 = 10 %);
--max-multi-gpu when any row on more than one GPU is further off than it.

--explain ID simulates that row alone and takes its iteration apart on
one GPU (the slowest replica's under data parallelism): compute time by
role (forward, backward) and kernel class, the optimizer, what the
all-reduce model charged the compute stream (DDP's bucket copies, a
program's divisions, Horovod's copies and FP16 casts, and apart the
overlapped compute slowed by the SMs and by the memory
bandwidth NCCL's kernels held), the slowest GPU's slowdown, the time
the GPU idled with gradients in flight (exposed communication), any
other idle time and the row's program's work (parts named program; one
marked calibrated is fitted on a validation row, not derived); the parts
sum to the iteration.

--input-cost D --input-cost-ghz F is a what-if for the rows whose
program has a CPU input pipeline (dle-convnets: PyTorch DataLoader
workers): D of CPU time per image on one core at F GHz, scaled by the
clock the row's workers run at whatever the CPU, replaces the program's
cited cost per image (the sum of its stages' published costs, which
--explain lists); each step is max(GPU step, input per batch), an
input-bound rank's workers also getting its main process's core while
that sleeps waiting for the batch.`,
		Example: `  placesim validate validation/published.tsv
  placesim validate validation/published.tsv --max-median 0.10 --max-worst 0.25
  placesim validate my-cluster.tsv --format json
  placesim validate validation/published.tsv --explain p039`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.File = cmd.Context(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return validateRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", formatTable, "output format on stdout: table, json (one object with rows and the summary)")
	cmd.Flags().Float64Var(&opts.MaxMedian, "max-median", 0, "exit 1 when the median |error| is above this fraction (0 = no limit)")
	cmd.Flags().Float64Var(&opts.MaxWorst, "max-worst", 0, "exit 1 when the worst |error| is above this fraction (0 = no limit)")
	cmd.Flags().Float64Var(&opts.MaxMultiGPU, "max-multi-gpu", 0, "exit 1 when a row on more than one GPU has an |error| above this fraction (0 = no limit)")
	cmd.Flags().StringVar(&opts.Explain, "explain", "", "simulate the row with this id alone and print its iteration taken apart (kernel classes, optimizer, communication, exposed communication, slowest GPU, idle)")
	cmd.Flags().StringVar(&opts.InputCost, "input-cost", "", "what-if: CPU time per image on one core (e.g. 5ms) for every row whose program has a CPU input pipeline, at the clock --input-cost-ghz; the step becomes max(GPU step, input per batch)")
	cmd.Flags().Float64Var(&opts.InputGHz, "input-cost-ghz", 0, "the clock (GHz) --input-cost was measured at")
	return cmd
}

// inputCost parses --input-cost and --input-cost-ghz (nil: not given).
func inputCost(opts *ValidateOptions) (*study.InputCost, error) {
	if opts.InputCost == "" {
		if opts.InputGHz != 0 {
			return nil, fmt.Errorf("--input-cost-ghz %g without --input-cost (give both)", opts.InputGHz)
		}
		return nil, nil
	}
	d, err := time.ParseDuration(opts.InputCost)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("--input-cost %q (valid: a positive duration, e.g. 5ms or 4500us)", opts.InputCost)
	}
	if !(opts.InputGHz > 0) || math.IsInf(opts.InputGHz, 0) {
		return nil, fmt.Errorf("--input-cost-ghz %g (valid range: > 0, the clock the cost was measured at)", opts.InputGHz)
	}
	return &study.InputCost{PerImage: d.Seconds(), GHz: opts.InputGHz}, nil
}

func validateRun(opts *ValidateOptions) error {
	if opts.Format == "text" { // the name before table
		opts.Format = formatTable
	}
	if opts.Format != formatTable && opts.Format != formatJSON {
		return fmt.Errorf("--format %q (valid: table, json)", opts.Format)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"max-median", opts.MaxMedian}, {"max-worst", opts.MaxWorst}, {"max-multi-gpu", opts.MaxMultiGPU}} {
		if !(t.v >= 0) || math.IsInf(t.v, 0) {
			return fmt.Errorf("--%s %g (valid range: a fraction >= 0, e.g. 0.1 for 10 %%; 0 = no limit)", t.name, t.v)
		}
	}
	// a large-model file (../shared/fidelity/llm.tsv) is told by its header
	if isLLM, err := study.IsLLMValidation(opts.File); err != nil {
		return err
	} else if isLLM {
		return validateLLMRun(opts)
	}
	rows, err := study.ReadValidation(opts.File)
	if err != nil {
		return err
	}
	ic, err := inputCost(opts)
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].InputCost = ic
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Explain != "" {
		if opts.MaxMedian > 0 || opts.MaxWorst > 0 || opts.MaxMultiGPU > 0 {
			return fmt.Errorf("--explain takes one row apart; --max-median, --max-worst and --max-multi-gpu judge the whole file (give one or the other)")
		}
		e, err := study.Explain(ctx, reg, rows, opts.Explain, filepath.Dir(opts.File))
		if err != nil {
			return err
		}
		if opts.Format == "json" {
			return writeJSON(opts.Out, e)
		}
		printExplanation(opts.Out, e)
		return nil
	}
	// a line on standard error every few seconds while the rows run
	prog := newProgress(opts.Factory, "validate", len(rows), false)
	s, err := study.ValidateObserved(ctx, reg, rows, filepath.Dir(opts.File), func(id string, done int) {
		if done < 0 {
			prog.started(id)
		} else {
			prog.finished(id, done)
		}
	})
	prog.close()
	if err != nil {
		return err
	}
	s.File = opts.File
	if opts.Format == "json" {
		if err := writeJSON(opts.Out, s); err != nil {
			return err
		}
	} else {
		printValidation(opts.Out, s)
	}
	if opts.MaxMedian > 0 && s.MedianError > opts.MaxMedian {
		return &exitError{ExitError, fmt.Errorf("median |error| %.1f %% is above --max-median %.1f %%", 100*s.MedianError, 100*opts.MaxMedian)}
	}
	if opts.MaxWorst > 0 && s.WorstError > opts.MaxWorst {
		return &exitError{ExitError, fmt.Errorf("worst |error| %.1f %% (%s) is above --max-worst %.1f %%", 100*s.WorstError, s.WorstID, 100*opts.MaxWorst)}
	}
	if opts.MaxMultiGPU > 0 && s.WorstMultiGPU > opts.MaxMultiGPU {
		return &exitError{ExitError, fmt.Errorf("multi-GPU row %s: |error| %.1f %% is above --max-multi-gpu %.1f %%", s.WorstMultiGPUID, 100*s.WorstMultiGPU, 100*opts.MaxMultiGPU)}
	}
	return nil
}

func printValidation(w io.Writer, s *study.ValidationSummary) {
	fmt.Fprintf(w, "%-36s %4s %12s %12s %-9s %8s\n", "id", "gpus", "measured", "simulated", "unit", "error")
	for _, r := range s.Rows {
		sim := fmt.Sprintf("%12.1f", r.Simulated)
		if r.Failure != "" {
			sim = fmt.Sprintf("%12s", "failed")
		}
		fmt.Fprintf(w, "%-36s %4d %12.1f %s %-9s %+7.1f%%\n", r.ID, r.GPUs, r.Measured, sim, r.Unit, 100*r.Error)
	}
	for _, r := range s.Rows {
		if r.Failure != "" {
			fmt.Fprintf(w, "%s: %s\n", r.ID, r.Failure)
		}
	}
	fmt.Fprintf(w, "\n%d rows: median |error| %.1f %%, worst %.1f %% (%s)\n", len(s.Rows), 100*s.MedianError, 100*s.WorstError, s.WorstID)
	if s.WorstMultiGPUID != "" {
		fmt.Fprintf(w, "rows on more than one GPU: worst |error| %.1f %% (%s)\n", 100*s.WorstMultiGPU, s.WorstMultiGPUID)
	}
}

// explainNames are the explanation's parts as printed.
var explainNames = map[string]string{
	"optimizer":            "optimizer (update ops)",
	"allreduce-on-compute": "all-reduce on the compute stream (bucket copies and passes)",
	"contention-sm":        "compute slowed beside NCCL: SMs held (channels) or measured",
	"contention-hbm":       "compute slowed beside NCCL: memory bandwidth it moves",
	"slowest-gpu":          "slowest GPU (speed spread)",
	"exposed-comm":         "exposed communication (idle, gradients in flight)",
	"idle":                 "other idle (waiting for peers or inputs)",
	"gradient-pass":        "program: gradient division or zeroing pass (GPU)",
	"host-gather":          "program: all_gather_list of logging outputs (host)",
	"host-issue-wait":      "program: GPU waits for the host to issue the division",
	"host-reduce-loss":     "program: loss all-reduce for logging",
	"optimizer-issue-wait": "program: GPU waits for the host to issue SGD and zero_grad",
	"buffer-broadcast":     "program: DDP broadcast of batch-norm buffers",
	"unscale":              "program: loss scaler's unscale pass and found_inf read",
	"slowest-batch":        "program: the GPU whose token batch costs the most",
	"input-wait":           "program: GPU waits for the CPU input pipeline",
	"image-batch":          "program: batch's normalisation and mixup on the GPU",
	"session-run":          "program: host work between session.runs (calibrated)",
}

func printExplanation(w io.Writer, e *study.Explanation) {
	r := e.Row
	fmt.Fprintf(w, "%s: %s on %s, %d GPU(s)\n", r.ID, r.Workload, r.Cluster, r.GPUs)
	if r.Failure != "" {
		fmt.Fprintf(w, "measured %.1f %s; simulation failed: %s\n", r.Measured, r.Unit, r.Failure)
		return
	}
	fmt.Fprintf(w, "measured %.1f %s, simulated %.1f %s (%+.1f %%)\n", r.Measured, r.Unit, r.Simulated, r.Unit, 100*r.Error)
	if a := r.Accumulation; a != nil {
		sync := ""
		if a.Sync > 0 {
			sync = fmt.Sprintf(" + %d x %s program synchronisation per micro-batch (study.HostProgram.MicroBatchSync)", a.Steps, units.Seconds(a.Sync))
		}
		run := ""
		if a.Run > 0 {
			run = fmt.Sprintf(" + %s host work between session.runs: study.HostProgram.SessionRunGap", units.Seconds(a.Run))
		}
		fmt.Fprintf(w, "gradient accumulation: %d micro-batches per update, %d x (%s forward and backward + %s gradient work: study.AccumulationWords%s) + %s step%s = %s; taken apart below: the step with the all-reduce and update\n", a.Steps, a.Steps-1, units.Seconds(a.Micro), units.Seconds(a.Add), run, units.Seconds(a.Step), sync, units.Seconds(a.Total))
	}
	if m := r.LengthMix; m != nil {
		if m.MaxTokens > 0 {
			shapes := "lengths"
			if m.Ratio == zoo.RatioGaleChurch {
				shapes = "(source, target) lengths, the target's drawn from the source's by Gale and Church's length model (ratio=gale-church)"
			}
			fmt.Fprintf(w, "lengths %s, max-tokens %d a GPU: simulated is the expectation over fairseq's batches of %d %s (mean batch %.1f tokens a sentence on its longer side, each GPU its own batch; tokens counted are the targets'); taken apart below: the most frequent, share %.3f, %s\n", m.Lengths, m.MaxTokens, m.Parts, shapes, m.MeanPadded, m.Weight, m.Explained)
		} else {
			fmt.Fprintf(w, "lengths %s, bin %d: simulated is the expectation over %d padded lengths (mean %.1f tokens); taken apart below: the most probable, probability %.3f, %s\n", m.Lengths, m.Bin, m.Parts, m.MeanPadded, m.Weight, m.Explained)
		}
	}
	who := e.Device
	if e.Replicas > 1 {
		who = fmt.Sprintf("%s, replica %d of %d", e.Device, e.Replica, e.Replicas)
	}
	fmt.Fprintf(w, "iteration %s on %s:\n\n", units.Seconds(e.StepTime), who)
	fmt.Fprintf(w, "  %-62s %12s %7s %8s\n", "part", "time", "share", "kernels")
	var sum float64
	programParts := 0
	for _, p := range e.Parts {
		name := explainNames[p.Part]
		if p.Part == "compute" {
			name = p.Role + " " + p.Class
		}
		if strings.HasPrefix(name, "program:") {
			programParts++
		}
		k := ""
		if p.Kernels > 0 {
			k = fmt.Sprint(p.Kernels)
		}
		share := 0.0
		if e.StepTime > 0 {
			share = 100 * p.Seconds / e.StepTime
		}
		fmt.Fprintf(w, "  %-62s %12s %6.1f%% %8s\n", name, units.Seconds(p.Seconds), share, k)
		sum += p.Seconds
	}
	fmt.Fprintf(w, "  %-62s %12s\n", "total", units.Seconds(sum))
	if r.Program != "" {
		work := "its per-iteration work beyond the model's kernels is the parts named program above"
		if programParts == 0 {
			work = "it adds no part to this iteration beyond the model's kernels (what it adds per micro-batch, if anything, is in the accumulation line)"
		}
		fmt.Fprintf(w, "\nprogram: %s (%s): %s; the rest of its host work is not simulated\n", r.Program, study.HostPrograms[r.Program].Source, work)
	} else {
		fmt.Fprintf(w, "\nhost: the framework's per-iteration host work (logging syncs, Python between kernels) is not simulated; it shows only as a gap against the measurement\n")
	}
	if h := r.Host; h != nil && h.HostScale > 1 {
		clock := ""
		if in := r.Input; in != nil {
			clock = fmt.Sprintf(" (its main process on %s at %.2f GHz, every GPU's DataLoader workers busy, against the one GPU's boost clock)", in.CPU, in.ClockGHz)
		}
		fmt.Fprintf(w, "host work: the program's measured host times x %.3f%s\n", h.HostScale, clock)
	}
	if in := r.Input; in != nil {
		printInput(w, in)
	}
	if c := e.Comm; c != nil {
		wire := ""
		if c.WireBytes > 0 {
			wire = fmt.Sprintf(" at %d bytes an element", c.WireBytes)
		}
		fmt.Fprintf(w, "\ncommunication: %d all-reduces (%s, model %s) of %s in all%s, %s from the first start to the last end, %s in flight, %s of it exposed; bus bandwidth %s\n",
			c.AllReduces, c.Algorithm, c.Model, units.Bytes(c.Bytes), wire, units.Seconds(c.Span), units.Seconds(c.InFlight), units.Seconds(c.Exposed), units.Rate(c.BusBW))
		if c.Slowdown > 0 {
			fmt.Fprintf(w, "slowest GPU: replica %d computes %.1f %% slower than the median GPU (speed spread x E[max of %d normals])\n", e.Replica, 100*c.Slowdown, e.Replicas)
		}
	}
}

// printInput prints a row's CPU input pipeline (study.InputTime).
func printInput(w io.Writer, in *study.InputTime) {
	fmt.Fprintf(w, "\ninput pipeline: %s DataLoader, %d workers per GPU on %d cores per rank of %s (%s) at %.2f GHz", in.Backend, in.Workers, in.Cores, in.CPU, in.Platform, in.ClockGHz)
	if in.Modelled {
		div := fmt.Sprintf("%d cores", in.Cores)
		if in.WorkerCores > 0 {
			div = fmt.Sprintf("%.2f cores: the rank's main process keeps its core %.0f %% of the step, spinning until the GPU finishes, and sleeps while it waits for the batch", in.WorkerCores, 100*in.MainBusy)
		}
		fmt.Fprintf(w, ": %s of CPU per image per core, %s per batch (the batch x that / %s), exposed %s (cost per image: %s)\n",
			units.Seconds(in.PerImage), units.Seconds(in.PerBatch), div, units.Seconds(in.Exposed), in.CostSource)
		for _, s := range in.Stages {
			fmt.Fprintf(w, "  %-46s %12s (%s at %.2f GHz on %s: %s)\n", s.Name, units.Seconds(s.AtClock), units.Seconds(s.Seconds), s.GHz, s.CPU, s.Source)
		}
	} else {
		fmt.Fprintf(w, ": not simulated (no cited CPU cost per image)\n")
	}
	fmt.Fprintf(w, "it would hold the GPU back above %s of CPU time per image per core at that clock (the GPU step x %d cores / the batch)\n", units.Seconds(in.BreakEven), in.Cores)
}
