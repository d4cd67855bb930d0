package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"placesim/placers"
	"placesim/reports"
	"placesim/study"
)

// CompareOptions are compare's parsed flags and surroundings.
type CompareOptions struct {
	*Factory
	Ctx                            context.Context
	Run                            runFlags
	Pipeline                       pipelineFlags
	Placers, Format, OutDir, Gantt string
	// Regimes is --regimes: several regimes to compare in.
	Regimes string
	// Skip is --skip: placers left out of the default set.
	Skip string
	// Layout is --layout: compare stage planners on a large-model job
	// (see train).
	Layout string
	// Changed reports whether a flag was given on the command line.
	Changed func(name string) bool
	Timeout time.Duration
	// Jobs is --workers (--jobs, deprecated).
	Jobs  int
	Quiet bool
	// AllowFailures: exit 0 even when runs fail.
	AllowFailures bool
}

var compareFormats = []string{"table", "csv", "json"}

// NewCmdCompare builds compare; runF, when not nil, replaces compareRun.
func NewCmdCompare(f *Factory, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "compare --workload W --cluster C [--placers a,b,c] [--out DIR]",
		Short: "Run several placers on one workload and cluster and compare them",
		Long: `Run every placer (default: all registered placers that need no options) on
the workload and cluster, in parallel, simulate each plan, and print a table
sorted by step time with throughput, peak memory and out-of-memory. A placer
that fails, panics or overruns --timeout is a row with its error.

With --out DIR it also writes results.json, results.csv, table.txt, charts
(PNG and SVG: step time, placement time, peak memory, and for the best run,
or --gantt PLACER, a Gantt chart and memory timelines), a Chrome/Perfetto
trace.json and a self-contained report.html. Files are replaced atomically;
Ctrl-C stops the command within a second, exit 130, with no file of the
interrupted run in DIR.

A progress bar goes to stderr when it is a terminal (not with --quiet).

` + regimeHelp,
		Example: `  placesim compare -w zoo:mlp -c 4xV100-pcie
  placesim compare -w 'zoo:mlp?training=true' -c 4xV100-pcie --out out/
  placesim compare -w zoo:mlp -c 8xV100-nvlink --placers single,round-robin --format json
  placesim compare -w 'zoo:transformer?granularity=op&training=true' -c 4xV100-pcie --pipeline 1f1b --microbatches 16
  placesim compare -w 'zoo:mlp?training=true' -c 4xV100-pcie --regimes step,1f1b:16,dp:4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx, opts.Changed = cmd.Context(), cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	opts.Run.register(cmd, "4xV100-pcie")
	opts.Pipeline.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&opts.Layout, "layout", "", "compare stage planners on a large transformer (-w zoo:llama3.1-405b, -c dgx-h100) under this parallel layout (see placesim train); --placers picks the planners")
	fl.StringVar(&opts.Skip, "skip", "", "comma-separated placers to leave out of the default set (without --placers), e.g. those whose solver is not installed")
	fl.StringVar(&opts.Regimes, "regimes", "", "compare in each of these regimes, comma-separated (e.g. step,1f1b:16,dp:4; the grammar is in the text above); adds the placer x regime matrix")
	fl.StringVar(&opts.Placers, "placers", placersAll, placersHelp)
	fl.StringVar(&opts.Format, "format", "table", "output format on stdout: "+strings.Join(compareFormats, ", "))
	fl.StringVarP(&opts.OutDir, "out", "o", "", "directory to write results, charts, trace.json and report.html into")
	fl.StringVar(&opts.Gantt, "gantt", "", "placer whose run the Gantt chart, memory timelines and trace show (default: the best)")
	fl.DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "time limit per placer (placement and simulation); 0: none")
	fl.IntVar(&opts.Jobs, "workers", 0, "placers run at once (default: the number of cores)")
	fl.IntVar(&opts.Jobs, "jobs", 0, "placers run at once (default: the number of cores)")
	_ = fl.MarkHidden("jobs") // deprecated: compareRun says so
	fl.BoolVar(&opts.AllowFailures, "allow-failures", false, "exit 0 even when runs fail or time out (default: exit 1, naming how many failed and why; a run that runs out of memory is a result, not a failure)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar or notes on stderr")
	return cmd
}

func compareRun(opts *CompareOptions) error {
	if !slices.Contains(compareFormats, opts.Format) {
		return fmt.Errorf("--format %q (valid: %s)", opts.Format, strings.Join(compareFormats, ", "))
	}
	if opts.Layout != "" {
		return compareLLMRun(opts, opts.Layout)
	}
	if opts.Timeout < 0 {
		return fmt.Errorf("--timeout %v is negative (valid: 0 for none, or a duration such as 30s)", opts.Timeout)
	}
	workersFlag := "--workers"
	if opts.Changed != nil && opts.Changed("jobs") {
		workersFlag = "--jobs"
	}
	if opts.Jobs < 0 {
		return fmt.Errorf("%s %d is negative (valid: 0 for the number of cores, or >= 1)", workersFlag, opts.Jobs)
	}
	if workersFlag == "--jobs" && !opts.Quiet {
		fmt.Fprintln(opts.ErrOut, "placesim: --jobs is deprecated, use --workers")
	}
	in, spec, err := opts.Run.request()
	if err != nil {
		return err
	}
	changed := opts.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	regimes, ar, err := opts.Pipeline.parse(changed, opts.Regimes)
	if err != nil {
		return err
	}
	var names []string
	if changed("placers") && strings.TrimSpace(opts.Placers) != placersAll {
		if names, err = splitPlacers(opts.Placers); err != nil {
			return err
		}
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	if opts.Skip != "" {
		if names, err = skipPlacers(reg, names, opts.Skip); err != nil {
			return err
		}
	}
	req := study.CompareRequest{Inputs: in, Out: opts.OutDir, Gantt: opts.Gantt, Regimes: regimes, AllReduce: ar,
		CompareSpec: study.CompareSpec{Placers: names, Base: spec, Workers: opts.Jobs, Timeout: opts.Timeout}}
	nReg := max(1, len(regimes))
	prog := newProgress(opts.Factory, "compare", nReg*max(1, len(names)), opts.Quiet)
	runName := func(placer, regime string) string {
		if nReg > 1 {
			return placer + " in " + regime
		}
		return placer
	}
	req.Start = func(placer, regime string) { prog.started(runName(placer, regime)) }
	req.Progress = func(p study.Progress) {
		if p.Done == 1 {
			prog.setTotal(p.Total)
		}
		prog.finished(runName(p.Record.Placer, p.Record.Regime), p.Done)
	}
	if opts.OutDir != "" {
		release, err := claimOutDir("--out", opts.OutDir, "compare", study.Shard{})
		if err != nil {
			return err
		}
		defer release()
	}
	res, err := study.CompareFiles(opts.Ctx, reg, req)
	prog.close()
	if err != nil {
		return flagNamed(err, regimeFlagNames(changed))
	}
	printWarnings(opts.ErrOut, "", res.Warnings)
	if err := reports.WriteComparison(opts.Out, opts.Format, res.Rows, res.Regimes); err != nil {
		return err
	}
	if opts.OutDir != "" && !opts.Quiet {
		what := "no timelines"
		if res.Detail != "" {
			what = "timelines of " + res.Detail
		}
		fmt.Fprintf(opts.ErrOut, "wrote %d files to %s (open report.html; %s)\n", len(res.Written), opts.OutDir, what)
	}
	if res.DetailErr != nil {
		return flagNamed(res.DetailErr, regimeFlagNames(changed))
	}
	errs := make([]string, 0, len(res.Rows))
	for _, o := range res.Rows {
		errs = append(errs, o.Error)
	}
	return failures(opts.ErrOut, "compare", "runs", errs, opts.AllowFailures, opts.Quiet)
}

// skipPlacers is the default placers less those of --skip (names must be
// empty: --skip trims the default set, --placers names the set itself).
func skipPlacers(reg *placers.Registry, names []string, skip string) ([]string, error) {
	if len(names) > 0 {
		return nil, fmt.Errorf("--skip and --placers exclude each other (--skip trims the default set)")
	}
	all, err := study.DefaultPlacers(reg)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, n := range strings.Split(skip, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if _, err := reg.Entry(n); err != nil {
			return nil, fmt.Errorf("--skip: %w", err)
		}
		drop[n] = true
	}
	for _, n := range all {
		if !drop[n] {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--skip %q leaves no placer to compare", skip)
	}
	return names, nil
}

// writerIsTerminal reports whether w is a terminal (not a file, a pipe,
// /dev/null or a buffer).
func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
