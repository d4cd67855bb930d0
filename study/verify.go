package study

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrForeignRecord marks a results record that is not a point of its
// results' scenario (an index out of range, another workload, cluster,
// placer, seed, settings or regime than the point of its index), belongs
// to another shard, or holds figures no simulation gives (a negative or
// non-finite step time, throughput or memory).
var ErrForeignRecord = errors.New("record not of this scenario")

// ErrMissingPoints marks merged results that lack points of their
// scenario.
var ErrMissingPoints = errors.New("points missing")

// checkRecordValues refuses a record's figures that no simulation gives:
// for a simulated point a step time outside (0, MaxStepTime] (or, with an
// out-of-memory, not finite or negative), a throughput not finite or
// negative; for every point negative memory, bytes or transfers.
func checkRecordValues(r *Record) error {
	bad := func(field string, v any, valid string) error {
		return fmt.Errorf("%s = %v (valid: %s)", field, v, valid)
	}
	if r.Error == "" && r.NotComparable == "" {
		switch {
		case math.IsNaN(r.StepTime) || math.IsInf(r.StepTime, 0) || r.StepTime < 0:
			return bad("stepTime", r.StepTime, fmt.Sprintf("a finite time in (0, %g] s", float64(MaxStepTime)))
		case r.OOM == nil && (r.StepTime == 0 || r.StepTime > MaxStepTime):
			return bad("stepTime", r.StepTime, fmt.Sprintf("a time in (0, %g] s for a simulated point", float64(MaxStepTime)))
		case math.IsNaN(r.Throughput) || math.IsInf(r.Throughput, 0) || r.Throughput < 0:
			return bad("throughput", r.Throughput, "a finite rate >= 0 samples/s")
		}
	}
	for d, p := range r.PeakMemory {
		if p < 0 {
			return bad(fmt.Sprintf("peakMemory[%d]", d), p, ">= 0 bytes")
		}
	}
	for d, c := range r.Capacity {
		if c < 0 {
			return bad(fmt.Sprintf("capacity[%d]", d), c, ">= 0 bytes")
		}
	}
	if r.BytesMoved < 0 {
		return bad("bytesMoved", r.BytesMoved, ">= 0 bytes")
	}
	if r.Transfers < 0 {
		return bad("transfers", r.Transfers, ">= 0")
	}
	return nil
}

// pointMismatch names the first field in which record r differs from the
// scenario's point p of the same index, or "".
func pointMismatch(r *Record, p *Point) string {
	switch {
	case r.Workload != p.Workload:
		return fmt.Sprintf("workload %q, but point %d of the scenario is %q", r.Workload, p.Index, p.Workload)
	case r.Cluster != p.Cluster:
		return fmt.Sprintf("cluster %q, but point %d of the scenario is on %q", r.Cluster, p.Index, p.Cluster)
	case r.Placer != p.Placer:
		return fmt.Sprintf("placer %q, but point %d of the scenario is %q's", r.Placer, p.Index, p.Placer)
	case r.Seed != p.Seed:
		return fmt.Sprintf("seed %d, but point %d of the scenario has seed %d", r.Seed, p.Index, p.Seed)
	case !slices.Equal(r.Settings, p.Settings):
		return fmt.Sprintf("settings %v, but point %d of the scenario has %v", r.Settings, p.Index, p.Settings)
	case r.Regime != p.Regime:
		return fmt.Sprintf("regime %q, but point %d of the scenario plays %q", r.Regime, p.Index, p.Regime)
	}
	return ""
}

// verifyRecord checks record i of the results part (the file name) of
// shard sh (N = 0: not a shard) against the scenario's points: it must be
// the scenario's point of its index, of its part's shard, with figures a
// simulation gives. The error names the file, the record's position in
// it and the field at fault (issue 31: merge accepted records with index
// 999 or -1, another workload, a negative step time, or missing points,
// and check then passed).
func verifyRecord(name string, i int, r *Record, part *Results, sh Shard, pts []Point) error {
	at := fmt.Sprintf("merge: %s: records[%d] (index %d, %s)", name, i, r.Index, r.Placer)
	switch {
	case r.Index < 0 || r.Index >= len(pts):
		return fmt.Errorf("%s: %w: index %d (valid: 0 to %d, the %d points of scenario %q)", at, ErrForeignRecord, r.Index, len(pts)-1, len(pts), part.Scenario.Name)
	case sh.N > 1 && r.Index%sh.N != sh.I:
		return fmt.Errorf("%s: %w: index %d is a point of shard %d/%d, not of this file's shard %s", at, ErrForeignRecord, r.Index, r.Index%sh.N, sh.N, part.Shard)
	}
	if m := pointMismatch(r, &pts[r.Index]); m != "" {
		return fmt.Errorf("%s: %w: %s", at, ErrForeignRecord, m)
	}
	if err := checkRecordValues(r); err != nil {
		return fmt.Errorf("%s: %w: %v", at, ErrForeignRecord, err)
	}
	return nil
}

// missingPoints refuses merged results whose have (by point index) lacks
// a point of scenario s.
func missingPoints(s *Scenario, have []bool) error {
	var missing []string
	n := 0
	for i, ok := range have {
		if !ok {
			if n++; len(missing) < 5 {
				missing = append(missing, fmt.Sprint(i))
			}
		}
	}
	if n > 0 {
		return fmt.Errorf("merge: %w: %d of the %d points of scenario %q are in no part (indexes %s%s; give every shard's results)",
			ErrMissingPoints, n, len(have), s.Name, strings.Join(missing, ", "), map[bool]string{true: ", ...", false: ""}[n > len(missing)])
	}
	return nil
}
