package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeInputsChanged: a cluster file edited between two runs into the
// same --out makes the second run re-simulate the points that use it, and
// say so; the points of an unchanged cluster are reused.
func TestResumeInputsChanged(t *testing.T) {
	dir := t.TempDir()
	cf := filepath.Join(dir, "c.yaml")
	write := func(bw string) {
		os.WriteFile(cf, []byte("name: c\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b], kind: pcie3, bandwidth: "+bw+"}]\n"), 0o644)
	}
	write("16GB/s")
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("name: s\nworkloads: [\"zoo:mlp?batch=64\"]\nclusters: [4xV100-pcie, "+cf+"]\nplacers: [round-robin]\n"), 0o644)
	out := filepath.Join(dir, "out")
	step := func() (map[string]float64, string) {
		code, _, errs := run(t, "run", sc, "-q", "--out", out)
		if code != 0 {
			t.Fatalf("run: exit %d: %s", code, errs)
		}
		var res struct {
			Records []struct {
				Cluster  string  `json:"cluster"`
				StepTime float64 `json:"stepTime"`
			} `json:"records"`
		}
		data, _ := os.ReadFile(filepath.Join(out, "results.json"))
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, r := range res.Records {
			m[r.Cluster] = r.StepTime
		}
		return m, errs
	}
	first, errs := step()
	if strings.Contains(errs, "re-simulating") {
		t.Fatalf("a fresh run reported re-simulation: %s", errs)
	}
	if _, errs := step(); strings.Contains(errs, "re-simulating") {
		t.Fatalf("an unchanged resume re-simulated: %s", errs)
	}
	write("0.5GB/s")
	second, errs := step()
	if !strings.Contains(errs, "re-simulating 1 journaled points") || !strings.Contains(errs, "changed: cluster") {
		t.Fatalf("stderr %q does not report the re-simulated point", errs)
	}
	if !(second[cf] > first[cf]) {
		t.Fatalf("step time on the slower cluster %g, was %g: the old record was reused", second[cf], first[cf])
	}
	if second["4xV100-pcie"] != first["4xV100-pcie"] {
		t.Fatalf("the unchanged point changed: %g, was %g", second["4xV100-pcie"], first["4xV100-pcie"])
	}
}

// TestJournalSymlinkRefused: a symbolic link planted at the journal's path
// is refused, and its target is not written.
func TestJournalSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	target := filepath.Join(dir, "victim.txt")
	os.WriteFile(target, []byte("keep me\n"), 0o644)
	if err := os.Symlink(target, filepath.Join(out, "journal.jsonl")); err != nil {
		t.Skip(err)
	}
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("name: s\nworkloads: [\"zoo:mlp?batch=64\"]\nclusters: [4xV100-pcie]\nplacers: [single]\n"), 0o644)
	code, _, errs := run(t, "run", sc, "-q", "--out", out)
	if code == 0 || !strings.Contains(errs, "symbolic link") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep me\n" {
		t.Fatalf("the link's target was written: %q", data)
	}
}
