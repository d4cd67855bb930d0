package cli_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
)

// readCSV reads a results.csv whole.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// simulate --layout -o and compare --layout -o write results.json and
// results.csv as train -o does (one writer): check --baseline replays
// each, and results.csv has train's columns and a row per record.
func TestLayoutCommandsOut(t *testing.T) {
	dir := t.TempDir()
	layout := []string{"-w", checkLLM, "-c", "dgx-h100:nodes=1", "--layout", "tp=2,pp=2,dp=2,mbs=1,gbs=8"}
	trainOut := filepath.Join(dir, "train")
	if code, _, errs := run(t, append(append([]string{"train"}, layout...), "-o", trainOut, "-q")...); code != 0 {
		t.Fatalf("train -o: exit %d\n%s", code, errs)
	}
	header := readCSV(t, filepath.Join(trainOut, "results.csv"))[0]

	for _, c := range []struct {
		name string
		args []string
		rows int
	}{
		{"simulate", append([]string{"simulate"}, layout...), 1},
		{"compare", append(append([]string{"compare"}, layout...), "--placers", "even,tarnawski-dp"), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			code, _, errs := run(t, append(append([]string{}, c.args...), "-o", out)...)
			if code != 0 {
				t.Fatalf("%s -o: exit %d\n%s", c.name, code, errs)
			}
			base := filepath.Join(out, "results.json")
			csvPath := filepath.Join(out, "results.csv")
			if !strings.Contains(errs, base) || !strings.Contains(errs, csvPath) {
				t.Errorf("%s -o: no \"wrote\" line naming both files: %q", c.name, errs)
			}
			rows := readCSV(t, csvPath)
			if len(rows) != c.rows+1 {
				t.Fatalf("%s: results.csv has %d rows, want a header and %d", c.name, len(rows), c.rows)
			}
			if strings.Join(rows[0], ",") != strings.Join(header, ",") {
				t.Errorf("%s: results.csv columns\n%v\ntrain's\n%v", c.name, rows[0], header)
			}
			col := map[string]string{}
			for i, h := range rows[0] {
				col[h] = rows[1][i]
			}
			if col["workload"] != checkLLM || col["cluster"] != "dgx-h100:nodes=1" || col["placer"] != "even" ||
				!strings.HasPrefix(col["regime"], "layout:tp=2,pp=2") || col["stepTime"] == "" || col["oom"] != "" {
				t.Errorf("%s: results.csv first row: %v", c.name, col)
			}
			code, stdout, errs := run(t, "check", "--baseline", base, "-q")
			want := map[int]string{1: "ok: 1 point within 2%", 2: "ok: 2 points within 2%"}[c.rows]
			if code != 0 || !strings.HasPrefix(stdout, want) {
				t.Fatalf("check of %s -o: exit %d, want %q\n%s\n%s", c.name, code, want, stdout, errs)
			}
		})
	}

	// a folder holding another command's results is refused before
	// anything is simulated; so is -o without --layout on simulate
	code, _, errs := run(t, append(append([]string{"simulate"}, layout...), "-o", trainOut)...)
	if code != cli.ExitError || !strings.Contains(errs, "--out") || !strings.Contains(errs, "train") {
		t.Fatalf("simulate -o into train's folder: exit %d\n%s", code, errs)
	}
	code, stdout, errs := run(t, "simulate", "-w", "zoo:mlp", "-c", "4xV100-pcie", "-o", filepath.Join(dir, "graph"))
	if code != cli.ExitError || stdout != "" || !strings.Contains(errs, "--out") || !strings.Contains(errs, "--layout") {
		t.Fatalf("simulate -o without --layout: exit %d\nstdout %q\nstderr %q", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "graph")); err == nil {
		t.Errorf("simulate -o without --layout created its folder")
	}
}
