package cli

import (
	"testing"

	"placesim/study"
)

// TestChangedPoints: check's "N of M points regressed" counts points, not
// figures: a point slower and larger is one point.
func TestChangedPoints(t *testing.T) {
	rs := []study.Regression{
		{Key: "a", Reason: "step time 2 ms, was 1 ms"},
		{Key: "a", Reason: "peak memory 2 GiB, was 1 GiB"},
		{Key: "b", Reason: "missing from the new results"},
	}
	if got := changedPoints(rs); got != 2 {
		t.Errorf("changedPoints = %d, want 2 (points a and b)", got)
	}
	if got := changedPoints(nil); got != 0 {
		t.Errorf("changedPoints(nil) = %d, want 0", got)
	}
}
