package study_test

import (
	"context"
	"testing"

	"placesim/placers/builtin"
	"placesim/study"
)

// TestPublishedValidationSet: every row of the shipped validation set is
// simulated (none fails or is skipped), with a finite error. The
// thresholds are checked by `make test` (placesim validate).
func TestPublishedValidationSet(t *testing.T) {
	t.Parallel()
	const path = "../validation/published.tsv"
	rows, err := study.ReadValidation(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 16 {
		t.Fatalf("%d rows, want the 16 of ../shared/fidelity/published.tsv", len(rows))
	}
	reg, _ := builtin.NewRegistry()
	s, err := study.Validate(context.Background(), reg, rows, "../validation")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rows {
		if r.Failure != "" || !(r.Simulated > 0) {
			t.Errorf("row %s: simulated %g, failure %q", r.ID, r.Simulated, r.Failure)
		}
	}
	t.Logf("median |error| %.1f %%, worst %.1f %% (%s)", 100*s.MedianError, 100*s.WorstError, s.WorstID)
}
