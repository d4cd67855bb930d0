package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"placesim/internal/scratch"
	"strconv"
	"strings"
	"time"

	"placesim/internal/units"
	"placesim/placers"
)

// Regression is one change of a point beyond its baseline's tolerance:
// for the worse (a longer step time, a larger peak memory, a new OOM or
// error, the point missing) or, when Better is set, for the better (a
// shorter step time or a smaller peak memory), which a placer's
// regression test must explain as well: a result that got faster
// unexplained is as suspicious as one that got slower.
type Regression struct {
	Key    string
	Reason string
	// Better is true for a figure that improved beyond the tolerance
	// (reported only by a two-sided check, BothSides).
	Better bool
}

func (r Regression) String() string { return r.Key + ": " + r.Reason }

// Sides says which changes beyond the tolerance a check reports.
type Sides int

const (
	// BothSides reports a step time or peak memory that moved beyond the
	// tolerance either way (the default of check).
	BothSides Sides = iota
	// WorseOnly reports only changes for the worse (check --one-sided).
	WorseOnly
)

// CompareResults finds the points of cur that changed from base by more
// than tol (relative, e.g. 0.02): a step time or peak memory beyond
// base*(1+tol), or, with BothSides, below base*(1-tol) (Regression.Better),
// a new OOM or error, or a point missing. Points new in cur are not
// checked.
func CompareResults(base, cur *Results, tol float64, sides Sides) []Regression {
	now := map[string]*Record{}
	for i := range cur.Records {
		now[cur.Records[i].Point.Key()] = &cur.Records[i]
	}
	var regs []Regression
	// beyond adds the change of one figure (cv against bv, printed by
	// show) when it is beyond the tolerance in a direction checked
	beyond := func(k, what string, cv, bv float64, show string) {
		worse, better := cv > bv*(1+tol), sides == BothSides && cv < bv*(1-tol)
		if worse || better {
			regs = append(regs, Regression{Key: k, Reason: fmt.Sprintf("%s, was %s (%+.1f%%, tolerance %.1f%%)", what, show, 100*(cv/bv-1), 100*tol), Better: better})
		}
	}
	for i := range base.Records {
		b := &base.Records[i]
		k := b.Point.Key()
		c, ok := now[k]
		switch {
		case !ok:
			regs = append(regs, Regression{Key: k, Reason: "missing from the new results"})
		case c.Error != "" && b.Error == "":
			regs = append(regs, Regression{Key: k, Reason: "now fails: " + c.Error})
		case c.OOM != nil && b.OOM == nil:
			regs = append(regs, Regression{Key: k, Reason: "now runs out of memory: " + c.OOM.Err().Error()})
		case c.NotComparable != "" && b.NotComparable == "":
			regs = append(regs, Regression{Key: k, Reason: "now not comparable in its regime: " + c.NotComparable})
		case b.Failed() || b.NotComparable != "":
			// nothing to compare against
		default:
			beyond(k, "step time "+units.Seconds(c.StepTime), c.StepTime, b.StepTime, units.Seconds(b.StepTime))
			cp, bp := c.MaxPeak(), b.MaxPeak()
			beyond(k, "peak memory "+units.Bytes(cp), float64(cp), float64(bp), units.Bytes(bp))
		}
	}
	return regs
}

// The ways a regression check fails closed; the CLI gives each its own
// exit code (placesim check --help).
var (
	// ErrBadTolerance: the tolerance is NaN, infinite, negative or not a
	// number.
	ErrBadTolerance = errors.New("invalid tolerance")
	// ErrEmptyBaseline: the baseline has no records, so nothing would be
	// checked.
	ErrEmptyBaseline = errors.New("baseline has no records")
	// ErrUnmatched: baseline points the re-run did not produce.
	ErrUnmatched = errors.New("baseline points not reproduced")
	// ErrResultsVersion: the file is not a results file of this placesim's
	// result format version.
	ErrResultsVersion = errors.New("results format version")
	// ErrBadBaseline: a baseline record no check can be made against (a
	// point recorded twice, a non-positive or non-finite step time, a
	// negative peak memory).
	ErrBadBaseline = errors.New("invalid baseline")
)

// Check re-runs the scenario recorded in baseline (in a temporary
// directory) with reg and returns the changes beyond tol, either way
// (BothSides). It fails
// closed: an invalid tolerance, an empty baseline, a baseline whose
// scenario names an executable or a directory (ErrUntrusted) and baseline
// points the re-run does not produce are errors, never a pass.
func Check(ctx context.Context, baseline *Results, reg *placers.Registry, tol float64) ([]Regression, *Results, error) {
	return CheckWith(ctx, baseline, RunOptions{Registry: reg}, tol, BothSides)
}

