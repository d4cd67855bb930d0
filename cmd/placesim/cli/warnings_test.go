package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportWarningsEveryCommand: a workload whose import warns (an
// msr-fiddle file with an unknown field, named with a terminal escape
// sequence) has its warning printed on stderr once, escaped, by every
// command that reads it: compare, run, sweep, check, export, simulate,
// place and stats (issue 31: compare, run and sweep printed none), and
// the results.json of compare, run and sweep records it by workload.
func TestImportWarningsEveryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := filepath.Join(dir, "fiddle.json")
	if err := os.WriteFile(w, []byte(`{"maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 1, "colour\u001b[31m": 1,
  "nodes": [{"id": 1, "name": "a", "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 1000},
            {"id": 2, "name": "b", "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 2000}],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5, "size": 4096}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sc, []byte("name: s\nworkloads: ["+w+"]\nclusters: [workload]\nplacers: [single, round-robin]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOut := filepath.Join(dir, "run")
	tests := []struct {
		name string
		args []string
	}{
		{"compare", []string{"compare", "-w", w, "--placers", "single,round-robin", "-q", "--out", filepath.Join(dir, "cmp")}},
		{"run", []string{"run", sc, "-q", "--out", runOut}},
		{"sweep", []string{"sweep", "-w", w, "--placers", "single", "--vary", "link.pcie3.bandwidth=1x,2x", "-q", "--out", filepath.Join(dir, "sweep")}},
		{"export", []string{"export", w, "--format", "native", "--out", filepath.Join(dir, "w.native.json")}},
		{"simulate", []string{"simulate", "-w", w, "-p", "single"}},
		{"place", []string{"place", "-w", w, "-p", "single"}},
		{"stats", []string{"stats", w}},
		// after run: check re-runs its baseline
		{"check", []string{"check", "--baseline", filepath.Join(runOut, "results.json"), "-q"}},
	}
	for _, tc := range tests {
		code, _, errs := run(t, tc.args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errs)
			continue
		}
		if n := strings.Count(errs, "warning: "); n != 1 {
			t.Errorf("%s: %d warnings, want 1; stderr %q", tc.name, n, errs)
		}
		if !strings.Contains(errs, `unknown top-level field "colour\x1b[31m" ignored`) {
			t.Errorf("%s: stderr %q does not name the unknown field", tc.name, errs)
		}
		if strings.Contains(errs, "\x1b") {
			t.Errorf("%s: stderr %q holds a raw escape character", tc.name, errs)
		}
	}
	// and results.json records them, by workload
	for _, res := range []string{filepath.Join(runOut, "results.json"), filepath.Join(dir, "sweep", "results.json"), filepath.Join(dir, "cmp", "results.json")} {
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Warnings map[string][]string }
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if ws := r.Warnings[w]; len(ws) != 1 || !strings.Contains(ws[0], `unknown top-level field "colour\x1b[31m" ignored`) {
			t.Errorf("%s: warnings %q, want the one of %s", res, r.Warnings, w)
		}
	}
}
