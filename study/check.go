package study

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"placesim/internal/units"
	"placesim/placers"
)

// Regression is one point that got worse than its baseline.
type Regression struct {
	Key    string
	Reason string
}

func (r Regression) String() string { return r.Key + ": " + r.Reason }

// Compare finds the points of cur that are worse than in base by more than
// tol (relative, e.g. 0.02): a longer step time, a larger peak memory, a
// new OOM or error, or a point missing. Points new in cur are not checked.
func CompareResults(base, cur *Results, tol float64) []Regression {
	now := map[string]*Record{}
	for i := range cur.Records {
		now[cur.Records[i].Point.Key()] = &cur.Records[i]
	}
	var regs []Regression
	for i := range base.Records {
		b := &base.Records[i]
		k := b.Point.Key()
		c, ok := now[k]
		switch {
		case !ok:
			regs = append(regs, Regression{k, "missing from the new results"})
		case c.Error != "" && b.Error == "":
			regs = append(regs, Regression{k, "now fails: " + c.Error})
		case c.OOM != nil && b.OOM == nil:
			regs = append(regs, Regression{k, "now runs out of memory: " + c.OOM.Err().Error()})
		case b.Failed():
			// nothing to compare against
		default:
			if c.StepTime > b.StepTime*(1+tol) {
				regs = append(regs, Regression{k, fmt.Sprintf("step time %s, was %s (+%.1f%%, tolerance %.1f%%)",
					units.Seconds(c.StepTime), units.Seconds(b.StepTime), 100*(c.StepTime/b.StepTime-1), 100*tol)})
			}
			if cp, bp := c.MaxPeak(), b.MaxPeak(); float64(cp) > float64(bp)*(1+tol) {
				regs = append(regs, Regression{k, fmt.Sprintf("peak memory %s, was %s (+%.1f%%, tolerance %.1f%%)",
					units.Bytes(cp), units.Bytes(bp), 100*(float64(cp)/float64(bp)-1), 100*tol)})
			}
		}
	}
	return regs
}

// Check re-runs the scenario recorded in baseline (in a temporary
// directory) with reg and returns the regressions beyond tol.
func Check(ctx context.Context, baseline *Results, reg *placers.Registry, tol float64) ([]Regression, *Results, error) {
	dir, err := os.MkdirTemp("", "placesim-check-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	cur, _, err := RunScenario(ctx, baseline.Scenario, RunOptions{Registry: reg, Dir: dir})
	if err != nil {
		return nil, nil, err
	}
	return CompareResults(baseline, cur, tol), cur, nil
}

// ParseTolerance parses "2%" or "0.02".
func ParseTolerance(s string) (float64, error) {
	var v float64
	var err error
	if p, ok := strings.CutSuffix(s, "%"); ok {
		_, err = fmt.Sscan(p, &v)
		v /= 100
	} else {
		_, err = fmt.Sscan(s, &v)
	}
	if err != nil || v < 0 || v > 10 {
		return 0, fmt.Errorf("tolerance %q (valid: a percentage such as 2%% or a fraction such as 0.02, in [0, 1000%%])", s)
	}
	return v, nil
}

// CheckAgainst fails t for every regression of the scenario recorded in
// baselineFile when re-run with reg (within tol), for use in any placer's
// tests:
//
//	study.CheckAgainst(t, "testdata/baseline.json", reg, 0.02)
func CheckAgainst(t testing.TB, baselineFile string, reg *placers.Registry, tol float64) {
	t.Helper()
	base, err := ReadResults(baselineFile)
	if err != nil {
		t.Fatal(err)
	}
	regs, _, err := Check(context.Background(), base, reg, tol)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		t.Errorf("regression: %s", r)
	}
}
