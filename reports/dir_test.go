package reports_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"placesim/reports"
)

// TestWriteDir writes a whole comparison and checks the file set, that
// every file is complete, and what report.html holds.
func TestWriteDir(t *testing.T) {
	t.Parallel()
	rows, c := fixture(t, false)
	detail := tracedBest(t, rows, c)
	dir := filepath.Join(t.TempDir(), "out")
	var seen []string
	written, err := reports.WriteDir(dir, rows, reports.DirOptions{Cluster: c, Detail: detail,
		OnFile: func(p string) { seen = append(seen, filepath.Base(p)) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"results.json", "results.csv", "table.txt"}
	for _, f := range []string{"step_time", "place_time", "peak_memory", "gantt", "memory_timeline"} {
		want = append(want, f+".png", f+".svg")
	}
	want = append(want, "trace.json", "report.html")
	if !slices.Equal(seen, want) || len(written) != len(want) {
		t.Fatalf("wrote %v, want %v", seen, want)
	}
	for _, name := range want {
		if err := reports.CheckOutput(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	h := string(html)
	if n := strings.Count(h, "<svg"); n != 5 {
		t.Errorf("report.html embeds %d SVGs, want 5", n)
	}
	if strings.Contains(h, "<?xml") || regexp.MustCompile(`(?i)<(script|link|img)\b|src=`).MatchString(h) {
		t.Error("report.html is not self-contained or embeds an XML prolog")
	}
	for _, o := range rows {
		if !strings.Contains(h, "<td>"+o.Placer+"</td>") {
			t.Errorf("report.html lacks a row for %s", o.Placer)
		}
	}
	for _, s := range []string{`class="oom"`, `class="error"`, "timed out after", "trace.json", "acc0 → host-mem"} {
		if !strings.Contains(h, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}

	// without a detailed run: no timelines, and the report says why
	dir2 := filepath.Join(t.TempDir(), "out")
	if _, err := reports.WriteDir(dir2, rows, reports.DirOptions{Cluster: c, DetailNote: "no timelines: nothing ran"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gantt.png", "trace.json", "memory_timeline.svg"} {
		if _, err := os.Stat(filepath.Join(dir2, f)); err == nil {
			t.Errorf("%s written without a detailed run", f)
		}
	}
	if h2, _ := os.ReadFile(filepath.Join(dir2, "report.html")); !bytes.Contains(h2, []byte("no timelines: nothing ran")) {
		t.Error("report.html does not explain the missing timelines")
	}
}
