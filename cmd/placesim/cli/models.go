package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// modelRow is one zoo model in models' output (--json: a list of these).
type modelRow struct {
	Name             string `json:"name"`
	Description      string `json:"description"`
	Source           string `json:"source"`
	DefaultBatch     int    `json:"defaultBatch"`
	DefaultOptimizer string `json:"defaultOptimizer"`
	// Parameters is the trainable parameter count.
	Parameters float64 `json:"parameters"`
	// Ops at each granularity, forward and training step.
	OpForward     int `json:"opForward"`
	OpTraining    int `json:"opTraining"`
	LayerForward  int `json:"layerForward"`
	LayerTraining int `json:"layerTraining"`
}

// ModelsOptions are models' parsed flags and surroundings.
type ModelsOptions struct {
	*Factory
	JSON bool
	// Format is --format (and its --json shorthand).
	Format formatFlag
}

// NewCmdModels builds models; runF, when not nil, replaces modelsRun.
func NewCmdModels(f *Factory, runF func(*ModelsOptions) error) *cobra.Command {
	opts := &ModelsOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the model zoo with op counts per granularity, forward and training",
		Long: `List the zoo's models with their default batch and optimizer, trainable
parameters and op counts at operator and layer granularity, for the forward
pass and the training step, at the default settings. Use a model as
zoo:NAME[?batch=N&granularity=op|layer&training=true&...].`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Format.apply(&opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return modelsRun(opts)
		},
	}
	opts.Format.register(cmd, " (json: a list)", formatTable, formatJSON)
	return cmd
}

func modelsRun(opts *ModelsOptions) error {
	rows, err := zooModels()
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.Out, rows)
	}
	return printModels(opts.Out, rows)
}

// zooModels describes every zoo model at its default settings.
func zooModels() ([]modelRow, error) {
	var rows []modelRow
	for _, m := range zoo.Models() {
		r := modelRow{Name: m.Name, Description: m.Description, Source: m.Source,
			DefaultBatch: m.DefaultBatch, DefaultOptimizer: string(m.DefaultOptimizer)}
		for _, v := range []struct {
			query string
			ops   *int
		}{
			{"granularity=op", &r.OpForward}, {"granularity=op&training=true", &r.OpTraining},
			{"granularity=layer", &r.LayerForward}, {"granularity=layer&training=true", &r.LayerTraining},
		} {
			g, err := zoo.Build(m.Name + "?" + v.query)
			if err != nil {
				return nil, err
			}
			*v.ops = len(g.Ops)
			if v.query == "granularity=op&training=true" {
				r.Parameters = float64(workloads.ComputeStats(g).TrainableBytes) / 4
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func printModels(w io.Writer, rows []modelRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tbatch\toptimizer\tparameters\top fwd\top train\tlayer fwd\tlayer train")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.4g\t%d\t%d\t%d\t%d\n", r.Name, r.DefaultBatch, r.DefaultOptimizer,
			r.Parameters, r.OpForward, r.OpTraining, r.LayerForward, r.LayerTraining)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-18s %s [%s]\n", r.Name, r.Description, r.Source)
	}
	return nil
}
