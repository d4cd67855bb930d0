package tarnawski

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"placesim/workloads"
	"placesim/workloads/fiddle"
)

// loadShared reads ../shared/workloads/msr-fiddle/file from the repository
// root.
func loadShared(t testing.TB, file string) *workloads.Graph {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "workloads", "msr-fiddle", file)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared workload not found: %v", err)
	}
	g, err := fiddle.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
