package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"placesim/reports"
	"placesim/study"
)

// CompareOptions are compare's parsed flags and surroundings.
type CompareOptions struct {
	*Factory
	Ctx                            context.Context
	Run                            runFlags
	Placers, Format, OutDir, Gantt string
	Timeout                        time.Duration
	Jobs                           int
	Quiet                          bool
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

A progress bar goes to stderr when it is a terminal (not with --quiet).`,
		Example: `  placesim compare -w zoo:mlp -c 4xV100-pcie
  placesim compare -w 'zoo:mlp?training=true' -c 4xV100-pcie --out out/
  placesim compare -w zoo:mlp -c 8xV100-nvlink --placers single,round-robin --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	opts.Run.register(cmd, "4xV100-pcie")
	fl := cmd.Flags()
	fl.StringVar(&opts.Placers, "placers", "", "comma-separated placer names (default: all that need no options; placesim list placers)")
	fl.StringVar(&opts.Format, "format", "table", "output format on stdout: "+strings.Join(compareFormats, ", "))
	fl.StringVar(&opts.OutDir, "out", "", "directory to write results, charts, trace.json and report.html into")
	fl.StringVar(&opts.Gantt, "gantt", "", "placer whose run the Gantt chart, memory timelines and trace show (default: the best)")
	fl.DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "time limit per placer (placement and simulation); 0: none")
	fl.IntVar(&opts.Jobs, "jobs", 0, "placers run at once (default: the number of cores)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar or notes on stderr")
	return cmd
}

func compareRun(opts *CompareOptions) error {
	if !slices.Contains(compareFormats, opts.Format) {
		return fmt.Errorf("--format %q (valid: %s)", opts.Format, strings.Join(compareFormats, ", "))
	}
	if opts.Timeout < 0 {
		return fmt.Errorf("--timeout %v is negative (valid: 0 for none, or a duration such as 30s)", opts.Timeout)
	}
	if opts.Jobs < 0 {
		return fmt.Errorf("--jobs %d is negative (valid: 0 for the number of cores, or >= 1)", opts.Jobs)
	}
	in, spec, err := opts.Run.request()
	if err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(opts.Placers, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	req := study.CompareRequest{Inputs: in, Out: opts.OutDir, Gantt: opts.Gantt,
		CompareSpec: study.CompareSpec{Placers: names, Base: spec, Workers: opts.Jobs, Timeout: opts.Timeout}}
	var bar *progressbar.ProgressBar
	req.Progress = func(p study.Progress) {
		if bar == nil {
			bar = newProgressBar(opts.ErrOut, p.Total, opts.Quiet)
		}
		if bar != nil {
			bar.Describe(fmt.Sprintf("compare: %-16s", p.Outcome.Placer))
			_ = bar.Add(1)
		}
	}
	res, err := study.CompareFiles(opts.Ctx, reg, req)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		err = reports.JSON(opts.Out, res.Rows)
	case "csv":
		err = reports.CSV(opts.Out, res.Rows)
	default:
		err = reports.Table(opts.Out, res.Rows)
	}
	if err != nil {
		return err
	}
	if opts.OutDir != "" && !opts.Quiet {
		what := "no timelines"
		if res.Detail != "" {
			what = "timelines of " + res.Detail
		}
		fmt.Fprintf(opts.ErrOut, "wrote %d files to %s (open report.html; %s)\n", len(res.Written), opts.OutDir, what)
	}
	return res.DetailErr
}

// newProgressBar returns a progress bar on w, or nil when quiet or when w
// is not a terminal (a file, a pipe, a test buffer).
func newProgressBar(w io.Writer, total int, quiet bool) *progressbar.ProgressBar {
	if quiet || !writerIsTerminal(w) {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("compare"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
	)
}

// writerIsTerminal reports whether w is a terminal (not a file, a pipe,
// /dev/null or a buffer).
func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
