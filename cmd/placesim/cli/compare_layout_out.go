package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"placesim/reports"
	"placesim/study"
)

// claimLayoutOut claims --out for a large-model command (train, simulate
// --layout, compare --layout) before anything is simulated: the folder
// guard (claimOutDir) and study.ClaimDir, which refuses a folder holding
// another command's results. release must be called when the command
// ends.
func claimLayoutOut(dir, command string) (release func(), err error) {
	release, err = claimOutDir("--out", dir, command, study.Shard{})
	if err != nil {
		return nil, err
	}
	if err := study.ClaimDir(dir, command); err != nil {
		release()
		return nil, fmt.Errorf("--out: %w", err)
	}
	return release, nil
}

// writeLayoutResults writes a large-model command's results into dir
// (--out): results.json through study.WriteResults (the writer of every
// command's results, with timings, when given, in results.timings.json)
// and results.csv through study.WriteRecordsCSV (run's and search's, the
// rows --format csv prints), so that placesim check --baseline
// DIR/results.json replays each record. train, simulate --layout and
// compare --layout all write through it. Unless quiet, a "wrote" line
// naming both files goes to errOut.
func writeLayoutResults(errOut io.Writer, quiet bool, dir string, res *study.Results, timings []study.Timing) error {
	path := filepath.Join(dir, "results.json")
	if err := study.WriteResults(path, res, timings); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	csvPath := filepath.Join(dir, "results.csv")
	if err := reports.WriteFileAtomicFunc(csvPath, func(w io.Writer) error { return study.WriteRecordsCSV(w, res) }); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if !quiet {
		noun := "records"
		if len(res.Records) == 1 {
			noun = "record"
		}
		fmt.Fprintf(errOut, "wrote %s and %s (%d %s)\n", path, csvPath, len(res.Records), noun)
	}
	return nil
}

// layoutResults is the results of a large-model command: the results
// schema (runresult.File) with its records, its scenario the run as a
// scenario with a layout (the workload, the cluster, the stage planners,
// the layout) named name and described as the command line.
func layoutResults(command, name, workload, cluster, layout string, planners []string, recs []study.Record) *study.Results {
	return &study.Results{Stamp: study.NewStamp(command), Scenario: &study.Scenario{Name: name,
		Description: fmt.Sprintf("%s --layout %s", command, layout), Workloads: []string{workload},
		Clusters: []string{cluster}, Placers: planners, Layout: layout},
		Records: recs}
}

// writeLayoutComparison writes compare --layout's results into --out
// (writeLayoutResults): a record per stage planner (as --format json
// prints them), its scenario the comparison as a scenario with a layout
// (workload, cluster, the planners, the layout), so that placesim check
// --baseline DIR/results.json replays each planner's point. Planning
// wall times go to results.timings.json, as compare's.
func writeLayoutComparison(opts *CompareOptions, layout string, planners []string, rows []*study.Record) error {
	var recs []study.Record
	var timings []study.Timing
	for _, r := range rows {
		recs = append(recs, *r)
		if r.PlaceTime != nil {
			timings = append(timings, study.Timing{Index: r.Index, PlaceTime: *r.PlaceTime})
		}
	}
	res := layoutResults("compare", "compare-layout", opts.Run.workload, opts.Run.cluster, layout, planners, recs)
	return writeLayoutResults(opts.ErrOut, opts.Quiet, opts.OutDir, res, timings)
}
