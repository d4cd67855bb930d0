package cli

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"placesim/reports"
	"placesim/study"
	"placesim/workloads/dot"
	"placesim/workloads/native"
)

// ExportOptions are export's parsed flags and surroundings.
type ExportOptions struct {
	*Factory
	Ctx                      context.Context
	Workload, Format, ToFile string
	// Cluster and Placer: where --format chakra places and plays the step.
	Cluster, Placer string
}

// NewCmdExport builds export; runF, when not nil, replaces exportRun.
func NewCmdExport(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "export WORKLOAD",
		Short: "Write a workload as placesim native JSON or Graphviz DOT",
		Long: `Load a workload (zoo:NAME[?params], or a native, msr-fiddle or ONNX file)
and write it in placesim's native JSON format (lossless: reading it back
gives the same graph) or as a Graphviz DOT drawing for small graphs
(dot -Tsvg). Without --out it prints to standard output. The file is
written atomically: an interrupted export leaves none.`,
		Example: `  placesim export 'zoo:mlp?training=true' --out mlp.json
  placesim export 'model.onnx?batch_size=8' --format dot | dot -Tsvg > model.svg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Workload = cmd.Context(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return exportRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "native", "output format: native (JSON), dot (Graphviz) or chakra (per-rank Chakra ETs of a placed, simulated step; --out DIR or trace.%d.et)")
	cmd.Flags().StringVarP(&opts.Cluster, "cluster", "c", "", "chakra: the cluster to place and play the step on")
	cmd.Flags().StringVarP(&opts.Placer, "placer", "p", "single", "chakra: the placer (placesim list placers)")
	cmd.Flags().StringVarP(&opts.ToFile, "out", "o", "", "output file (default: standard output)")
	return cmd
}

func exportRun(opts *ExportOptions) error {
	var buf bytes.Buffer
	write := native.Write
	switch opts.Format {
	case "native":
	case "dot":
		write = dot.Write
	case "chakra":
		return exportChakra(opts)
	default:
		return fmt.Errorf("--format %q (valid: native, dot, chakra)", opts.Format)
	}
	g, err := study.LoadWorkload(opts.Workload)
	if err != nil {
		return err
	}
	printWarnings(opts.ErrOut, "", g.Warnings)
	if err := write(&buf, g); err != nil {
		return err
	}
	if err := opts.Ctx.Err(); err != nil {
		return err
	}
	if opts.ToFile == "" {
		_, err := opts.Out.Write(buf.Bytes())
		return err
	}
	if err := guardOutFile("--out", opts.ToFile); err != nil {
		return err
	}
	return reports.WriteFileAtomic(opts.ToFile, buf.Bytes())
}
