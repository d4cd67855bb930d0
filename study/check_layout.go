package study

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"placesim/devices"
	"placesim/placers"
)

// ErrNotReplayable marks a baseline record of a large-model layout that
// check cannot replay from what it holds (an empty workload, cluster,
// placer or regime, a layout that does not parse, a setting no layout
// command writes). It wraps ErrUnmatched: the point cannot be reproduced,
// so the check fails (never a silent pass).
var ErrNotReplayable = fmt.Errorf("%w: record cannot be replayed", ErrUnmatched)

// searchLayoutPrefix introduces a layout search candidate's regime
// ("layout SPEC", searchRegime).
const searchLayoutPrefix = "layout "

// layoutSpec is the layout of a record's regime: "layout:SPEC" (a
// scenario's layout points, sweep --layout, train, simulate --layout and
// compare --layout) or "layout SPEC" (a layout search's candidates); ok
// is false for a graph regime (step, gpipe:8, dp:4, ...).
func layoutSpec(regime string) (spec string, ok bool) {
	if s, ok := strings.CutPrefix(regime, layoutPrefix); ok {
		return s, true
	}
	return strings.CutPrefix(regime, searchLayoutPrefix)
}

// IsLayoutRecord reports whether r is the record of a large-model
// iteration under a layout (its regime layout:SPEC, or a search
// candidate's "layout SPEC"), which check replays from the record itself
// (LayoutReplay) instead of re-running its scenario.
func IsLayoutRecord(r *Record) bool {
	_, ok := layoutSpec(r.Regime)
	return ok
}

// LayoutReplay is the request that replays layout record r the way it
// was produced: its workload, its cluster (a one-line system, a preset
// or a cluster file) with its system.KEY settings applied as sweep
// --layout applied them (devices.SetSystemSetting), the layout of its
// regime (which is the layout as played: sweep --layout records it after
// a layout.KEY, precision or gpus setting) and its placer as the stage
// planner.
//
// A record that does not hold enough to replay it is an error naming the
// field (workload, cluster, placer, regime, settings[k]) and what it
// needs. setErr is not nil when the record's system setting no longer
// applies to its cluster (devices.SetSystemSetting's error): the point
// is then replayed as a failure, not refused.
func LayoutReplay(r *Record) (req LayoutRequest, setErr error, err error) {
	spec, ok := layoutSpec(r.Regime)
	if !ok {
		return req, nil, fmt.Errorf("field regime = %q is not a layout (valid: layout:SPEC)", r.Regime)
	}
	empty := func(field, what string) error {
		return fmt.Errorf("field %s is missing or empty (a layout point is replayed from %s)", field, what)
	}
	switch {
	case strings.TrimSpace(r.Workload) == "":
		return req, nil, empty("workload", "its model, zoo:NAME[?overrides]")
	case strings.TrimSpace(r.Cluster) == "":
		return req, nil, empty("cluster", "the system, preset or cluster file it ran on")
	case strings.TrimSpace(r.Placer) == "":
		return req, nil, empty("placer", "its stage planner: even or a placer name")
	case strings.TrimSpace(spec) == "":
		return req, nil, empty("regime", "its layout, layout:SPEC")
	}
	regime, err := LayoutRegime(spec)
	if err != nil {
		return req, nil, fmt.Errorf("field regime = %q: %w", r.Regime, err)
	}
	cluster := r.Cluster
	for k, s := range r.Settings {
		switch key, isSystem := strings.CutPrefix(s.Param, "system."); {
		case isSystem:
			if setErr == nil {
				cluster, setErr = devices.SetSystemSetting(cluster, key, s.Value)
			}
		case s.Param == "precision", s.Param == "gpus", strings.HasPrefix(s.Param, "layout."):
			// already in the regime: the layout as played
		default:
			return req, nil, fmt.Errorf("field settings[%d] = %s: a layout point is replayed with system.KEY, precision, gpus or layout.KEY settings (what-if settings do not apply to a layout)", k, s)
		}
	}
	return LayoutRequest{Workload: r.Workload, Cluster: cluster, Regime: regime, Planner: r.Placer}, setErr, nil
}

