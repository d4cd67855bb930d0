package scratch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTrackerRemovesAbandonedDirs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var tr Tracker
	ctx := WithTracker(context.Background(), &tr)
	kept, _, err := MkdirTemp(ctx, "placesim-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "model.mps"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	done, remove, err := MkdirTemp(ctx, "placesim-test-")
	if err != nil {
		t.Fatal(err)
	}
	remove()
	if _, err := os.Stat(done); !os.IsNotExist(err) {
		t.Fatalf("removed directory still there: %v", err)
	}
	if n := tr.Pending(); n != 1 {
		t.Fatalf("%d pending, want 1 (the abandoned one)", n)
	}
	if left := tr.RemoveAll(time.Second); len(left) != 0 {
		t.Fatalf("could not remove %v", left)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Fatalf("abandoned directory still there: %v", err)
	}
	if n := tr.Pending(); n != 0 {
		t.Fatalf("%d pending after RemoveAll", n)
	}
}

func TestMkdirTempWithoutTracker(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, remove, err := MkdirTemp(context.Background(), "placesim-test-")
	if err != nil {
		t.Fatal(err)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("directory still there: %v", err)
	}
}
