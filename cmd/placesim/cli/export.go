package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"placesim/reports"
	"placesim/study"
	"placesim/workloads/dot"
	"placesim/workloads/native"
)

func newExportCmd() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export WORKLOAD",
		Short: "Write a workload as placesim native JSON or Graphviz DOT",
		Long: `Load a workload (zoo:NAME[?params], or a native, msr-fiddle or ONNX file)
and write it in placesim's native JSON format (lossless: reading it back
gives the same graph) or as a Graphviz DOT drawing for small graphs
(dot -Tsvg). Without --out it prints to standard output.`,
		Example: `  placesim export 'zoo:mlp?training=true' --out mlp.json
  placesim export 'model.onnx?batch_size=8' --format dot | dot -Tsvg > model.svg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var buf bytes.Buffer
			write := native.Write
			switch format {
			case "native":
			case "dot":
				write = dot.Write
			default:
				return fmt.Errorf("--format %q (valid: native, dot)", format)
			}
			g, err := study.LoadWorkload(args[0])
			if err != nil {
				return err
			}
			if err := write(&buf, g); err != nil {
				return err
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			return reports.WriteFileAtomic(out, buf.Bytes())
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "native", "output format: native (JSON) or dot (Graphviz)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default: standard output)")
	return cmd
}
