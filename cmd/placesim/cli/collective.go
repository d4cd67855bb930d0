package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"placesim/collectives"
	"placesim/devices"
	"placesim/internal/units"
)

// CollectiveOptions are collective's parsed flags and surroundings.
type CollectiveOptions struct {
	*Factory
	Op, System, Group, Min, Max, Format string
	GPUs                                int
	Factor                              float64
	// Validate is a file of published nccl-tests results to check
	// instead (validation/nccl-tests.tsv); MaxError bounds the
	// acceptance rows' |error|.
	Validate string
	MaxError float64
}

// NewCmdCollective builds collective; runF, when not nil, replaces
// collectiveRun.
func NewCmdCollective(f *Factory, runF func(*CollectiveOptions) error) *cobra.Command {
	opts := &CollectiveOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "collective --op OP --system SYSTEM",
		Short: "Print a collective's time, algbw and busbw by size, as nccl-tests prints them",
		Long: `Predict one collective over a group of a system's GPUs at sizes from --min
to --max (times --factor each step), as NCCL runs it (package collectives:
NCCL's tuning model picks algorithm, protocol and channels), and print
what nccl-tests' *_perf prints: size, count, time, algbw and busbw, with
nccl-tests' bus factors (all-reduce 2(n-1)/n, all-gather, reduce-scatter
and all-to-all (n-1)/n, broadcast and send/recv 1), and NCCL's choice.
Sizes are nccl-tests': the all-reduce buffer, the all-gather output, the
reduce-scatter input, one rank's all-to-all buffer.

Ops: all-reduce, all-gather, reduce-scatter, all-to-all, broadcast,
send-recv (the first two GPUs of the group). Systems: a one-line system
(dgx-h100:nodes=2, gb200-nvl72:racks=1, system:...; placesim list
clusters), a preset or a cluster file.`,
		Example: `  placesim collective --op all-reduce --system dgx-h100:nodes=2 --min 1MiB --max 8GiB
  placesim collective --op all-gather --system gb200-nvl72:racks=1 --gpus 64 --format json
  placesim collective --op all-to-all --system dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4
  placesim collective --validate validation/nccl-tests.tsv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return collectiveRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Op, "op", "all-reduce", "collective: all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, send-recv")
	fl.StringVar(&opts.System, "system", "", "system spec, preset or cluster file (required)")
	fl.StringVar(&opts.Group, "group", "", "device indices of the group, e.g. 0-7 or 0,8,16 (default: every accelerator, or the first --gpus)")
	fl.IntVar(&opts.GPUs, "gpus", 0, "the first N accelerators form the group (0: all)")
	fl.StringVar(&opts.Min, "min", "1MiB", "smallest size (nccl-tests -b)")
	fl.StringVar(&opts.Max, "max", "8GiB", "largest size (nccl-tests -e)")
	fl.Float64Var(&opts.Factor, "factor", 2, "size multiplier between steps (nccl-tests -f), > 1")
	fl.StringVar(&opts.Format, "format", "table", "output: table (nccl-tests' columns) or json")
	fl.StringVar(&opts.Validate, "validate", "", "check a file of published nccl-tests results (validation/nccl-tests.tsv) instead")
	fl.Float64Var(&opts.MaxError, "max-error", 0.10, "with --validate: fail when an acceptance row's |busbw error| exceeds this fraction")
	return cmd
}

// maxCollectiveRows bounds the sizes of one run.
const maxCollectiveRows = 10000

// CollectiveRow is one size of a collective run.
type CollectiveRow struct {
	Size      int64   `json:"size"`
	Count     int64   `json:"count"`
	Time      float64 `json:"time"`
	AlgBW     float64 `json:"algbw"`
	BusBW     float64 `json:"busbw"`
	Algorithm string  `json:"algorithm"`
	Protocol  string  `json:"protocol"`
	Channels  int     `json:"channels"`
}

func collectiveRun(opts *CollectiveOptions) error {
	if opts.Validate != "" {
		return collectiveValidate(opts)
	}
	if opts.System == "" {
		return fmt.Errorf("--system: required (e.g. dgx-h100:nodes=2; placesim list clusters)")
	}
	k, err := collectives.ParseKind(opts.Op)
	if err != nil {
		return fmt.Errorf("--op: %w", err)
	}
	lo, err := units.ParseBytes(opts.Min)
	if err != nil || lo < 1 {
		return fmt.Errorf("--min %q (valid range: >= 1 byte, e.g. 1MiB)", opts.Min)
	}
	hi, err := units.ParseBytes(opts.Max)
	if err != nil || hi < lo {
		return fmt.Errorf("--max %q (valid range: >= --min = %d bytes, e.g. 8GiB)", opts.Max, lo)
	}
	if !(opts.Factor > 1) || math.IsInf(opts.Factor, 0) {
		return fmt.Errorf("--factor %g (valid range: > 1)", opts.Factor)
	}
	if rows := math.Log(float64(hi)/float64(lo))/math.Log(opts.Factor) + 1; rows > maxCollectiveRows {
		return fmt.Errorf("--min %s --max %s --factor %g: %.0f sizes (valid range: <= %d)", opts.Min, opts.Max, opts.Factor, rows, maxCollectiveRows)
	}
	if opts.Format != "table" && opts.Format != "json" {
		return fmt.Errorf("--format %q (valid: table, json)", opts.Format)
	}
	c, err := devices.Resolve(opts.System)
	if err != nil {
		return fmt.Errorf("--system: %w", err)
	}
	group, err := collectiveGroup(c, opts.Group, opts.GPUs)
	if err != nil {
		return err
	}
	if k == collectives.SendRecv {
		if len(group) < 2 {
			return fmt.Errorf("--op send-recv needs 2 devices, the group has %d", len(group))
		}
		group = group[:2]
	}
	var rows []CollectiveRow
	for size := float64(lo); size <= float64(hi)*(1+1e-12); size *= opts.Factor {
		b := int64(size)
		e, err := collectives.Time(c, group, k, b)
		if err != nil {
			return err
		}
		rows = append(rows, CollectiveRow{Size: b, Count: b / 4, Time: e.Seconds, AlgBW: e.AlgBW, BusBW: e.BusBW,
			Algorithm: e.Algorithm, Protocol: e.Protocol, Channels: e.Channels})
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Op     string          `json:"op"`
			System string          `json:"system"`
			Ranks  int             `json:"ranks"`
			Rows   []CollectiveRow `json:"rows"`
		}{k.String(), c.Name, len(group), rows})
	}
	w := opts.Out
	fmt.Fprintf(w, "# placesim collective: %s on %s, %d ranks (float, sum); time in us, bandwidths in GB/s (1e9 bytes/s)\n", k, c.Name, len(group))
	fmt.Fprintf(w, "# %12s %12s %6s %10s %8s %8s  %s\n", "size", "count", "type", "time", "algbw", "busbw", "algorithm/protocol channels")
	fmt.Fprintf(w, "# %12s %12s %6s %10s %8s %8s\n", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)")
	var sum float64
	for _, r := range rows {
		fmt.Fprintf(w, "  %12d %12d %6s %10.2f %8.2f %8.2f  %s/%s %d\n", r.Size, r.Count, "float", r.Time*1e6, r.AlgBW/1e9, r.BusBW/1e9, r.Algorithm, r.Protocol, r.Channels)
		sum += r.BusBW
	}
	fmt.Fprintf(w, "# Avg bus bandwidth    : %g\n", sum/float64(len(rows))/1e9)
	return nil
}

// collectiveGroup reads --group ("0-7", "0,8,16") or takes the first
// gpus accelerators (all when 0).
func collectiveGroup(c *devices.Cluster, spec string, gpus int) ([]int, error) {
	acc := c.Accelerators()
	if spec != "" && gpus != 0 {
		return nil, fmt.Errorf("--group and --gpus: give one of them")
	}
	if spec == "" {
		if gpus < 0 || gpus > len(acc) {
			return nil, fmt.Errorf("--gpus %d (valid range: [1, %d], the accelerators of %s; 0 = all)", gpus, len(acc), c.Name)
		}
		if gpus > 0 {
			acc = acc[:gpus]
		}
		return acc, nil
	}
	var g []int
	for _, part := range strings.Split(spec, ",") {
		a, b, isRange := strings.Cut(strings.TrimSpace(part), "-")
		x, err := strconv.Atoi(a)
		y := x
		if err == nil && isRange {
			y, err = strconv.Atoi(b)
		}
		if err != nil || x < 0 || y < x || y >= len(c.Devices) {
			return nil, fmt.Errorf("--group %q: %q (valid: device indices in [0, %d), as 3, 0-7 or 0,8,16)", spec, part, len(c.Devices))
		}
		if len(g)+y-x+1 > len(c.Devices) {
			return nil, fmt.Errorf("--group %q: more devices than %s has (%d)", spec, c.Name, len(c.Devices))
		}
		for i := x; i <= y; i++ {
			g = append(g, i)
		}
	}
	return g, nil
}

// collectiveValidate prints each published row with placesim's busbw
// and its error, and fails when an acceptance row is beyond --max-error.
func collectiveValidate(opts *CollectiveOptions) error {
	if !(opts.MaxError >= 0) || math.IsInf(opts.MaxError, 0) {
		return fmt.Errorf("--max-error %g (valid range: >= 0, a fraction)", opts.MaxError)
	}
	rows, err := collectives.LoadPublished(opts.Validate)
	if err != nil {
		return err
	}
	checked, err := collectives.Check(rows)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Validate, err)
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		type row struct {
			ID, System, Op      string
			GPUs                int
			Size                int64
			Published, Placesim float64
			Algorithm, Protocol string
			Error               float64
			Acceptance          bool
		}
		var out []row
		for _, r := range checked {
			out = append(out, row{r.ID, r.System, r.Op.String(), r.GPUs, r.Size, r.Published.BusBW, r.Estimate.BusBW, r.Algorithm, r.Protocol, r.Error, r.Acceptance})
		}
		if err := enc.Encode(map[string]any{"rows": out}); err != nil {
			return err
		}
	}
	var worst float64
	var bad []string
	for _, r := range checked {
		if opts.Format != "json" {
			fmt.Fprintf(opts.Out, "%-26s %-24s %-14s %5d %11d  published %6.1f  placesim %6.1f GB/s  %-17s %+6.1f %%\n",
				r.ID, r.System, r.Op, r.GPUs, r.Size, r.Published.BusBW/1e9, r.Estimate.BusBW/1e9, r.Algorithm+"/"+r.Protocol, 100*r.Error)
		}
		if r.Acceptance {
			worst = math.Max(worst, math.Abs(r.Error))
			if math.Abs(r.Error) > opts.MaxError {
				bad = append(bad, r.ID)
			}
		}
	}
	if opts.Format != "json" {
		fmt.Fprintf(opts.Out, "acceptance rows: worst |error| %.1f %% (limit %.1f %%)\n", 100*worst, 100*opts.MaxError)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: busbw beyond %.1f %% on %s", opts.Validate, 100*opts.MaxError, strings.Join(bad, ", "))
	}
	return nil
}