// layoutReplay is a baseline layout record ready to replay.
type layoutReplay struct {
	base   *Record
	req    LayoutRequest
	setErr error
}

// layoutReplays builds the replay of every layout record of recs (in
// order), before any simulation. A record that cannot be replayed is
// ErrNotReplayable naming records[i], the point and the field, unless the
// baseline itself recorded the point as an error (nothing is compared
// with it then; its replay is that error again).
func layoutReplays(recs []Record) ([]layoutReplay, error) {
	var out []layoutReplay
	for i := range recs {
		r := &recs[i]
		if !IsLayoutRecord(r) {
			continue
		}
		req, setErr, err := LayoutReplay(r)
		if err != nil {
			if r.Error == "" {
				return nil, fmt.Errorf("%w: records[%d] (%s): %v", ErrNotReplayable, i, r.Point.Key(), err)
			}
			setErr = err
		}
		out = append(out, layoutReplay{base: r, req: req, setErr: setErr})
	}
	return out, nil
}

// replayLayout plays one baseline layout record again through
// SimulateLayout (the path runLayoutPoint, train, simulate --layout and
// sweep --layout take) within timeout; every failure is in the record.
// The record's point is the baseline's, so that it is compared with it.
// complete is false when ctx ended before it did.
func replayLayout(ctx context.Context, reg *placers.Registry, lr layoutReplay, timeout time.Duration) (rec Record, complete bool) {
	p := lr.base.Point
	defer func() {
		if e := recover(); e != nil {
			rec = Record{Point: p, Error: fmt.Sprintf("panic: %v", e)}
		}
	}()
	if lr.setErr != nil {
		return Record{Point: p, Error: lr.setErr.Error()}, true
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	j, r, err := SimulateLayout(pctx, reg, lr.req)
	if ctx.Err() != nil {
		return Record{Point: p}, false
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s: %w", timeout, err)
		}
		return Record{Point: p, Error: err.Error()}, true
	}
	rec = LayoutRecord(p, j, r)
	if err := checkFinite(rec.StepTime, rec.Throughput); err != nil {
		return Record{Point: p, Error: err.Error()}, true
	}
	// a record that names the system it ran on (sweep --layout, train)
	// must be replayed on that system, else its figures are another's
	if b := lr.base.LLM; b != nil && b.System != "" && lr.base.Error == "" && b.System != j.Cluster.Name {
		return Record{Point: p, Error: fmt.Sprintf("replayed on system %q, but the record ran on %q (llm.system)", j.Cluster.Name, b.System)}, true
	}
	return rec, true
}

// replayLayouts replays lrs on o.Workers goroutines (the work pool of
// RunScenario), each within timeout, and returns their records in lrs'
// order; an interrupted replay is an error.
func replayLayouts(ctx context.Context, lrs []layoutReplay, o RunOptions, timeout time.Duration) ([]Record, error) {
	out := make([]Record, len(lrs))
	idx := make([]int, len(lrs))
	for i := range idx {
		idx[i] = i
	}
	finished := 0
	pool := workPool[int]{Workers: o.Workers,
		Work: func(i int) (journalLine, bool) {
			rec, complete := replayLayout(ctx, o.Registry, lrs[i], timeout)
			return journalLine{Record: rec}, complete
		},
		Done: func(i int, line journalLine) {
			out[i] = line.Record
			finished++
			if o.Progress != nil {
				o.Progress(finished, len(lrs), lrs[i].base.Point)
			}
		}}
	if o.Start != nil {
		pool.Start = func(i int) { o.Start(lrs[i].base.Point) }
	}
	if err := pool.run(ctx, idx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check interrupted (%d of %d layout points replayed): %w", finished, len(lrs), err)
	}
	return out, nil
}
