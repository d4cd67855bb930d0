// Package studytest holds test helpers over package study, as net/http's
// httptest does: they take a testing.TB, so that study itself never imports
// "testing".
package studytest

import (
	"context"
	"testing"

	"placesim/placers"
	"placesim/study"
)

// CheckAgainst fails t for every regression of the scenario recorded in
// baselineFile when re-run with reg (within tol; see study.Check), for use
// in any placer's tests:
//
//	studytest.CheckAgainst(t, "testdata/baseline.json", reg, 0.02)
func CheckAgainst(t testing.TB, baselineFile string, reg *placers.Registry, tol float64) {
	t.Helper()
	base, err := study.ReadResults(baselineFile)
	if err != nil {
		t.Fatal(err)
	}
	regs, _, err := study.Check(context.Background(), base, reg, tol)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		t.Errorf("regression: %s", r)
	}
}
