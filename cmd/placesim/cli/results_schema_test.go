package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/study"
)

// TestCompareResultsCheck: compare's results.json is the one results
// schema (format, version, stamp, the comparison as a scenario, a record
// per placer and regime, null step time for a failed row), and check
// re-runs it and passes.
func TestCompareResultsCheck(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "A")
	code, _, errs := run(t, "compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "m-etf,single", "--out", out, "-q")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	res, err := study.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stamp == nil || res.Stamp.Command != "compare" || len(res.Records) != 2 || res.Scenario.Workloads[0] != "zoo:mlp" {
		t.Fatalf("stamp %+v, %d records, scenario %+v", res.Stamp, len(res.Records), res.Scenario)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(html), "Written by "+res.Stamp.String()) {
		t.Errorf("report.html lacks the stamp %q", res.Stamp.String())
	}
	code, stdout, errs := run(t, "check", "--baseline", filepath.Join(out, "results.json"))
	if code != 0 || !strings.Contains(stdout, "ok: 2 points") {
		t.Fatalf("check of compare's results: exit %d\n%s\n%s", code, stdout, errs)
	}
	// a failed row is null, not 0
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"ops": {"nope": 0}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ = run(t, "compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "m-etf,expert", "--opt", "expert.file="+bad, "--out", filepath.Join(dir, "B"), "-q", "--allow-failures")
	data, _ := os.ReadFile(filepath.Join(dir, "B", "results.json"))
	if code != 0 || !strings.Contains(string(data), `"stepTime": null`) {
		t.Fatalf("compare with a failing placer: exit %d, results.json without a null stepTime:\n%s", code, data)
	}
}

// TestCommandsOwnFolders: compare refuses to write over run's results
// (and run over compare's): each command keeps a folder of its own.
func TestCommandsOwnFolders(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(sc, []byte("name: tiny\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(dir, "out")
	if code, _, errs := run(t, "run", sc, "-o", shared, "-q"); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	before, _ := os.ReadFile(filepath.Join(shared, "results.json"))
	code, _, errs := run(t, "compare", "-w", "zoo:mlp", "--placers", "single", "-o", shared, "-q")
	if code == 0 || !strings.Contains(errs, "written by placesim run") {
		t.Fatalf("compare into run's folder: exit %d, %s", code, errs)
	}
	after, _ := os.ReadFile(filepath.Join(shared, "results.json"))
	if string(before) != string(after) {
		t.Fatal("compare replaced run's results.json")
	}
	cmp := filepath.Join(dir, "cmp")
	if code, _, errs := run(t, "compare", "-w", "zoo:mlp", "--placers", "single", "-o", cmp, "-q"); code != 0 {
		t.Fatalf("compare: %s", errs)
	}
	if code, _, errs := run(t, "run", sc, "-o", cmp, "-q"); code == 0 || !strings.Contains(errs, "written by placesim compare") {
		t.Fatalf("run into compare's folder: exit %d, %s", code, errs)
	}
}
