package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/placers"
	"placesim/reports"
	"placesim/study"
	"placesim/workloads/zoo"
)

// TrainOptions are train's parsed flags.
type TrainOptions struct {
	*Factory
	Ctx                                context.Context
	Workload, Cluster, Layout, Planner string
	Format                             string
	// Trace is --trace: a Chrome/Perfetto trace file to write.
	Trace string
	// OutDir is -o/--out: a folder that receives results.json and
	// results.csv with the iteration's one record, which placesim check
	// --baseline replays.
	OutDir string
	// Quiet is -q: no "wrote" line on standard error.
	Quiet bool
}

// trainFormats are train's --format values.
var trainFormats = []string{formatTable, formatJSON, formatCSV}

// trainSystemsHelp lists the system families of devices' registry
// (devices.SystemFamilies, the one source of truth), one a line with its
// size key and description, for train's help.
func trainSystemsHelp() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, f := range devices.SystemFamilies() {
		fmt.Fprintf(tw, "  %s[:%s=N,...]\t%s\n", f.Name, f.Unit, f.Description)
	}
	tw.Flush()
	return b.String()
}

// NewCmdTrain builds train: one iteration of a large decoder-only model
// under a parallel layout.
func NewCmdTrain(f *Factory, runF func(*TrainOptions) error) *cobra.Command {
	opts := &TrainOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "train -w zoo:MODEL -c SYSTEM --layout LAYOUT",
		Short: "Simulate one training iteration of a large transformer under a TP/PP/CP/EP/DP layout",
		Long: `Simulate one iteration of a decoder-only transformer (` + strings.Join(zoo.LLMNames(), ", ") + `;
shape overrides as zoo:NAME?seq=N&layers=N&imbalance=F) under a parallel
layout, by symmetry (one representative GPU per pipeline rank), event by
event: the pipeline schedule's chunks, the tensor/sequence-, context- and
expert-parallel collectives, pipeline sends, and the data-parallel gradient
reduction or sharded-optimizer traffic overlapped with the backward.

It prints iteration time, tokens/s/GPU, model TFLOP/s/GPU, MFU and HFU,
the pipeline bubble, exposed communication per kind (TP, CP, EP, PP, DP)
and the per-GPU memory of every pipeline rank; a layout that does not fit
is an out-of-memory verdict naming the GPU, the task and the bytes (exit 2).

SYSTEM is a system family (without a size, as many nodes or racks as the
layout needs; settings as in placesim list clusters):
` + trainSystemsHelp() + `or a cluster preset or file with at least tp*pp*cp*dp GPUs (rank i on
device i, Megatron's order tp-cp-ep-dp-pp).

LAYOUT: ` + parallel.Syntax + `.

--planner NAME splits the layers over the stages with a placer (e.g.
tarnawski-dp, pipedream) instead of Megatron's even split.

With -o DIR it also writes DIR/results.json (the results schema, the
iteration's one record, as --format json prints it, in a scenario of the
run) and DIR/results.csv (the same record as --format csv prints it);
placesim check --baseline DIR/results.json replays the iteration and
fails on a regression of its time or memory. --format csv prints the
results.csv row on stdout.`,
		Example: `  placesim train -w zoo:llama3.1-70b -c dgx-h100 --layout tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,mbs=1,gbs=128
  placesim train -w zoo:llama3.1-70b -c dgx-h100 --layout dp=64,gbs=64          # out of memory: exit 2
  placesim train -w 'zoo:mixtral-8x7b?imbalance=1.3' -c dgx-h100 --layout tp=2,ep=8,dp=8,sp,zero=1,gbs=256 --format json
  placesim train -w zoo:llama3.1-8b -c dgx-h100:nodes=1 --layout tp=2,pp=2,dp=2,mbs=1,gbs=8 -o out/train && placesim check --baseline out/train/results.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return trainRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Workload, "workload", "w", "", "model: zoo:NAME[?seq=N&layers=N&imbalance=F...] (required)")
	fl.StringVarP(&opts.Cluster, "cluster", "c", "dgx-h100", "system ("+strings.Join(devices.SystemNames(), ", ")+"[:key=value,...]; placesim list clusters), cluster preset or cluster file")
	fl.StringVar(&opts.Layout, "layout", "", "parallel layout, e.g. tp=4,pp=4,cp=2,dp=2,vp=5,sp,zero=1,recompute=selective,mbs=1,gbs=128 (required)")
	fl.StringVar(&opts.Planner, "planner", study.PlannerEven, "stage planner: even (Megatron) or a placer name")
	fl.StringVar(&opts.Format, "format", formatTable, "output format on stdout: "+strings.Join(trainFormats, ", ")+" (json: the record; csv: results.csv's header and row)")
	fl.StringVarP(&opts.OutDir, "out", "o", "", "output directory: results.json and results.csv with the iteration's record (placesim check --baseline DIR/results.json)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no \"wrote\" line on standard error")
	fl.StringVar(&opts.Trace, "trace", "", "write a Chrome/Perfetto trace (JSON) of every pipeline rank's chunks, data-parallel traffic and pipeline sends to this file")
	_ = cmd.MarkFlagRequired("workload")
	_ = cmd.MarkFlagRequired("layout")
	return cmd
}

// layoutFlagNames maps study's layout request fields (LayoutJob,
// SimulateLayout) to train's and compare --layout's flags; planner is
// the flag that names the stage planner.
func layoutFlagNames(planner string) map[string]string {
	return map[string]string{"workload": "--workload", "cluster": "--cluster", "layout": "--layout", "stage planner": planner}
}

// layoutJob is study.LayoutJob of a model, a system and a layout, with
// its errors naming the flags of names (layoutFlagNames); it returns the
// regime the layout was parsed into as well, so that no caller parses it
// twice.
func layoutJob(workload, cluster, layout string, names map[string]string) (*llm.Job, study.Regime, error) {
	regime, err := study.LayoutRegime(layout)
	if err != nil {
		return nil, study.Regime{}, flagNamed(err, names)
	}
	j, err := study.LayoutJob(study.LayoutRequest{Workload: workload, Cluster: cluster, Regime: regime})
	return j, regime, flagNamed(err, names)
}

func trainRun(opts *TrainOptions) error {
	if opts.Format == "text" { // the name before table
		opts.Format = formatTable
	}
	if !slices.Contains(trainFormats, opts.Format) {
		return fmt.Errorf("--format %q (valid: %s)", opts.Format, strings.Join(trainFormats, ", "))
	}
	names := layoutFlagNames("--planner")
	regime, err := study.LayoutRegime(opts.Layout)
	if err != nil {
		return flagNamed(err, names)
	}
	if opts.OutDir != "" {
		// refused before the iteration is simulated
		release, err := claimLayoutOut(opts.OutDir, "train")
		if err != nil {
			return err
		}
		defer release()
	}
	j, r, err := simulateLayout(opts.Ctx, opts.Factory, 0, study.LayoutRequest{Workload: opts.Workload, Cluster: opts.Cluster, Regime: regime, Planner: opts.Planner})
	if err != nil {
		return flagNamed(err, names)
	}
	if opts.Trace != "" {
		b, err := llm.ChromeTrace(r)
		if err != nil {
			return err
		}
		if err := reports.WriteFileAtomic(opts.Trace, b); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	p := layoutPoint(opts.Workload, opts.Cluster, opts.Planner, regime)
	res := layoutResults("train", "train", opts.Workload, opts.Cluster, opts.Layout, []string{p.Placer}, []study.Record{layoutRecord(p, j, r)})
	if opts.OutDir != "" {
		if err := writeLayoutResults(opts.ErrOut, opts.Quiet, opts.OutDir, res, nil); err != nil {
			return err
		}
	}
	if opts.Format == formatCSV {
		if err := study.WriteRecordsCSV(opts.Out, res); err != nil {
			return err
		}
		if r.OOM != nil {
			return &exitError{ExitOOM, r.OOM.Err}
		}
		return nil
	}
	return writeLayoutResult(opts.Out, opts.Format == formatJSON, p, j, r)
}

// writeLayoutResult writes one large-model iteration (train, simulate
// --layout) of point p: its record (layoutRecord) as simulate --format
// json writes a run, or printTrain's text; an out-of-memory verdict is
// exit code ExitOOM after the output.
func writeLayoutResult(w io.Writer, asJSON bool, p study.Point, j *llm.Job, r *llm.Result) error {
	if asJSON {
		rec := layoutRecord(p, j, r)
		if err := reports.OutcomeJSON(w, &rec); err != nil {
			return err
		}
	} else {
		printTrain(w, j, r)
	}
	if r.OOM != nil {
		return &exitError{ExitOOM, r.OOM.Err}
	}
	return nil
}

// layoutPoint is the point of a large-model iteration: the workload and
// cluster as given, the stage planner (study.PlannerEven when none) as
// its placer, the layout's regime.
func layoutPoint(workload, cluster, planner string, regime study.Regime) study.Point {
	if planner == "" {
		planner = study.PlannerEven
	}
	return study.Point{Workload: workload, Cluster: cluster, Placer: planner, Regime: regime.String()}
}

// layoutRecord is the record of a large-model iteration with the detail
// train reports (study.LayoutRecord, study.AddLayoutDetail): the results
// schema's fields (stepTime, throughput in sequences/s, peakMemory and
// capacity per pipeline rank, oom) and, under llm, the layout's figures,
// each rank's memory, the exposed communication per kind and per link
// class and the notes.
func layoutRecord(p study.Point, j *llm.Job, r *llm.Result) study.Record {
	rec := study.LayoutRecord(p, j, r)
	study.AddLayoutDetail(&rec, j, r)
	return rec
}

func printTrain(w io.Writer, j *llm.Job, r *llm.Result) {
	fmt.Fprintf(w, "%s on %s, %d GPUs, layout %s\n", j.Model.Name, j.Cluster.Name, r.GPUs, j.Layout)
	fmt.Fprintf(w, "stages (layers per virtual stage): %v\n", r.Stages)
	fmt.Fprintf(w, "iteration time      %.3f s\n", r.IterationTime)
	fmt.Fprintf(w, "tokens/s/GPU        %.0f\n", r.TokensPerSecPerGPU)
	fmt.Fprintf(w, "model TFLOP/s/GPU   %.1f\n", r.ModelTFLOPsPerGPU)
	fmt.Fprintf(w, "MFU / HFU           %.1f %% / %.1f %%\n", 100*r.MFU, 100*r.HFU)
	fmt.Fprintf(w, "pipeline bubble     %.1f %% of the iteration\n", 100*r.Bubble)
	var parts []string
	for _, k := range llm.CommKinds() {
		parts = append(parts, fmt.Sprintf("%s %.3f s", k, r.Exposed[k]))
	}
	fmt.Fprintf(w, "exposed comm        %s\n", strings.Join(parts, ", "))
	printExposedByLink(w, j, r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tdevice\tGPUs\tweights GB\tgrads GB\toptimizer GB\tactivations GB\tin flight\tworkspace GB\tbuffers GB\tpeak GB\tcapacity GB\t")
	for _, m := range r.Memory {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", m.Rank, m.Device, m.Stands,
			gbOf(m.Weights), gbOf(m.Grads), gbOf(m.Optimizer), gbOf(m.Activations), m.InFlight, gbOf(m.Workspace), gbOf(m.Buffers), gbOf(m.Peak), gbOf(m.Capacity))
	}
	tw.Flush()
	if r.OOM != nil {
		fmt.Fprintf(w, "OUT OF MEMORY: %v\n", r.OOM.Err)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func gbOf(b int64) float64 { return float64(b) / 1e9 }

// compareLLMRun is compare with --layout: the stage planners on one
// large-model job, Megatron's even split first as the baseline.
func compareLLMRun(opts *CompareOptions, layout string) error {
	if opts.Format != "table" && opts.Format != "json" {
		return fmt.Errorf("--format %q with --layout (valid: table, json)", opts.Format)
	}
	j, regime, err := layoutJob(opts.Run.workload, opts.Run.cluster, layout, layoutFlagNames("--placers"))
	if err != nil {
		return err
	}
	names := study.DefaultStagePlanners
	if opts.Placers != "" && opts.Placers != placersAll {
		names = []string{study.PlannerEven}
		for _, n := range strings.Split(opts.Placers, ",") {
			if n = strings.TrimSpace(n); n != "" && n != study.PlannerEven {
				names = append(names, n)
			}
		}
	}
	if opts.OutDir != "" {
		release, err := claimLayoutOut(opts.OutDir, "compare")
		if err != nil {
			return err
		}
		defer release()
	}
	plans, err := runWithin(opts.Ctx, opts.Factory, 0, func(ctx context.Context, reg *placers.Registry) ([]study.StagePlan, error) {
		return study.CompareStagePlanners(ctx, reg, names, j), nil
	})
	if err != nil {
		return err
	}
	// one record per planner
	rows := make([]*study.Record, len(plans))
	for i, p := range plans {
		pt := layoutPoint(opts.Run.workload, opts.Run.cluster, p.Planner, regime)
		pt.Index = i
		rec := study.Record{Point: pt, Error: p.Failure}
		if p.Result != nil {
			rec = layoutRecord(pt, j, p.Result)
			rec.LLM.Stages = p.Stages
			rec.LLM.Notes = append(rec.LLM.Notes, p.Notes...)
		}
		t := p.PlaceTime
		rec.PlaceTime = &t
		rows[i] = &rec
	}
	if opts.OutDir != "" {
		if err := writeLayoutComparison(opts, layout, names, rows); err != nil {
			return err
		}
	}
	if opts.Format == "json" {
		// in compare's JSON ({"results": [...]})
		return reports.JSON(opts.Out, rows)
	}
	w := opts.Out
	fmt.Fprintf(w, "%s on %s, %d GPUs, layout %s: stage planners (baseline: Megatron's even split)\n", j.Model.Name, j.Cluster.Name, j.Layout.GPUs(), j.Layout)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "planner\titeration s\tvs even\tMFU\ttokens/s/GPU\tpeak memory GB\tOOM\tstages")
	var base float64
	if plans[0].Result != nil {
		base = plans[0].Result.IterationTime
	}
	for _, p := range plans {
		if p.Result == nil {
			fmt.Fprintf(tw, "%s\tfailed: %s\t\t\t\t\t\t\n", p.Planner, p.Failure)
			continue
		}
		r := p.Result
		vs := "-"
		if base > 0 {
			vs = fmt.Sprintf("%+.1f %%", 100*(r.IterationTime/base-1))
		}
		oom := "no"
		if r.OOM != nil {
			oom = fmt.Sprintf("rank %d: %.1f > %.1f GB", r.OOM.Rank, gbOf(r.OOM.Bytes), gbOf(r.OOM.Capacity))
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%s\t%.1f %%\t%.0f\t%.1f\t%s\t%v\n", p.Planner, r.IterationTime, vs, 100*r.MFU, r.TokensPerSecPerGPU, gbOf(r.PeakMemory), oom, compactStages(r.Stages))
	}
	tw.Flush()
	for _, p := range plans {
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s: %s\n", p.Planner, n)
		}
	}
	return nil
}

// compactStages prints a long split as "8x7,9" runs.
func compactStages(st []int) string {
	var parts []string
	for i := 0; i < len(st); {
		k := i
		for k < len(st) && st[k] == st[i] {
			k++
		}
		if k-i > 1 {
			parts = append(parts, fmt.Sprintf("%dx%d", k-i, st[i]))
		} else {
			parts = append(parts, fmt.Sprint(st[i]))
		}
		i = k
	}
	return strings.Join(parts, ",")
}

// validateLLMRun is validate on a large-model file (llm.tsv's header).
func validateLLMRun(opts *ValidateOptions) error {
	rows, err := study.ReadLLMValidation(opts.File)
	if err != nil {
		return err
	}
	if opts.Explain != "" {
		return explainLLMRun(opts, rows)
	}
	s := study.ValidateLLM(rows)
	s.File = opts.File
	if opts.Format == "json" {
		if err := writeJSON(opts.Out, s); err != nil {
			return err
		}
	} else {
		w := opts.Out
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "id\tgpus\tlayout\tmeasured\tsimulated\tunit\terror\tMFU")
		for _, r := range s.Rows {
			if r.Failure != "" {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\tfailed\t%s\t\t\n", r.ID, r.GPUs, r.Layout, r.Measured, r.Unit)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%.2f\t%s\t%+.1f %%\t%.1f %%\n", r.ID, r.GPUs, r.Layout, r.Measured, r.Simulated, r.Unit, 100*r.Error, 100*r.MFU)
		}
		tw.Flush()
		for _, r := range s.Rows {
			if r.Failure != "" {
				fmt.Fprintf(w, "%s: %s\n", r.ID, r.Failure)
			}
			if r.OOM != "" {
				fmt.Fprintf(w, "%s: %s\n", r.ID, r.OOM)
			}
			if len(r.Defaults) > 0 {
				fmt.Fprintf(w, "%s: not stated, assumed %s\n", r.ID, strings.Join(r.Defaults, "; "))
			}
		}
		fmt.Fprintf(w, "\n%d rows: median |error| %.1f %%, worst %.1f %% (%s)\n", len(s.Rows), 100*s.MedianError, 100*s.WorstError, s.WorstID)
	}
	if opts.MaxMedian > 0 && s.MedianError > opts.MaxMedian {
		return &exitError{ExitError, fmt.Errorf("median |error| %.1f %% is above --max-median %.1f %%", 100*s.MedianError, 100*opts.MaxMedian)}
	}
	if opts.MaxWorst > 0 && s.WorstError > opts.MaxWorst {
		return &exitError{ExitError, fmt.Errorf("worst |error| %.1f %% (%s) is above --max-worst %.1f %%", 100*s.WorstError, s.WorstID, 100*opts.MaxWorst)}
	}
	for _, r := range s.Rows {
		if r.Failure != "" {
			return &exitError{ExitError, errors.New("some rows could not be simulated")}
		}
	}
	return nil
}
