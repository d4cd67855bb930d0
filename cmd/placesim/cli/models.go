package cli

import (
	"github.com/spf13/cobra"

	"placesim/reports"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

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
	return reports.WriteModels(opts.Out, rows)
}

// zooModels describes every zoo model at its default settings.
func zooModels() ([]reports.ModelRow, error) {
	var rows []reports.ModelRow
	for _, m := range zoo.Models() {
		r := reports.ModelRow{Name: m.Name, Description: m.Description, Source: m.Source,
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
