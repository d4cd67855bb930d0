package study_test

import (
	"strings"
	"testing"

	"placesim/study"
)

// TestCompareResultsBothSides: a check reports a step time or peak memory
// that moved beyond the tolerance either way (a faster result is
// reported with Better set), passes one within it, and with WorseOnly
// reports only the changes for the worse.
func TestCompareResultsBothSides(t *testing.T) {
	const tol = 0.02
	point := func(placer string) study.Point {
		return study.Point{Workload: "zoo:mlp", Cluster: "4xV100-pcie", Placer: placer, Seed: 1, Regime: "step"}
	}
	rec := func(placer string, step float64, peak int64) study.Record {
		return study.Record{Point: point(placer), StepTime: step, PeakMemory: []int64{peak, peak / 2}}
	}
	base := &study.Results{Records: []study.Record{
		rec("slower", 1.0, 1000), rec("faster", 1.0, 1000), rec("within", 1.0, 1000),
		rec("smaller", 1.0, 1000), rec("larger", 1.0, 1000),
	}}
	cur := &study.Results{Records: []study.Record{
		rec("slower", 1.1, 1000), rec("faster", 0.9, 1000), rec("within", 0.99, 1015),
		rec("smaller", 1.0, 900), rec("larger", 1.0, 1100),
	}}
	type change struct {
		placer, figure string
		better         bool
	}
	for _, c := range []struct {
		sides study.Sides
		want  []change
	}{
		{study.BothSides, []change{{"slower", "step time", false}, {"faster", "step time", true}, {"smaller", "peak memory", true}, {"larger", "peak memory", false}}},
		{study.WorseOnly, []change{{"slower", "step time", false}, {"larger", "peak memory", false}}},
	} {
		got := study.CompareResults(base, cur, tol, c.sides)
		if len(got) != len(c.want) {
			t.Fatalf("sides %d: %d changes %v, want %d", c.sides, len(got), got, len(c.want))
		}
		for i, w := range c.want {
			g := got[i]
			if g.Key != point(w.placer).Key() || !strings.HasPrefix(g.Reason, w.figure) || g.Better != w.better {
				t.Errorf("sides %d: change %d is %v (better %v), want %s's %s (better %v)", c.sides, i, g, g.Better, w.placer, w.figure, w.better)
			}
		}
	}
	// the sign of the change is printed: -10.0 % for the faster point
	got := study.CompareResults(base, cur, tol, study.BothSides)
	if !strings.Contains(got[1].Reason, "(-10.0%, tolerance 2.0%)") || !strings.Contains(got[0].Reason, "(+10.0%, tolerance 2.0%)") {
		t.Errorf("reasons %q and %q lack the signed change", got[0].Reason, got[1].Reason)
	}
}
