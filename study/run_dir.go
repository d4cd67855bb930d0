package study

import (
	"context"
	"fmt"

	"placesim/reports"
)

// RunToDir runs scenario s into o.Dir (placesim run, sweep and the re-run
// of check): it validates the scenario, prepares the directory, runs the
// points (resuming from the journal) and writes the results file
// atomically. A cancelled ctx returns ctx's error with no results file
// written (the journal keeps the finished points for a resume).
func RunToDir(ctx context.Context, s *Scenario, o RunOptions) (*Results, error) {
	if err := s.Validate(o.Registry); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	if o.Stamp != nil {
		if err := ClaimDir(o.Dir, o.Stamp.Command); err != nil {
			return nil, err
		}
	}
	if err := reports.PrepareDir(o.Dir); err != nil {
		return nil, err
	}
	res, timings, err := RunScenario(ctx, s, o)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Stamp = o.Stamp
	if err := WriteResults(o.ResultsFile(), res, timings); err != nil {
		return nil, err
	}
	return res, nil
}
