package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/spf13/cobra"

	"placesim/study"
)

// ValidateOptions are validate's parsed flags and surroundings.
type ValidateOptions struct {
	*Factory
	Ctx                 context.Context
	File, Format        string
	MaxMedian, MaxWorst float64
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
that fails (out of memory) counts as error -100 %.

--max-median and --max-worst make the command exit 1 when the median or
worst |error| is above the threshold (fractions: 0.1 = 10 %).`,
		Example: `  placesim validate validation/published.tsv
  placesim validate validation/published.tsv --max-median 0.10 --max-worst 0.25
  placesim validate my-cluster.tsv --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.File = cmd.Context(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return validateRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json (one object with rows and the summary)")
	cmd.Flags().Float64Var(&opts.MaxMedian, "max-median", 0, "exit 1 when the median |error| is above this fraction (0 = no limit)")
	cmd.Flags().Float64Var(&opts.MaxWorst, "max-worst", 0, "exit 1 when the worst |error| is above this fraction (0 = no limit)")
	return cmd
}

func validateRun(opts *ValidateOptions) error {
	if opts.Format != "text" && opts.Format != "json" {
		return fmt.Errorf("--format %q (valid: text, json)", opts.Format)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"max-median", opts.MaxMedian}, {"max-worst", opts.MaxWorst}} {
		if !(t.v >= 0) || math.IsInf(t.v, 0) {
			return fmt.Errorf("--%s %g (valid range: a fraction >= 0, e.g. 0.1 for 10 %%; 0 = no limit)", t.name, t.v)
		}
	}
	rows, err := study.ReadValidation(opts.File)
	if err != nil {
		return err
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	s, err := study.Validate(ctx, reg, rows, filepath.Dir(opts.File))
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
}
