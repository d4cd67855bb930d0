package cli_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
	"placesim/devices"
)

// trainArgs is a small train run (checkLLM on one DGX H100 node).
var trainArgs = []string{"train", "-w", checkLLM, "-c", "dgx-h100:nodes=1", "--layout", "tp=2,pp=2,dp=2,mbs=1,gbs=8"}

// train -o DIR writes results.json and results.csv with the one record;
// check --baseline replays it within 2 %, and fails on the same file
// with its iteration time 10 % lower (a regression of the point).
func TestTrainOutCheck(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "train")
	code, _, errs := run(t, append(append([]string{}, trainArgs...), "-o", out)...)
	if code != 0 {
		t.Fatalf("train -o: exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, filepath.Join(out, "results.json")) {
		t.Errorf("train -o: no \"wrote\" line naming results.json: %q", errs)
	}
	base := filepath.Join(out, "results.json")
	code, stdout, errs := run(t, "check", "--baseline", base, "-q")
	if code != 0 || !strings.HasPrefix(stdout, "ok: 1 point within 2%") {
		t.Fatalf("check of train -o: exit %d\n%s\n%s", code, stdout, errs)
	}
	tampered := filepath.Join(dir, "tampered.json")
	editRecords(t, base, tampered, func(_ int, r map[string]any) {
		r["stepTime"] = r["stepTime"].(float64) * 0.9
	})
	code, stdout, errs = run(t, "check", "--baseline", tampered, "-q")
	if code != cli.ExitError || strings.Count(stdout, "REGRESSION") != 1 || !strings.Contains(stdout, "step time") {
		t.Fatalf("check of a tampered train result: exit %d\n%s\n%s", code, stdout, errs)
	}

	// results.csv is the row --format csv prints on stdout, the header
	// of every results.csv
	file, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, errs = run(t, append(append([]string{}, trainArgs...), "--format", "csv")...)
	if code != 0 {
		t.Fatalf("train --format csv: exit %d\n%s", code, errs)
	}
	if stdout != string(file) {
		t.Errorf("--format csv:\n%s\nresults.csv:\n%s", stdout, file)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("--format csv: %v, %d rows, want a header and one row:\n%s", err, len(rows), stdout)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["workload"] != checkLLM || col["cluster"] != "dgx-h100:nodes=1" || col["placer"] != "even" ||
		!strings.HasPrefix(col["regime"], "layout:tp=2,pp=2") || col["stepTime"] == "" || col["oom"] != "" {
		t.Errorf("--format csv row: %v", col)
	}
}

// -o that is an existing file, not a folder, is refused before anything
// is simulated, naming the flag and the path; the file is kept.
func TestTrainOutBad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notadir")
	if err := os.WriteFile(file, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := run(t, append(append([]string{}, trainArgs...), "-o", file)...)
	if code != cli.ExitError || !strings.Contains(errs, "--out "+file) || !strings.Contains(errs, "not an output directory") || stdout != "" {
		t.Fatalf("train -o FILE: exit %d\nstdout %q\nstderr %q", code, stdout, errs)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "mine\n" {
		t.Fatalf("train -o FILE changed the file: %q %v", b, err)
	}
	// a folder holding another command's results is refused too
	other := filepath.Join(dir, "cmp")
	if code, _, errs := run(t, "compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "round-robin", "-o", other, "-q"); code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, append(append([]string{}, trainArgs...), "-o", other)...)
	if code == 0 || !strings.Contains(errs, "--out") || !strings.Contains(errs, "compare") {
		t.Fatalf("train -o into compare's folder: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, append(append([]string{}, trainArgs...), "--format", "xml")...); code != cli.ExitError || !strings.Contains(errs, "table, json, csv") {
		t.Fatalf("--format xml: exit %d\n%s", code, errs)
	}
}

// train's help names every system of devices' registry, with its size
// key, in the long help and in -c's text.
func TestTrainHelpListsSystems(t *testing.T) {
	code, out, errs := run(t, "train", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d %s", code, errs)
	}
	var flagLine string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--cluster") {
			flagLine = l
		}
	}
	fams := devices.SystemFamilies()
	if len(fams) == 0 {
		t.Fatal("devices knows no system")
	}
	for _, f := range fams {
		if !strings.Contains(out, "  "+f.Name+"[:"+f.Unit+"=N") || !strings.Contains(out, f.Description) {
			t.Errorf("train --help does not list system %s (%s=N): %s", f.Name, f.Unit, f.Description)
		}
		if !strings.Contains(flagLine, f.Name) {
			t.Errorf("-c's help %q does not name system %s", flagLine, f.Name)
		}
	}
}
