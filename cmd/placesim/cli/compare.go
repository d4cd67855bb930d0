package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"placesim/devices"
	"placesim/reports"
	"placesim/study"
)

// compareFlags are compare's own flags.
type compareFlags struct {
	placers, format, out, gantt string
	timeout                     time.Duration
	jobs                        int
	quiet                       bool
}

var compareFormats = []string{"table", "csv", "json"}

func newCompareCmd() *cobra.Command {
	var f runFlags
	var cf compareFlags
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
trace.json and a self-contained report.html. Files are replaced atomically.

A progress bar goes to stderr when it is a terminal (not with --quiet).`,
		Example: `  placesim compare -w zoo:mlp -c 4xV100-pcie
  placesim compare -w 'zoo:mlp?training=true' -c 4xV100-pcie --out out/
  placesim compare -w zoo:mlp -c 8xV100-nvlink --placers single,round-robin --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd, &f, &cf)
		},
	}
	f.register(cmd, "4xV100-pcie")
	fl := cmd.Flags()
	fl.StringVar(&cf.placers, "placers", "", "comma-separated placer names (default: all that need no options; placesim list placers)")
	fl.StringVar(&cf.format, "format", "table", "output format on stdout: "+strings.Join(compareFormats, ", "))
	fl.StringVar(&cf.out, "out", "", "directory to write results, charts, trace.json and report.html into")
	fl.StringVar(&cf.gantt, "gantt", "", "placer whose run the Gantt chart, memory timelines and trace show (default: the best)")
	fl.DurationVar(&cf.timeout, "timeout", 5*time.Minute, "time limit per placer (placement and simulation); 0: none")
	fl.IntVar(&cf.jobs, "jobs", 0, "placers run at once (default: the number of cores)")
	fl.BoolVarP(&cf.quiet, "quiet", "q", false, "no progress bar or notes on stderr")
	return cmd
}

func runCompare(cmd *cobra.Command, f *runFlags, cf *compareFlags) error {
	if !slices.Contains(compareFormats, cf.format) {
		return fmt.Errorf("--format %q (valid: %s)", cf.format, strings.Join(compareFormats, ", "))
	}
	if cf.timeout < 0 {
		return fmt.Errorf("--timeout %v is negative (valid: 0 for none, or a duration such as 30s)", cf.timeout)
	}
	if cf.jobs < 0 {
		return fmt.Errorf("--jobs %d is negative (valid: 0 for the number of cores, or >= 1)", cf.jobs)
	}
	reg, g, c, spec, err := f.setup()
	if err != nil {
		return err
	}
	var names []string
	if cf.placers != "" {
		for _, n := range strings.Split(cf.placers, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		for _, n := range names {
			if _, err := reg.Entry(n); err != nil {
				return fmt.Errorf("--placers: %w", err)
			}
		}
	} else if names, err = study.DefaultPlacers(reg); err != nil {
		return err
	}
	perPlacer, err := reg.Resolve(names, spec.Options)
	if err != nil {
		return fmt.Errorf("--opt: %w", err)
	}
	for _, n := range names {
		if _, err := reg.New(n, perPlacer[n]); err != nil {
			return fmt.Errorf("--opt: %w", err)
		}
	}
	if cf.gantt != "" && !slices.Contains(names, cf.gantt) {
		return fmt.Errorf("--gantt %q is not among the placers compared (%s)", cf.gantt, strings.Join(names, ", "))
	}
	if cf.out != "" {
		if err := reports.PrepareDir(cf.out); err != nil {
			return err
		}
	}

	stderr := cmd.ErrOrStderr()
	bar := newProgressBar(stderr, len(names), cf.quiet)
	rows, err := study.Compare(cmd.Context(), reg, g, c, study.CompareSpec{
		Placers: names, Base: spec, Workers: cf.jobs, Timeout: cf.timeout,
		Progress: func(p study.Progress) {
			if bar != nil {
				bar.Describe(fmt.Sprintf("compare: %-16s", p.Outcome.Placer))
				_ = bar.Add(1)
			}
		},
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}

	out := cmd.OutOrStdout()
	switch cf.format {
	case "json":
		err = reports.JSON(out, rows)
	case "csv":
		err = reports.CSV(out, rows)
	default:
		err = reports.Table(out, rows)
	}
	if err != nil {
		return err
	}
	if cf.out == "" {
		return nil
	}
	return writeCompareDir(stderr, cf, rows, c)
}

// writeCompareDir writes --out. The comparison runs without traces; the
// run it details (the best, or --gantt's) is simulated again with one.
func writeCompareDir(stderr io.Writer, cf *compareFlags, rows []*study.Outcome, c *devices.Cluster) error {
	opt := reports.DirOptions{Cluster: c}
	var detailErr error
	detail := study.Best(rows)
	if cf.gantt != "" {
		detail = nil
		for _, o := range rows {
			if o.Placer == cf.gantt && o.Error == "" && o.Plan != nil {
				detail = o
			} else if o.Placer == cf.gantt {
				detailErr = fmt.Errorf("--gantt %s: the run failed, so it has no timelines: %s", o.Placer, o.Error)
				opt.DetailNote = "No Gantt chart, memory timelines or trace: " + detailErr.Error()
			}
		}
	}
	if detail == nil && opt.DetailNote == "" {
		opt.DetailNote = "No Gantt chart, memory timelines or trace: no placer's run was simulated."
	}
	if detail != nil {
		if err := study.Retrace(detail, c); err != nil {
			return err
		}
	}
	opt.Detail = detail
	written, err := reports.WriteDir(cf.out, rows, opt)
	if err != nil {
		return err
	}
	if !cf.quiet {
		what := "no timelines"
		if detail != nil {
			what = "timelines of " + detail.Placer
		}
		fmt.Fprintf(stderr, "wrote %d files to %s (open report.html; %s)\n", len(written), cf.out, what)
	}
	return detailErr
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
