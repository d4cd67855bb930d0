package reports_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"placesim/reports"
)

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := reports.WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries after two writes, want 1 (no temporary left)", len(ents))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if err := reports.WriteFileAtomic(filepath.Join(dir, "missing", "x.json"), nil); err == nil || !strings.Contains(err.Error(), "x.json") {
		t.Fatalf("write into a missing directory: %v", err)
	}
}

func TestCleanTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]bool{ // name: is a temporary of WriteFileAtomic
		".results.json.tmp123456": true,
		".report.html.tmp9":       true,
		"results.json":            false,
		".hidden":                 false,
		".notes.tmp":              false,
		"x.tmp12":                 false,
	}
	for n := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := reports.CleanTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	for n, tmp := range files {
		_, statErr := os.Stat(filepath.Join(dir, n))
		if gone := statErr != nil; gone != tmp || slices.Contains(removed, n) != tmp {
			t.Errorf("%s: removed %v, want %v", n, gone, tmp)
		}
	}
}

func TestPrepareDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, wantErr string
	}{
		{"new nested", filepath.Join(dir, "a", "b"), ""},
		{"under a regular file", filepath.Join(file, "out"), "cannot be created"},
		{"a regular file", file, "cannot be created"},
		{"empty", "", "empty path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := reports.PrepareDir(tc.dir)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(tc.dir); err != nil || !fi.IsDir() {
					t.Fatalf("directory not created: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.dir) {
				t.Fatalf("error %v, want one naming %q and saying %q", err, tc.dir, tc.wantErr)
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := reports.PrepareDir(ro); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("read-only directory: %v", err)
		}
	}
}

func TestCheckOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, content string
		ok            bool
	}{
		{"a.json", `{"results": []}`, true},
		{"b.json", `{"results": [`, false},
		{"a.csv", "placer,stepTime\nsingle,1\n", true},
		{"b.csv", "placer,stepTime\n\"single,1\n", false},
		{"a.svg", "<?xml version=\"1.0\"?>\n<svg width=\"1pt\"><g></g></svg>\n", true},
		{"b.svg", "<?xml version=\"1.0\"?>\n<svg width=\"1pt\"><g>", false},
		{"a.png", "\x89PNG\r\n\x1a\n", false},
		{"a.html", "<!DOCTYPE html><html><body></body></html>\n", true},
		{"b.html", "<!DOCTYPE html><html><body>", false},
		{"a.txt", "┌─┐\n└─┘\n", true},
		{"b.txt", "┌─┐\n│", false},
		{"a.bin", "x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := reports.CheckOutput(p); (err == nil) != tc.ok {
				t.Fatalf("CheckOutput: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
