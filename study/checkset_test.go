package study_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/study"
)

// TestCheckSetBeyond: issue 29's check set (checks/dle-beyond.tsv, run by
// make check-beyond) stays readable as validate reads it, each row cites
// its DeepLearningExamples table, its cluster files exist, and none of its
// settings is in validation/published.tsv: the check set checks the
// project and never becomes part of what it is calibrated on.
func TestCheckSetBeyond(t *testing.T) {
	t.Parallel()
	const file = "../checks/dle-beyond.tsv"
	rows, err := study.ReadValidation(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 85 {
		t.Errorf("%s: %d rows, want the 85 of README \"Fidelity\"", file, len(rows))
	}
	shipped, err := study.ReadValidation("../validation/published.tsv")
	if err != nil {
		t.Fatal(err)
	}
	type setting struct {
		workload, precision string
		gpus                int
		measured            float64
	}
	inShipped := map[setting]string{}
	for _, r := range shipped {
		inShipped[setting{r.Workload, r.Precision, r.GPUs, r.Measured}] = r.ID
	}
	ids := map[string]bool{}
	for _, r := range rows {
		if ids[r.ID] {
			t.Errorf("%s:%d: id %q twice", file, r.Line, r.ID)
		}
		ids[r.ID] = true
		if !strings.Contains(r.Source, "NVIDIA/DeepLearningExamples@729963dd") {
			t.Errorf("%s:%d: source %q does not cite the DeepLearningExamples commit", file, r.Line, r.Source)
		}
		if id, ok := inShipped[setting{r.Workload, r.Precision, r.GPUs, r.Measured}]; ok {
			t.Errorf("%s:%d: %s is validation/published.tsv's %s", file, r.Line, r.ID, id)
		}
		if strings.HasSuffix(r.Cluster, ".yaml") {
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), r.Cluster)); err != nil {
				t.Errorf("%s:%d: cluster %s: %v", file, r.Line, r.Cluster, err)
			}
		}
	}
}
