package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"placesim/study"
)

// ReproduceOptions are reproduce's flags and arguments.
type ReproduceOptions struct {
	*Factory
	Ctx context.Context
	// Paper selects the scenarios whose file name starts with it
	// (celeritas, fastt, pesto, tarnawski); empty: all.
	Paper       string
	ScenarioDir string
	OutDir      string
	Quiet       bool
	Workers     int
	// Format is --format: what reproduce prints on stdout.
	Format formatFlag
}

// NewCmdReproduce builds reproduce; runF, when not nil, replaces
// runReproduce.
func NewCmdReproduce(f *Factory, runF func(*ReproduceOptions) error) *cobra.Command {
	opts := &ReproduceOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "reproduce [PAPER]",
		Short: "Run every paper scenario and print each paper's scoreboard",
		Long: `Run every scenario of --scenarios that carries a paper section (the paper's
published values and claims) and print its scoreboard: the paper's value
beside the simulated one for every cell, per row the pairwise orderings
reproduced and Kendall's tau, out-of-memory agreement, and each headline
claim's verdict with its numbers. PAPER (celeritas, fastt, pesto,
tarnawski) runs only the scenarios whose file name starts with it. Each
scenario's results go to --out/NAME, as 'placesim run' writes them (with
scoreboard.txt); a scenario whose workload files are absent (the
artifact's BERT-12 graphs of tarnawski-table3) is skipped with a note.
Points that fail or run out of memory are results here (the paper's OOM
cells are compared with them), so they do not make the command fail.`,
		Example: `  placesim reproduce
  placesim reproduce celeritas --out out/celeritas`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			if len(args) == 1 {
				opts.Paper = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runReproduce(opts)
		},
	}
	cmd.Flags().StringVar(&opts.ScenarioDir, "scenarios", "scenarios", "folder of scenario files (*.yaml)")
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", filepath.Join("out", "reproduce"), "output folder: one sub-folder per scenario")
	cmd.Flags().BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bars")
	cmd.Flags().IntVar(&opts.Workers, "workers", 0, "points run in parallel (default: number of cores)")
	opts.Format.register(cmd, " (table: each scoreboard and a summary; json: one object, {scenarios, skipped}, each scoreboard's cells, rows and claims; csv: one line per published cell)", formatTable, formatJSON, formatCSV)
	return cmd
}

// paperScenarios loads the scenarios of dir that carry a paper section,
// those of paper only when it is set, sorted by file name; skipped says
// why others with a paper section were left out.
func paperScenarios(dir, paper string) (list []*study.Scenario, names []string, skipped []string, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, nil, nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if paper != "" && !strings.HasPrefix(name, paper) {
			continue
		}
		s, err := study.LoadScenario(f)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("scenario %s: %w", f, err)
		}
		if s.Paper == nil {
			continue
		}
		if miss := missingWorkloads(s); len(miss) > 0 {
			skipped = append(skipped, fmt.Sprintf("%s: workload files absent: %s", name, strings.Join(miss, ", ")))
			continue
		}
		list = append(list, s)
		names = append(names, name)
	}
	if len(list) == 0 && len(skipped) == 0 {
		what := "any paper"
		if paper != "" {
			what = fmt.Sprintf("paper %q", paper)
		}
		return nil, nil, nil, fmt.Errorf("no scenario of %s carries a paper section for %s (valid PAPER: celeritas, fastt, pesto, tarnawski)", dir, what)
	}
	return list, names, skipped, nil
}

// missingWorkloads lists the scenario's workload files that do not exist.
func missingWorkloads(s *study.Scenario) []string {
	var miss []string
	for _, w := range s.Workloads {
		if strings.HasPrefix(w, "zoo:") {
			continue
		}
		path, _, _ := strings.Cut(w, "?")
		if _, err := os.Stat(path); err != nil {
			miss = append(miss, path)
		}
	}
	return miss
}

func runReproduce(opts *ReproduceOptions) error {
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	list, names, skipped, err := paperScenarios(opts.ScenarioDir, opts.Paper)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(opts.ErrOut, "placesim: skipped", s)
	}
	var summary []string
	var boards []study.ScenarioBoard
	for i, s := range list {
		dir := filepath.Join(opts.OutDir, names[i])
		release, err := claimOutDir("--out", dir, "run", study.Shard{})
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := runScenario(opts.Ctx, opts.Factory, "reproduce", s, dir, study.Shard{}, opts.Quiet, opts.Workers, nil, "0")
		release()
		if err != nil {
			return fmt.Errorf("scenario %s: %w", names[i], err)
		}
		b := study.Scoreboard(res)
		boards = append(boards, study.ScenarioBoard{Name: names[i], Dir: dir, Board: b})
		if format == formatTable {
			fmt.Fprintln(opts.Out)
			study.WriteScoreboard(opts.Out, b)
		}
		summary = append(summary, summaryLine(names[i], b, time.Since(start)))
	}
	switch format {
	case formatJSON:
		return study.WriteScoreboardsJSON(opts.Out, boards, skipped)
	case formatCSV:
		return study.WriteScoreboardsCSV(opts.Out, boards)
	}
	fmt.Fprintln(opts.Out)
	fmt.Fprintln(opts.Out, "summary:")
	for _, l := range summary {
		fmt.Fprintln(opts.Out, l)
	}
	for _, s := range skipped {
		fmt.Fprintln(opts.Out, "  skipped", s)
	}
	return nil
}

// summaryLine is one scenario's scores in a line.
func summaryLine(name string, b *study.Board, took time.Duration) string {
	agree, pairs, held := 0, 0, 0
	tau, n := 0.0, 0
	for _, r := range b.Rows {
		agree += r.Agree
		pairs += r.Pairs
		if !math.IsNaN(r.Tau) {
			tau += r.Tau
			n++
		}
	}
	for _, c := range b.Claims {
		if c.Verdict == "holds" {
			held++
		}
	}
	mt := "-"
	if n > 0 {
		mt = fmt.Sprintf("%+.2f", tau/float64(n))
	}
	return fmt.Sprintf("  %-18s orderings %d of %d (mean tau %s), OOM %d of %d, claims %d of %d hold (%s)",
		name, agree, pairs, mt, b.OOMAgree, b.OOMCells, held, len(b.Claims), took.Round(time.Second))
}

// printScoreboard prints res's scoreboard after a blank line, when its
// scenario carries a paper section.
func printScoreboard(w io.Writer, res *study.Results) {
	if b := study.Scoreboard(res); b != nil {
		fmt.Fprintln(w)
		study.WriteScoreboard(w, b)
	}
}
