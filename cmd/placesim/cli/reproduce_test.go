package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyPaper is a paper scenario of two cells and one claim, small enough
// for reproduce's tests.
const tinyPaper = `name: tiny-paper
workloads: ["zoo:mlp?training=true&batch=64"]
clusters: [4xV100-pcie]
placers: [single, round-robin]
paper:
  title: Tiny (Table 9)
  metric: stepTime
  cells:
    - {table: "Table 9", row: MLP, workload: "zoo:mlp?training=true&batch=64", placer: single, value: 1.0}
    - {table: "Table 9", row: MLP, workload: "zoo:mlp?training=true&batch=64", placer: round-robin, value: 2.0}
  claims:
    - {text: "one device beats round robin", kind: best, placer: single, than: [round-robin]}
`

// TestReproducePrintsScoreboards: reproduce runs each scenario of
// --scenarios with a paper section (the others are left out), prints its
// scoreboard and a summary line per scenario, and says what it skipped.
func TestReproducePrintsScoreboards(t *testing.T) {
	dir := t.TempDir()
	paper := tinyPaper
	plain := "name: plain\nworkloads: [\"zoo:mlp\"]\nclusters: [4xV100-pcie]\nplacers: [single]\n"
	missing := strings.Replace(paper, `"zoo:mlp?training=true&batch=64"]`, `"nowhere/graph.json"]`, 1)
	missing = strings.Replace(missing, "name: tiny-paper", "name: tiny-missing", 1)
	for name, body := range map[string]string{"tiny-paper.yaml": paper, "plain.yaml": plain, "tiny-missing.yaml": missing} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "reproduce", "tiny", "--scenarios", dir, "--out", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"scoreboard: Tiny (Table 9)", "orderings Table 9", "claim [", "summary:", "tiny-paper", "skipped tiny-missing"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output does not say %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "plain") {
		t.Errorf("a scenario without a paper section was run:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "tiny-paper", "scoreboard.txt")); err != nil {
		t.Errorf("no scoreboard.txt beside the results: %v", err)
	}
	code, _, stderr = run(t, "reproduce", "nosuchpaper", "--scenarios", dir, "--out", out, "-q")
	if code == 0 || !strings.Contains(stderr, "valid PAPER") {
		t.Errorf("unknown paper: exit %d, %q", code, stderr)
	}
}
