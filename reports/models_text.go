package reports

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// ModelRow is one zoo model as placesim models prints it (--format json:
// a list of these).
type ModelRow struct {
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

// WriteModels writes the zoo's models as placesim models prints them: a
// table of batch, optimizer, parameters and op counts, then each model's
// description and source.
func WriteModels(w io.Writer, rows []ModelRow) error {
	ew := &errWriter{w: w}
	writeModels(ew, rows)
	return ew.err
}

func writeModels(w io.Writer, rows []ModelRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tbatch\toptimizer\tparameters\top fwd\top train\tlayer fwd\tlayer train")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.4g\t%d\t%d\t%d\t%d\n", r.Name, r.DefaultBatch, r.DefaultOptimizer,
			r.Parameters, r.OpForward, r.OpTraining, r.LayerForward, r.LayerTraining)
	}
	if tw.Flush() != nil {
		return
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-18s %s [%s]\n", r.Name, r.Description, r.Source)
	}
}
