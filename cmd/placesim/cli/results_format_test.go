package cli_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioCommandsFormat: run and sweep print on stdout what they
// write (--format json: results.json's bytes; csv: results.csv's), and
// reproduce its scoreboards as one JSON object or a CSV line per
// published cell; a format a command does not offer is refused naming
// the valid ones.
func TestScenarioCommandsFormat(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(sc, []byte("name: tiny\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single, round-robin]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "0") // the stamp's date: the same in both runs
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", sc}},
		{"sweep", []string{"sweep", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "single,round-robin", "--vary", "batch=32,64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for format, file := range map[string]string{"json": "results.json", "csv": "results.csv"} {
				out := filepath.Join(dir, tc.name+"-"+format)
				code, stdout, errs := run(t, append(tc.args, "-o", out, "-q", "--format", format)...)
				if code != 0 {
					t.Fatalf("--format %s: exit %d\n%s", format, code, errs)
				}
				want, err := os.ReadFile(filepath.Join(out, file))
				if err != nil {
					t.Fatal(err)
				}
				if stdout != string(want) {
					t.Errorf("--format %s: stdout is not %s:\n%s\nwant\n%s", format, file, stdout, want)
				}
			}
			code, _, errs := run(t, append(tc.args, "-o", filepath.Join(dir, tc.name+"-bad"), "-q", "--format", "yaml")...)
			if code == 0 || !strings.Contains(errs, "table, json, csv") {
				t.Errorf("--format yaml: exit %d, %q", code, errs)
			}
		})
	}

	t.Run("reproduce", func(t *testing.T) {
		sdir := t.TempDir()
		paper := tinyPaper
		if err := os.WriteFile(filepath.Join(sdir, "tiny-paper.yaml"), []byte(paper), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, errs := run(t, "reproduce", "tiny", "--scenarios", sdir, "--out", filepath.Join(dir, "rj"), "-q", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var v struct {
			Scenarios []struct {
				Name  string
				Cells []struct {
					Placer    string
					Value     float64
					Simulated *float64
				}
				Rows []struct {
					Agree, Pairs int
					Tau          *float64
				}
				Claims []struct{ Verdict string }
			}
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
		}
		if len(v.Scenarios) != 1 || v.Scenarios[0].Name != "tiny-paper" || len(v.Scenarios[0].Cells) != 2 || len(v.Scenarios[0].Rows) != 1 || len(v.Scenarios[0].Claims) != 1 {
			t.Fatalf("scoreboards %+v", v)
		}
		for _, c := range v.Scenarios[0].Cells {
			if c.Simulated == nil || !(*c.Simulated > 0) {
				t.Errorf("cell of %s: simulated %v, want a step time", c.Placer, c.Simulated)
			}
		}
		if r := v.Scenarios[0].Rows[0]; r.Pairs != 1 || r.Tau == nil {
			t.Errorf("row: %+v, want one pair and a tau", r)
		}
		code, stdout, errs = run(t, "reproduce", "tiny", "--scenarios", sdir, "--out", filepath.Join(dir, "rc"), "-q", "--format", "csv")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil || len(recs) != 3 || recs[0][0] != "scenario" || recs[1][0] != "tiny-paper" || recs[1][11] == "" {
			t.Errorf("csv: %v, %q", err, recs)
		}
	})
}
