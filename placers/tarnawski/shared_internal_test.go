package tarnawski

import (
	"placesim/internal/sharedtest"
	"testing"

	"placesim/workloads"
	"placesim/workloads/fiddle"
)

// loadShared reads ../shared/workloads/msr-fiddle/file from the repository
// root.
func loadShared(t testing.TB, file string) *workloads.Graph {
	t.Helper()
	g, err := fiddle.ReadFile(sharedtest.Fiddle(t, file))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