// CheckWith is Check with run options (the registry, workers and the
// command line's placer options; o.Dir is ignored: the re-run goes to a
// temporary directory that is removed) and the sides of the tolerance
// it reports.
func CheckWith(ctx context.Context, baseline *Results, o RunOptions, tol float64, sides Sides) ([]Regression, *Results, error) {
	if math.IsNaN(tol) || math.IsInf(tol, 0) || tol < 0 {
		return nil, nil, fmt.Errorf("%w: %v (valid: a finite number >= 0)", ErrBadTolerance, tol)
	}
	if len(baseline.Records) == 0 {
		return nil, nil, fmt.Errorf("%w: nothing to check against (re-record it with placesim run)", ErrEmptyBaseline)
	}
	if baseline.Shard != "" {
		return nil, nil, fmt.Errorf("baseline is shard %s of a run, not the whole run: merge the shards first (placesim merge)", baseline.Shard)
	}
	for _, r := range baseline.Records {
		if r.Regime == "" {
			return nil, nil, fmt.Errorf("baseline %q was recorded before results carried their execution regime (placers then played in mixed regimes): record it again with placesim run", baseline.Scenario.Name)
		}
	}
	if err := checkBaselineRecords(baseline.Records); err != nil {
		return nil, nil, err
	}
	// a large-model layout point is replayed from its record (its
	// workload, system and settings, layout and stage planner), as sweep
	// --layout, train, compare --layout and a search wrote it: their
	// scenarios are descriptions, not scenarios RunScenario plays
	// (check_layout.go); every one is checked before any simulation
	lrs, err := layoutReplays(baseline.Records)
	if err != nil {
		return nil, nil, err
	}
	cur := &Results{Scenario: baseline.Scenario}
	if len(lrs) < len(baseline.Records) {
		if cur, err = rerunScenario(ctx, baseline, o); err != nil {
			return nil, nil, err
		}
	}
	now := map[string]bool{}
	for i := range cur.Records {
		now[cur.Records[i].Point.Key()] = true
	}
	// the layout points the scenario's re-run did not play (all of them
	// but a scenario's own layout points)
	var todo []layoutReplay
	for _, lr := range lrs {
		if !now[lr.base.Point.Key()] {
			todo = append(todo, lr)
		}
	}
	if len(todo) > 0 {
		timeout := 10 * time.Minute // a scenario's default (Scenario.timeout)
		if baseline.Scenario != nil {
			if timeout, err = baseline.Scenario.timeout(); err != nil {
				return nil, nil, fmt.Errorf("scenario: %w", err)
			}
		}
		recs, err := replayLayouts(ctx, todo, o, timeout)
		if err != nil {
			return nil, nil, err
		}
		for i := range recs {
			now[recs[i].Point.Key()] = true
		}
		cur.Records = append(cur.Records, recs...)
	}
	var missing []string
	for i := range baseline.Records {
		if k := baseline.Records[i].Point.Key(); !now[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		shown := missing[:min(len(missing), 3)]
		return nil, cur, fmt.Errorf("%w: %d of %d baseline points are not produced by re-running its scenario (%s)",
			ErrUnmatched, len(missing), len(baseline.Records), strings.Join(shown, "; "))
	}
	return CompareResults(baseline, cur, tol, sides), cur, nil
}

// rerunScenario re-runs baseline's scenario in a scratch directory
// (removed when an interrupted command exits, even while this run is
// abandoned on its goroutine).
func rerunScenario(ctx context.Context, baseline *Results, o RunOptions) (*Results, error) {
	if err := baseline.Scenario.Validate(o.Registry); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	dir, remove, err := scratch.MkdirTemp(ctx, "placesim-check-")
	if err != nil {
		return nil, err
	}
	defer remove()
	o.Dir, o.Shard = dir, Shard{}
	cur, _, err := RunScenario(ctx, baseline.Scenario, o)
	return cur, err
}

// checkBaselineRecords refuses a baseline that could not be compared
// with honestly: a point recorded twice (one copy would go unchecked), or
// a simulated point whose step time is not a finite number > 0 or whose
// peak memory is negative (every re-run would pass or fail against it
// whatever it measured).
func checkBaselineRecords(recs []Record) error {
	seen := make(map[string]int, len(recs))
	for i := range recs {
		r := &recs[i]
		k := r.Point.Key()
		if j, ok := seen[k]; ok {
			return fmt.Errorf("%w: records[%d] and records[%d] are the same point (%s)", ErrBadBaseline, j, i, k)
		}
		seen[k] = i
		// figures no simulation gives (a step time of MaxFloat64 or 0, a
		// negative throughput, negative memory) would make every re-run
		// pass or fail against them (issue 31)
		if err := checkRecordValues(r); err != nil {
			return fmt.Errorf("%w: records[%d].%v (%s)", ErrBadBaseline, i, err, k)
		}
	}
	return nil
}

// ParseTolerance parses "2%" or "0.02": a finite number in [0, 10]
// (0% to 1000%). NaN, infinities, negative values and trailing text are
// ErrBadTolerance.
func ParseTolerance(s string) (float64, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	if pct {
		v /= 100
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 10 {
		return 0, fmt.Errorf("%w %q (valid: a percentage such as 2%% or a fraction such as 0.02, in [0, 1000%%])", ErrBadTolerance, s)
	}
	return v, nil
}

// SelectRegimes keeps the points of res played in one of regimes (each in
// ParseRegime's syntax) and the scenario's regimes to those, so that a
// check re-runs and compares only them. It is an error when res has no
// point in one of them.
func SelectRegimes(res *Results, regimes []Regime) (*Results, error) {
	want := map[string]bool{}
	var names []string
	for _, r := range regimes {
		want[r.String()] = true
		names = append(names, r.String())
	}
	have := map[string]bool{}
	var haveList []string
	out := &Results{Format: res.Format, Version: res.Version, Shard: res.Shard}
	for _, rec := range res.Records {
		if !have[rec.Regime] {
			have[rec.Regime] = true
			haveList = append(haveList, rec.Regime)
		}
		if want[rec.Regime] {
			out.Records = append(out.Records, rec)
		}
	}
	for _, n := range names {
		if !have[n] {
			return nil, fmt.Errorf("the baseline has no point in regime %s (its regimes: %s)", n, strings.Join(haveList, ", "))
		}
	}
	sc := *res.Scenario
	sc.Regimes = RegimeList(regimes)
	out.Scenario = &sc
	return out, nil
}
