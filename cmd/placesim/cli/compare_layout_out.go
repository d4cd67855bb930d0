package cli

import (
	"fmt"
	"path/filepath"

	"placesim/study"
)

// writeLayoutComparison writes compare --layout's results.json into
// --out: the results schema (runresult.File), a record per stage planner
// (as --format json prints them), its scenario the comparison as a
// scenario with a layout (workload, cluster, the planners, the layout),
// so that placesim check --baseline DIR/results.json replays each
// planner's point. Planning wall times go to results.timings.json, as
// compare's.
func writeLayoutComparison(opts *CompareOptions, layout string, planners []string, rows []*study.Record) error {
	res := &study.Results{Stamp: study.NewStamp("compare"), Scenario: &study.Scenario{Name: "compare-layout",
		Description: fmt.Sprintf("compare --layout %s", layout), Workloads: []string{opts.Run.workload},
		Clusters: []string{opts.Run.cluster}, Placers: planners, Layout: layout}}
	var timings []study.Timing
	for _, r := range rows {
		res.Records = append(res.Records, *r)
		if r.PlaceTime != nil {
			timings = append(timings, study.Timing{Index: r.Index, PlaceTime: *r.PlaceTime})
		}
	}
	path := filepath.Join(opts.OutDir, "results.json")
	if err := study.WriteResults(path, res, timings); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if !opts.Quiet {
		fmt.Fprintf(opts.ErrOut, "wrote %s (%d stage planners)\n", path, len(rows))
	}
	return nil
}
