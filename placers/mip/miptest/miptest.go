// Package miptest holds test helpers for code that needs the cbc solver.
package miptest

import (
	"os"
	"testing"

	"placesim/placers/mip"
)

// RequireEnv is the environment variable that makes a missing solver a
// test failure instead of a skip (CI sets it).
const RequireEnv = "PLACESIM_REQUIRE_CBC"

// Require skips t when cbc is not installed ("install coinor-cbc"), or
// fails it when the environment variable PLACESIM_REQUIRE_CBC is 1.
func Require(t testing.TB) {
	t.Helper()
	if _, err := mip.LookPath(""); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1: the MIP tests must run)", err, RequireEnv)
		}
		t.Skipf("skipping: %v", err)
	}
}
