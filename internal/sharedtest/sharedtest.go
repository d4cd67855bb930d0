// Package sharedtest locates, for tests, the files shared beside the
// checkout: ../shared from the repository root (the directory holding
// go.mod), where the msr-fiddle workloads and the papers live. Tests read
// them from there rather than copying them in.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root, found by walking up from the working
// directory (a test runs in its package's directory) to go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Path returns ../shared/<elem...> from the repository root. When it does
// not exist the test is skipped, except under CI (CI set), where the shared
// folder is always beside the clone and a missing file is a failure.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Root(t), "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared file missing under CI: %v", err)
		}
		t.Skipf("shared file not found (it lives beside the checkout): %v", err)
	}
	return p
}

// Fiddle returns ../shared/workloads/msr-fiddle/<elem...>.
func Fiddle(t testing.TB, elem ...string) string {
	t.Helper()
	return Path(t, append([]string{"workloads", "msr-fiddle"}, elem...)...)
}
