package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"placesim/engine"
	"placesim/internal/units"
	"placesim/reports"
	"placesim/study"
)

// shardFlags select a shard explicitly or from a batch system's index.
type shardFlags struct {
	shard  string
	shards int
}

func (f *shardFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard i/N of the points (default: JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID with --shards)")
	cmd.Flags().IntVar(&f.shards, "shards", 0, "number of shards when the index comes from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID")
}

func (f *shardFlags) resolve() (study.Shard, error) {
	if f.shard != "" {
		return study.ParseShard(f.shard)
	}
	sh, ok, err := study.ShardFromEnv(f.shards)
	if err != nil {
		return study.Shard{}, err
	}
	if !ok {
		if f.shards != 0 {
			return study.Shard{}, fmt.Errorf("--shards %d without a shard index: set JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID, or give --shard i/N", f.shards)
		}
		return study.Shard{}, nil
	}
	return sh, nil
}

// runScenario runs s into dir with a progress bar on errOut and writes the
// results, a CSV and a table. It returns the results written.
func runScenario(ctx context.Context, f *Factory, command string, s *study.Scenario, dir string, sh study.Shard, quiet bool, workers int, optFlags []string, maxMemory string) (*study.Results, error) {
	reg, err := f.Registry()
	if err != nil {
		return nil, err
	}
	local, err := parseOpts(optFlags)
	if err != nil {
		return nil, err
	}
	maxMem, err := parseMaxMemory(maxMemory, engine.DefaultMaxMemory)
	if err != nil {
		return nil, err
	}
	if workers < 0 {
		return nil, fmt.Errorf("--workers %d (valid: 0 for the number of cores, or >= 1)", workers)
	}
	opts := study.RunOptions{Registry: reg, Dir: dir, Shard: sh, Workers: workers, Options: local, MaxMemory: maxMem, Stamp: study.NewStamp(command)}
	opts.Notice = func(msg string) { fmt.Fprintln(f.ErrOut, "placesim:", msg) }
	opts.Warn = func(workload string, ws []string) { printWarnings(f.ErrOut, workload, ws) }
	prog := newProgress(f, command+" "+s.Name, 0, quiet)
	pointName := func(p study.Point) string { return fmt.Sprintf("point %d (%s, %s)", p.Index, p.Placer, p.Regime) }
	opts.Start = func(p study.Point) { prog.started(pointName(p)) }
	opts.Progress = func(done, total int, p study.Point) {
		prog.setTotal(total)
		prog.finished(pointName(p), done)
	}
	res, err := study.RunToDir(ctx, s, opts)
	prog.close()
	if err != nil {
		return nil, flagNamed(err, map[string]string{"placer options": "--opt"})
	}
	if res.Shard == "" {
		if err := writeResultViews(ctx, dir, res); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(f.ErrOut, "wrote %s (%d points)\n", opts.ResultsFile(), len(res.Records))
	return res, nil
}

// writeResultViews writes results.csv, table.txt and, for a sweep, its
// charts beside results.json.
func writeResultViews(ctx context.Context, dir string, res *study.Results) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if b := study.Scoreboard(res); b != nil {
		var sb strings.Builder
		study.WriteScoreboard(&sb, b)
		if err := reports.WriteFileAtomic(filepath.Join(dir, "scoreboard.txt"), []byte(sb.String())); err != nil {
			return err
		}
	}
	// streamed into their files: built in memory first, the CSV and the
	// table of a merge of 1,000,000 records took 500 MB (issue 31)
	if err := reports.WriteFileAtomicFunc(filepath.Join(dir, "results.csv"), func(w io.Writer) error { return study.WriteRecordsCSV(w, res) }); err != nil {
		return err
	}
	if err := reports.WriteFileAtomicFunc(filepath.Join(dir, "table.txt"), func(w io.Writer) error { study.WriteRecordsTable(w, res); return nil }); err != nil {
		return err
	}
	figs, err := study.SweepFigures(res)
	if err != nil {
		return err
	}
	figs = append(figs, study.ScenarioFigures(res)...)
	for _, f := range figs {
		f.Caption = res.Stamp.String()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err = reports.WriteFiguresContext(ctx, dir, figs); err != nil || len(figs) == 0 {
		return err
	}
	var index strings.Builder
	for _, f := range figs {
		fmt.Fprintf(&index, "%s.png/.svg\t%s\n", f.Name, f.Title)
	}
	return reports.WriteFileAtomic(filepath.Join(dir, "figures.txt"), []byte(index.String()))
}

// RunOptions are run's parsed flags and surroundings.
type RunOptions struct {
	*Factory
	Ctx      context.Context
	Scenario string
	OutDir   string
	scenarioFlags
}

// scenarioFlags are the flags run and sweep share: how a scenario's
// points run (--quiet, --workers, --shard, --opt, --max-memory), whether a
// failed point fails the command (--allow-failures) and what it prints
// (--format).
type scenarioFlags struct {
	Quiet   bool
	Workers int
	Shard   shardFlags
	Opts    []string
	// AllowFailures: exit 0 even when points fail.
	AllowFailures bool
	// MaxMemory is --max-memory.
	MaxMemory string
	// Format is --format: what the command prints on stdout.
	Format formatFlag
}

// register adds the flags to cmd, formatHelp saying what --format prints.
func (sf *scenarioFlags) register(cmd *cobra.Command, formatHelp string) {
	cmd.Flags().BoolVarP(&sf.Quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().IntVar(&sf.Workers, "workers", 0, "points run in parallel (default: number of cores)")
	sf.Shard.register(cmd)
	registerLocalOpts(cmd, &sf.Opts)
	registerMaxMemory(cmd, &sf.MaxMemory)
	cmd.Flags().BoolVar(&sf.AllowFailures, "allow-failures", false, "exit 0 even when points fail (default: exit 1, naming how many failed and why; a point that runs out of memory is a result, not a failure)")
	sf.Format.register(cmd, formatHelp, formatTable, formatJSON, formatCSV)
}

// run plays scenario s as command (run, sweep) into outDir, this
// process's shard of it, then prints the results in format (table: the
// table func's view of them) and says how many points failed (an error
// unless --allow-failures).
func (sf *scenarioFlags) run(ctx context.Context, f *Factory, command string, s *study.Scenario, outDir, format string, table func(*study.Results)) error {
	sh, err := sf.Shard.resolve()
	if err != nil {
		return err
	}
	release, err := claimOutDir("--out", outDir, command, sh)
	if err != nil {
		return err
	}
	defer release()
	res, err := runScenario(ctx, f, command, s, outDir, sh, sf.Quiet, sf.Workers, sf.Opts, sf.MaxMemory)
	if err != nil {
		return err
	}
	if err := writeResults(f.Out, format, res, func() { table(res) }); err != nil {
		return err
	}
	return failedPoints(f.ErrOut, command, res, sf.AllowFailures, sf.Quiet)
}

// NewCmdRun builds run; runF, when not nil, replaces runRun.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "run SCENARIO.yaml [-o DIR]",
		Short: "Run a scenario file: workloads x clusters x settings x placers x seeds",
		Long: `Run every point of a scenario (see scenarios/ and the README for the schema)
in parallel over local cores and write results.json (deterministic: the same
scenario gives the same records; SOURCE_DATE_EPOCH fixes its stamp's date),
results.timings.json (placement wall times),
results.csv and table.txt into DIR (default out/run/NAME for NAME.yaml; a
folder another command wrote into is refused). Finished points are journaled: a killed
run re-run with the same DIR completes only the missing points. With --shard
i/N (or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID) only every N-th point
runs; combine the shards with 'placesim merge'. Ctrl-C stops within a
second, exit 130, with the finished points journaled and no results file.`,
		Example: `  placesim run scenarios/whatif-nvlink.yaml --out out/whatif
  placesim run scenarios/fastt-table1.yaml --out out/fastt --shard 2/8`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Scenario = cmd.Context(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "", "output directory (default: out/run/NAME, NAME the scenario file's name without its extension)")
	opts.scenarioFlags.register(cmd, resultsFormatHelp)
	return cmd
}

// resultsFormatHelp says what run's and sweep's --format prints.
const resultsFormatHelp = " (table: the records and the scoreboard or sweep summary; json: results.json's content; csv: results.csv's)"

func runRun(opts *RunOptions) error {
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	s, err := study.LoadScenario(opts.Scenario)
	if err != nil {
		return err
	}
	if opts.OutDir == "" {
		opts.OutDir = defaultRunDir(opts.Scenario)
	}
	return opts.scenarioFlags.run(opts.Ctx, opts.Factory, "run", s, opts.OutDir, format, func(res *study.Results) {
		study.WriteRecordsTable(opts.Out, res)
		printScoreboard(opts.Out, res)
	})
}

// defaultRunDir is run's output folder for a scenario file: out/run/NAME,
// NAME the file's base name without its extension (chosen by the person
// who names the file on the command line, never by the file's contents).
func defaultRunDir(scenarioPath string) string {
	base := filepath.Base(scenarioPath)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || name == "." || name == ".." {
		name = "scenario"
	}
	return filepath.Join("out", "run", name)
}

// SweepOptions are sweep's parsed flags and surroundings.
type SweepOptions struct {
	*Factory
	Ctx                                                context.Context
	Workload, Cluster, Placers, Vary, Baseline, OutDir string
	// Timeout is --timeout, per placement.
	Timeout time.Duration
	Seeds   []uint
	scenarioFlags
	// Pipeline and Regimes are the regime flags (see compare).
	Pipeline pipelineFlags
	Regimes  string
	Changed  func(name string) bool
	// Layout, when set, sweeps one iteration of a large model under this
	// parallel layout instead of placers (sweep_llm.go).
	Layout string
	// Scaling is --scaling (weak or strong) for --vary gpus=... with
	// --layout.
	Scaling string
}

// NewCmdSweep builds sweep; runF, when not nil, replaces sweepRun.
func NewCmdSweep(f *Factory, runF func(*SweepOptions) error) *cobra.Command {
	opts := &SweepOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "sweep --workload W --cluster C --placers a,b --vary PARAM=RANGE",
		Short: "What-if sweep: re-place and simulate over a range of one setting",
		Long: `Vary one setting over a range, re-placing for every point (placers see the
new costs), and write results and a plot of step time per placer against the
setting (with --baseline, also the improvement over that placer).

PARAM: link.FAMILY|KIND.bandwidth|latency, device.KIND|CLASS.flops|membw|memory,
or batch. RANGE: LO..HI:N in log steps ("0.1x..10x:7" scales; "32..512:5"
values) or a list "a,b,c".

` + regimeHelp,
		Example: `  placesim sweep -w 'zoo:mlp?training=true' -c 2xV100-nvlink+cpu --placers single,round-robin \
      --vary link.nvlink.bandwidth=0.1x..10x:7 --out out/sweep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx, opts.Changed = cmd.Context(), cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return sweepRun(opts)
		},
	}
	opts.Pipeline.register(cmd)
	cmd.Flags().StringVar(&opts.Regimes, "regimes", "", "sweep in each of these regimes, comma-separated (e.g. step,1f1b:16,dp:4)")
	cmd.Flags().StringVar(&opts.Layout, "layout", "", "sweep a large model's iteration under this parallel layout (as train; -c may list clusters separated by ';'; --vary system.KEY, precision or layout.KEY)")
	cmd.Flags().StringVar(&opts.Scaling, "scaling", "weak", "with --layout and --vary gpus=N,...: weak (the global batch grows with the data-parallel size) or strong (the global batch stays)")
	cmd.Flags().StringVarP(&opts.Workload, "workload", "w", "", "workload: zoo:NAME[?params] or a file (required)")
	cmd.Flags().StringVarP(&opts.Cluster, "cluster", "c", "4xV100-pcie", "cluster preset or file")
	cmd.Flags().StringVar(&opts.Placers, "placers", placersAll, placersHelp)
	cmd.Flags().StringVar(&opts.Vary, "vary", "", "PARAM=RANGE to sweep (required)")
	cmd.Flags().StringVar(&opts.Baseline, "baseline", "", "placer to measure improvement against")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time limit per placement (> 0)")
	cmd.Flags().UintSliceVar(&opts.Seeds, "seeds", []uint{1}, "seeds")
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "out/sweep", "output directory")
	opts.scenarioFlags.register(cmd, resultsFormatHelp+"; with --layout, json: its results.json, a record per point, csv: one line per point")
	_ = cmd.MarkFlagRequired("workload")
	_ = cmd.MarkFlagRequired("vary")
	return cmd
}

func sweepRun(opts *SweepOptions) error {
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	if opts.Layout != "" {
		return sweepLLMRun(opts, format)
	}
	param, rng, ok := strings.Cut(opts.Vary, "=")
	if !ok {
		return fmt.Errorf("--vary %q: want PARAM=RANGE, e.g. link.nvlink.bandwidth=0.1x..10x:7", opts.Vary)
	}
	if opts.Timeout <= 0 {
		return fmt.Errorf("--timeout %v (valid: a positive duration such as 90s or 10m)", opts.Timeout)
	}
	placerNames, err := splitPlacers(opts.Placers)
	if err != nil {
		return err
	}
	s := &study.Scenario{Name: "sweep", Workloads: []string{opts.Workload}, Clusters: []string{opts.Cluster},
		Placers: placerNames, Vary: &study.Vary{Param: param, Range: rng}, Baseline: opts.Baseline, Timeout: opts.Timeout.String()}
	for _, x := range opts.Seeds {
		s.Seeds = append(s.Seeds, uint64(x))
	}
	changed := opts.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	rs, ar, err := opts.Pipeline.parse(changed, opts.Regimes)
	if err != nil {
		return err
	}
	s.Regimes, s.AllReduce = study.RegimeList(rs), ar
	return opts.scenarioFlags.run(opts.Ctx, opts.Factory, "sweep", s, opts.OutDir, format, func(res *study.Results) { study.WriteSweepSummary(opts.Out, res) })
}

// writeResults prints a scenario's results on w in format: table (a
// shard's partial results print nothing: merge them), or the content of
// results.json (json) or results.csv (csv), a shard's too.
func writeResults(w io.Writer, format string, res *study.Results, table func()) error {
	switch format {
	case formatJSON:
		return study.EncodeResults(w, res)
	case formatCSV:
		return study.WriteRecordsCSV(w, res)
	}
	if res.Shard == "" {
		table()
	}
	return nil
}

// failedPoints returns an error saying how many points failed and why
// (the most frequent reasons first), or nil when none did or allow is set.
func failedPoints(w io.Writer, command string, res *study.Results, allow, quiet bool) error {
	errs := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		errs = append(errs, r.Error)
	}
	return failures(w, command, "points", errs, allow, quiet)
}

// failures is a command's summary line and exit status over its runs'
// errors ("" for a run that did not fail): a summary on w (unless quiet),
// and an error naming how many failed and the commonest reasons, or, with
// allow, the same said on w and no error.
func failures(w io.Writer, command, noun string, errs []string, allow, quiet bool) error {
	count := map[string]int{}
	n, timeouts := 0, 0
	for _, e := range errs {
		if e != "" {
			n++
			count[e]++
			if strings.HasPrefix(e, "timed out") {
				timeouts++
			}
		}
	}
	if !quiet {
		line := fmt.Sprintf("%s: %d %s, %d ok, %d failed", command, len(errs), noun, len(errs)-n, n)
		if timeouts > 0 {
			line += fmt.Sprintf(" (%d timed out)", timeouts)
		}
		fmt.Fprintln(w, line)
	}
	if n == 0 {
		return nil
	}
	reasons := make([]string, 0, len(count))
	for e := range count {
		reasons = append(reasons, e)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if count[reasons[i]] != count[reasons[j]] {
			return count[reasons[i]] > count[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	var parts []string
	for _, e := range reasons[:min(len(reasons), 3)] {
		parts = append(parts, fmt.Sprintf("%d x %s", count[e], e))
	}
	if len(reasons) > 3 {
		parts = append(parts, fmt.Sprintf("%d other reasons", len(reasons)-3))
	}
	if allow {
		fmt.Fprintf(w, "%s: %d of %d %s failed (exit 0: --allow-failures): %s\n", command, n, len(errs), noun, strings.Join(parts, "; "))
		return nil
	}
	return fmt.Errorf("%d of %d %s failed (--allow-failures to exit 0 anyway): %s", n, len(errs), noun, strings.Join(parts, "; "))
}

// MergeOptions are merge's parsed flags and surroundings.
type MergeOptions struct {
	*Factory
	Ctx    context.Context
	Parts  []string
	OutDir string
	// MaxMemory is --max-memory: the memory the merged records may take
	// (study.MergeOptions.MaxMemory).
	MaxMemory string
	// Format is --format table|json (and its --json shorthand).
	Format formatFlag
}

// NewCmdMerge builds merge; runF, when not nil, replaces mergeRun.
func NewCmdMerge(f *Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "merge SHARD_RESULTS.json... --out DIR",
		Short: "Combine the results of a sharded run into one results.json",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Parts = cmd.Context(), args
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", filepath.Join("out", "merge"), "output directory")
	cmd.Flags().StringVar(&opts.MaxMemory, "max-memory", "0", fmt.Sprintf("memory the merged records may take (0: %s, which holds a merge of %d points); a merge needing more is refused before its records are read", units.Bytes(study.DefaultMergeMemory), study.MaxPoints))
	opts.Format.register(cmd, " (table: one line on stderr; json: one object on stdout: shards, points, results)", formatTable, formatJSON)
	return cmd
}

// mergeSoftMemory is the Go heap's soft limit during merge (unless
// GOMEMLIMIT sets one): the collector then runs before the heap doubles
// past the records it holds (issue 31: merging 400,000 records held
// about 440 MB live, and with the default GOGC the heap grew to 1.6 GB
// before this limit and the streamed results.json; a merge of 1,000,000
// records holds about 460 MB; see BenchmarkMergePeakMemory). It is a
// target, not a cap: --max-memory (study.DefaultMergeMemory) bounds
// what the records may take.
const mergeSoftMemory = 640 << 20

func mergeRun(opts *MergeOptions) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(mergeSoftMemory))
	}
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	budget, err := parseMaxMemory(opts.MaxMemory, study.DefaultMergeMemory)
	if err != nil {
		return err
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	// each shard is read as a stream and each record checked and stored
	// at its index as it is decoded: no file and no record is held twice
	// (issue 31)
	res, err := study.MergeFiles(opts.Ctx, opts.Parts, study.MergeOptions{Registry: reg, MaxMemory: budget})
	if err != nil {
		return flagNamed(err, map[string]string{"max memory": "--max-memory"})
	}
	if err := study.CheckDataOptions(reg, res.Scenario.PlacerOptions); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	nParts := len(opts.Parts)
	if err := study.ClaimDir(opts.OutDir, "merge"); err != nil {
		return err
	}
	release, err := claimOutDir("--out", opts.OutDir, "merge", study.Shard{})
	if err != nil {
		return err
	}
	defer release()
	if err := reports.PrepareDir(opts.OutDir); err != nil {
		return err
	}
	if err := opts.Ctx.Err(); err != nil {
		return err
	}
	res.Stamp = study.NewStamp("merge")
	if err := study.WriteResults(filepath.Join(opts.OutDir, "results.json"), res, nil); err != nil {
		return err
	}
	if err := writeResultViews(opts.Ctx, opts.OutDir, res); err != nil {
		return err
	}
	out := filepath.Join(opts.OutDir, "results.json")
	if format == formatJSON {
		return writeJSON(opts.Out, struct {
			Shards  int    `json:"shards"`
			Points  int    `json:"points"`
			Results string `json:"results"`
		}{nParts, len(res.Records), out})
	}
	fmt.Fprintf(opts.ErrOut, "merged %d shards, %d points into %s\n", nParts, len(res.Records), out)
	return nil
}

// Exit codes of check besides ExitOK and ExitError (a regression, or any
// other error): each way it fails closed has its own.
const (
	ExitBadTolerance  = 3
	ExitEmptyBaseline = 4
	ExitUnmatched     = 5
	ExitFormatVersion = 6
	ExitUntrusted     = 7
)

// CheckOptions are check's parsed flags and surroundings.
type CheckOptions struct {
	*Factory
	Ctx       context.Context
	Baseline  string
	Tolerance string
	Workers   int
	Opts      []string
	MaxMemory string
	// Pipeline and Regimes select the regimes checked (default: all the
	// baseline's).
	Pipeline pipelineFlags
	Regimes  string
	Changed  func(name string) bool
	// OneSided is --one-sided: report only changes for the worse.
	OneSided bool
	// Quiet is -q: no progress.
	Quiet bool
	// Format is --format table|json (and its --json shorthand).
	Format formatFlag
}

// NewCmdCheck builds check; runF, when not nil, replaces checkRun.
func NewCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "check --baseline results.json [--tolerance 2%] [--one-sided]",
		Short: "Re-run a recorded scenario and fail on changes beyond the tolerance",
		Long: `Re-run the scenario recorded in a results.json and exit 1, naming each
placer x workload point whose simulated step time or peak memory got worse
beyond the tolerance (REGRESSION), that newly runs out of memory or fails,
or whose step time or peak memory got better beyond the tolerance
(IMPROVEMENT): a result that got faster unexplained is as suspicious as one
that got slower, so re-record the baseline once a change is understood.
--one-sided reports only the changes for the worse. Usable as a CI step.
A point is compared only with the same point (placer, workload, cluster,
settings, seed) in the same execution regime; the regime flags
(--pipeline, --microbatches, --stages, --recompute, --data-parallel, or
--regimes LIST) check only the baseline's points in those regimes.

A large-model point (regime layout:..., as sweep --layout, a scenario's
layout, train and search write them) is replayed from its record: its
model, its system with its system.KEY settings, the layout as played and
its stage planner, and its iteration time and peak memory are compared.

It fails closed: anything that would make the check meaningless is an
error with its own exit code, never a pass.

Exit codes:
  0    every baseline point re-ran within the tolerance
  1    regressions or improvements (each printed), or another error
       (unreadable baseline, a baseline point recorded twice or with a
       step time that is not > 0...)
  3    invalid --tolerance (NaN, infinite, negative, above 1000%, not a number)
  4    the baseline has no records
  5    baseline points that re-running its scenario does not produce, or a
       layout record lacking a field its replay needs (named)
  6    the baseline is not a results file of this result format version
  7    the baseline's scenario names an executable or a directory
       (placerOptions such as metis.bin): those come only from --opt or the
       environment, never from a data file
  130  interrupted (Ctrl-C)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx, opts.Changed = cmd.Context(), cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Baseline, "baseline", "", "results.json of a previous run (required)")
	cmd.Flags().StringVar(&opts.Tolerance, "tolerance", "2%", "allowed relative change either way (only worsening with --one-sided): a percentage (2%) or a fraction (0.02) in [0, 1000%]")
	cmd.Flags().BoolVar(&opts.OneSided, "one-sided", false, "report only changes for the worse: a step time or peak memory below the baseline's by more than the tolerance passes")
	cmd.Flags().IntVar(&opts.Workers, "workers", 0, "points run in parallel (default: number of cores)")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	registerLocalOpts(cmd, &opts.Opts)
	registerMaxMemory(cmd, &opts.MaxMemory)
	opts.Pipeline.register(cmd)
	cmd.Flags().StringVar(&opts.Regimes, "regimes", "", "check only the baseline's points in these regimes, comma-separated (e.g. step,1f1b:16)")
	opts.Format.register(cmd, " (json: one object: ok, oneSided, points, regressions, improvements, failed, timedOut; the exit codes are the same)", formatTable, formatJSON)
	_ = cmd.MarkFlagRequired("baseline")
	return cmd
}

