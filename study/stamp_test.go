package study_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"placesim/study"
)

// TestStamp: SOURCE_DATE_EPOCH fixes the stamp's date (byte-identical
// results files); the caption names version, command and date.
func TestStamp(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "86400")
	s := study.NewStamp("sweep")
	if s.Date != "1970-01-02T00:00:00Z" || s.Command != "sweep" || s.Placesim == "" {
		t.Fatalf("stamp %+v", s)
	}
	if got, want := s.String(), "placesim "+s.Placesim+" sweep, 1970-01-02T00:00:00Z"; got != want {
		t.Fatalf("caption %q, want %q", got, want)
	}
}

// TestClaimDir: a folder is free when empty or holding the same command's
// results (merge goes with run and sweep), refused when another wrote it.
func TestClaimDir(t *testing.T) {
	dir := t.TempDir()
	if err := study.ClaimDir(dir, "compare"); err != nil {
		t.Fatalf("empty folder: %v", err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"format": "placesim-results", "version": 3, "stamp": {"placesim": "v", "command": "run"}, "scenario": {}}`)
	for cmd, ok := range map[string]bool{"run": true, "merge": true, "compare": false, "sweep": false} {
		err := study.ClaimDir(dir, cmd)
		if ok != (err == nil) || (!ok && !errors.Is(err, study.ErrOtherCommand)) {
			t.Errorf("%s into run's folder: %v", cmd, err)
		}
	}
	write(`{"results": []}`) // compare's before the one schema
	if err := study.ClaimDir(dir, "run"); !errors.Is(err, study.ErrOtherCommand) {
		t.Errorf("run into an old compare folder: %v", err)
	}
}
