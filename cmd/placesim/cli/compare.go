package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"placesim/reports"
	"placesim/study"
)

func newCompareCmd() *cobra.Command {
	var f runFlags
	var placerList, format, outDir string
	cmd := &cobra.Command{
		Use:   "compare --workload W --cluster C [--placers a,b,c]",
		Short: "Run several placers on one workload and cluster and tabulate them",
		Long: `Run every placer (default: all registered placers that need no options) on
the workload and cluster, simulate each plan, and print a table sorted by
step time with peak memory per device and out-of-memory. A placer that
fails is a row with its error.`,
		Example: `  placesim compare -w zoo:mlp -c 4xV100-pcie
  placesim compare -w zoo:mlp -c 8xV100-nvlink --placers single,round-robin --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, g, c, spec, err := f.setup()
			if err != nil {
				return err
			}
			var names []string
			if placerList != "" {
				names = strings.Split(placerList, ",")
				for _, n := range names {
					if _, err := reg.New(n, spec.Options); err != nil {
						return err
					}
				}
			}
			rows, err := study.Compare(context.Background(), reg, g, c, study.CompareSpec{Placers: names, Base: spec})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if outDir != "" {
				if err := reports.WriteDir(outDir, rows); err != nil {
					return err
				}
			}
			switch format {
			case "json":
				return writeJSON(out, map[string]any{"results": rows})
			case "table":
				return reports.Table(out, rows)
			default:
				return fmt.Errorf("--format %q (valid: table, json)", format)
			}
		},
	}
	f.register(cmd, "4xV100-pcie")
	cmd.Flags().StringVar(&placerList, "placers", "", "comma-separated placer names (default: all that need no options)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or json")
	cmd.Flags().StringVar(&outDir, "out", "", "directory to write results.json and table.txt into")
	return cmd
}