// registerLocalOpts adds --opt to a command that runs a scenario: the
// command line's placer options, the only source of options that name an
// executable or a directory.
func registerLocalOpts(cmd *cobra.Command, opts *[]string) {
	cmd.Flags().StringArrayVar(opts, "opt", nil, "placer option key=value or PLACER.key=value (repeatable), added to the scenario's; the only way to name an executable or directory (e.g. --opt metis.bin=/usr/bin/gpmetis)")
}

// checkExit maps check's fail-closed errors to their exit codes.
func checkExit(err error) error {
	for _, m := range []struct {
		target error
		code   int
	}{
		{study.ErrBadTolerance, ExitBadTolerance}, {study.ErrEmptyBaseline, ExitEmptyBaseline},
		{study.ErrUnmatched, ExitUnmatched}, {study.ErrResultsVersion, ExitFormatVersion}, {study.ErrUntrusted, ExitUntrusted},
	} {
		if errors.Is(err, m.target) {
			return &exitError{m.code, err}
		}
	}
	return err
}

func checkRun(opts *CheckOptions) error {
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	t, err := study.ParseTolerance(opts.Tolerance)
	if err != nil {
		return checkExit(fmt.Errorf("--tolerance: %w", err))
	}
	local, err := parseOpts(opts.Opts)
	if err != nil {
		return err
	}
	maxMem, err := parseMaxMemory(opts.MaxMemory, engine.DefaultMaxMemory)
	if err != nil {
		return err
	}
	// the baseline's records are held within study.DefaultMergeMemory
	base, err := study.ReadResultsWithin(opts.Ctx, opts.Baseline, 0)
	if err != nil {
		return checkExit(err)
	}
	changed := opts.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	rs, _, err := opts.Pipeline.parse(changed, opts.Regimes)
	if err != nil {
		return err
	}
	if rs != nil {
		if base, err = study.SelectRegimes(base, rs); err != nil {
			return fmt.Errorf("baseline %q: %w", opts.Baseline, err)
		}
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	ro := study.RunOptions{Registry: reg, Workers: opts.Workers, Options: local, MaxMemory: maxMem}
	ro.Warn = func(workload string, ws []string) { printWarnings(opts.ErrOut, workload, ws) }
	prog := newProgress(opts.Factory, "check", len(base.Records), opts.Quiet)
	ro.Start = func(p study.Point) { prog.started(fmt.Sprintf("point %d (%s, %s)", p.Index, p.Placer, p.Regime)) }
	ro.Progress = func(done, total int, p study.Point) {
		prog.setTotal(total)
		prog.finished(fmt.Sprintf("point %d (%s, %s)", p.Index, p.Placer, p.Regime), done)
	}
	sides := study.BothSides
	if opts.OneSided {
		sides = study.WorseOnly
	}
	changes, cur, err := study.CheckWith(opts.Ctx, base, ro, t, sides)
	prog.close()
	if err != nil {
		return checkExit(flagNamed(fmt.Errorf("baseline %q: %w", opts.Baseline, err), map[string]string{"placer options": "--opt"}))
	}
	var regs, better []study.Regression
	for _, c := range changes {
		if c.Better {
			better = append(better, c)
		} else {
			regs = append(regs, c)
		}
	}
	// a point that failed (or timed out) now did not regress in its
	// figures: say so, as "6 of 6 points regressed" alone misled (issue 31)
	failed, timedOut := 0, 0
	for _, r := range regs {
		if strings.HasPrefix(r.Reason, "now fails: ") {
			failed++
			if strings.Contains(r.Reason, "timed out") {
				timedOut++
			}
		}
	}
	if format == formatJSON {
		type regression struct {
			Key    string `json:"key"`
			Reason string `json:"reason"`
		}
		list := func(rs []study.Regression) []regression {
			out := []regression{}
			for _, r := range rs {
				out = append(out, regression{r.Key, r.Reason})
			}
			return out
		}
		v := struct {
			OK           bool         `json:"ok"`
			Baseline     string       `json:"baseline"`
			Tolerance    string       `json:"tolerance"`
			OneSided     bool         `json:"oneSided"`
			Points       int          `json:"points"`
			Regressions  []regression `json:"regressions"`
			Improvements []regression `json:"improvements"`
			Failed       int          `json:"failed"`
			TimedOut     int          `json:"timedOut"`
		}{OK: len(changes) == 0, Baseline: opts.Baseline, Tolerance: opts.Tolerance, OneSided: opts.OneSided, Points: len(cur.Records),
			Regressions: list(regs), Improvements: list(better), Failed: failed, TimedOut: timedOut}
		if len(changes) > 0 {
			v.Points = len(base.Records)
		}
		if err := writeJSON(opts.Out, v); err != nil {
			return err
		}
	}
	if len(changes) == 0 {
		if format != formatJSON {
			within := "within"
			if opts.OneSided {
				within = "no worse than"
			}
			fmt.Fprintf(opts.Out, "ok: %s %s %s of %s\n", points(len(cur.Records)), within, opts.Tolerance, opts.Baseline)
		}
		return nil
	}
	if format != formatJSON {
		for _, c := range changes {
			tag := "REGRESSION"
			if c.Better {
				tag = "IMPROVEMENT"
			}
			fmt.Fprintf(opts.Out, "%s %s\n", tag, c)
		}
	}
	detail := ""
	switch {
	case timedOut > 0:
		detail = fmt.Sprintf(" (%d of them now fail, %d by timing out: raise the scenario's timeout, or check on the machine the baseline ran on)", failed, timedOut)
	case failed > 0:
		detail = fmt.Sprintf(" (%d of them now fail)", failed)
	}
	var parts []string
	if len(regs) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %s regressed beyond %s%s", changedPoints(regs), points(len(base.Records)), opts.Tolerance, detail))
	}
	if len(better) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %s improved beyond %s: explain it and re-record the baseline (--one-sided checks only for the worse)", changedPoints(better), points(len(base.Records)), opts.Tolerance))
	}
	return &exitError{ExitError, errors.New(strings.Join(parts, "; "))}
}

// changedPoints is the number of points rs names: a point whose step
// time and peak memory both moved is two Regressions but one point of
// "N of M points regressed".
func changedPoints(rs []study.Regression) int {
	keys := map[string]bool{}
	for _, r := range rs {
		keys[r.Key] = true
	}
	return len(keys)
}

// points is "1 point" or "N points".
func points(n int) string {
	if n == 1 {
		return "1 point"
	}
	return fmt.Sprintf("%d points", n)
}
