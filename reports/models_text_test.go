package reports_test

import (
	"strings"
	"testing"

	"placesim/reports"
)

// TestWriteModels checks models' text: a header, a row per model with its
// counts, then each model's description and source; a write error is
// returned.
func TestWriteModels(t *testing.T) {
	rows := []reports.ModelRow{{Name: "mlp", Description: "a perceptron", Source: "here", DefaultBatch: 64, DefaultOptimizer: "sgd",
		Parameters: 1.5e6, OpForward: 7, OpTraining: 19, LayerForward: 3, LayerTraining: 8}}
	var b strings.Builder
	if err := reports.WriteModels(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "model") || strings.Join(strings.Fields(lines[1]), " ") != "mlp 64 sgd 1.5e+06 7 19 3 8" ||
		lines[3] != "mlp                a perceptron [here]" {
		t.Errorf("got\n%s", b.String())
	}
	if err := reports.WriteModels(failingWriter{}, rows); err == nil {
		t.Error("a failing writer: no error")
	}
}
