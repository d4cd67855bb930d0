package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
)

// checkLLM is a small decoder-only model: two layers of Llama 3.1 8B at a
// short sequence (an iteration simulates in milliseconds).
const checkLLM = "zoo:llama3.1-8b?layers=2&seq=1024"

// editRecords rewrites the records of results file src into dst with
// edit (the JSON of each record as a map).
func editRecords(t *testing.T, src, dst string, edit func(i int, rec map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	recs, _ := f["records"].([]any)
	for i, r := range recs {
		edit(i, r.(map[string]any))
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sweep --layout's results.json is checked by replaying each point the
// way the sweep played it (its system setting, its layout): every
// parameter kind the sweep takes passes unchanged, a tampered iteration
// time fails naming the point, and a record lacking a field needed to
// replay it fails with exit 5 naming the file, the record and the field.
func TestCheckSweepLayout(t *testing.T) {
	for _, c := range []struct{ name, cluster, layout, vary string }{
		{"system", "dgx-h100:nodes=2", "tp=2,pp=2,dp=4,mbs=1,gbs=8", "system.adapter-speed=100Gb/s,400Gb/s"},
		{"layout", "dgx-h100", "tp=2,pp=2,dp=2,mbs=1,gbs=8", "layout.tp=1,2"},
		{"precision", "dgx-h100", "tp=2,pp=2,dp=2,mbs=1,gbs=8", "precision=bf16,fp8"},
		{"gpus", "dgx-h100;dgx-a100-80gb", "tp=2,pp=2,dp=2,mbs=1,gbs=8", "gpus=8,16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "sw")
			if code, _, errs := run(t, "sweep", "-w", checkLLM, "-c", c.cluster, "--layout", c.layout, "--vary", c.vary, "-o", out); code != 0 {
				t.Fatalf("sweep: exit %d\n%s", code, errs)
			}
			base := filepath.Join(out, "results.json")
			code, stdout, errs := run(t, "check", "--baseline", base, "-q")
			if code != 0 || !strings.HasPrefix(stdout, "ok: ") || !strings.Contains(stdout, " points within 2%") {
				t.Fatalf("check of sweep --layout %s: exit %d\n%s\n%s", c.vary, code, stdout, errs)
			}
			if c.name != "system" {
				return
			}
			// the second point's iteration time 10 % below what it
			// simulates: a regression of that point alone
			tampered := filepath.Join(dir, "tampered.json")
			editRecords(t, base, tampered, func(i int, r map[string]any) {
				if i == 1 {
					r["stepTime"] = r["stepTime"].(float64) * 0.9
				}
			})
			code, stdout, errs = run(t, "check", "--baseline", tampered, "-q")
			if code != cli.ExitError || strings.Count(stdout, "REGRESSION") != 1 ||
				!strings.Contains(stdout, "system.adapter-speed=400Gb/s") || !strings.Contains(stdout, "step time") {
				t.Fatalf("check of a tampered iteration time: exit %d\n%s\n%s", code, stdout, errs)
			}
			// a record without its cluster cannot be replayed
			lacking := filepath.Join(dir, "lacking.json")
			editRecords(t, base, lacking, func(i int, r map[string]any) {
				if i == 1 {
					delete(r, "cluster")
				}
			})
			code, _, errs = run(t, "check", "--baseline", lacking, "-q")
			if code != cli.ExitUnmatched || !strings.Contains(errs, "lacking.json") || !strings.Contains(errs, "records[1]") ||
				!strings.Contains(errs, "field cluster") {
				t.Fatalf("check of a record without its cluster: exit %d\n%s", code, errs)
			}
		})
	}
}

// A scenario whose points are played under a layout (placesim run) is
// checked the same way, each stage planner's point replayed.
func TestCheckLayoutScenario(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "llm.yaml")
	if err := os.WriteFile(sc, []byte(`name: llm-stages
workloads: ["zoo:llama3.1-8b?layers=4&seq=1024"]
clusters: ["dgx-h100:nodes=1"]
placers: [even, tarnawski-dp]
layout: tp=2,pp=2,dp=2,sp,zero=1,mbs=1,gbs=8
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if code, _, errs := run(t, "run", sc, "-o", out, "-q"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	code, stdout, errs := run(t, "check", "--baseline", filepath.Join(out, "results.json"), "-q")
	if code != 0 || !strings.HasPrefix(stdout, "ok: 2 points within 2%") {
		t.Fatalf("check of a layout scenario: exit %d\n%s\n%s", code, stdout, errs)
	}
}

// compare --layout --out writes results.json, a record per stage planner,
// and check replays each planner's point; a graph compare's results are
// still checked by re-running its scenario.
func TestCheckCompareLayout(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cmp")
	if code, _, errs := run(t, "compare", "-w", "zoo:llama3.1-8b?layers=4&seq=1024", "-c", "dgx-h100", "--layout", "tp=2,pp=2,dp=2,mbs=1,gbs=8",
		"--placers", "even,tarnawski-dp", "-o", out, "-q"); code != 0 {
		t.Fatalf("compare --layout: exit %d\n%s", code, errs)
	}
	code, stdout, errs := run(t, "check", "--baseline", filepath.Join(out, "results.json"), "-q")
	if code != 0 || !strings.HasPrefix(stdout, "ok: 2 points within 2%") {
		t.Fatalf("check of compare --layout: exit %d\n%s\n%s", code, stdout, errs)
	}
	graph := filepath.Join(dir, "graph")
	if code, _, errs := run(t, "compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "m-etf,round-robin", "-o", graph, "-q"); code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	code, stdout, errs = run(t, "check", "--baseline", filepath.Join(graph, "results.json"), "-q")
	if code != 0 || !strings.HasPrefix(stdout, "ok: 2 points within 2%") {
		t.Fatalf("check of a graph compare: exit %d\n%s\n%s", code, stdout, errs)
	}
}

// check is two-sided: a point whose step time is now more than the
// tolerance below its baseline's is an IMPROVEMENT that fails the check
// (exit 1; in JSON under improvements), and --one-sided lets it pass.
func TestCheckFasterFails(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cmp")
	if code, _, errs := run(t, "compare", "-w", "zoo:mlp", "-c", "4xV100-pcie", "--placers", "m-etf,round-robin", "-o", out, "-q"); code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	// the first point's recorded step time 10 % above what it simulates:
	// it re-runs 9 % faster
	slow := filepath.Join(dir, "slow.json")
	editRecords(t, filepath.Join(out, "results.json"), slow, func(i int, r map[string]any) {
		if i == 0 {
			r["stepTime"] = r["stepTime"].(float64) * 1.1
		}
	})
	code, stdout, errs := run(t, "check", "--baseline", slow, "-q")
	if code != cli.ExitError || strings.Count(stdout, "IMPROVEMENT") != 1 || strings.Contains(stdout, "REGRESSION") ||
		!strings.Contains(stdout, "m-etf |") || !strings.Contains(stdout, "step time") || !strings.Contains(errs, "1 of 2 points improved beyond 2%") {
		t.Fatalf("check of a faster point: exit %d\n%s\n%s", code, stdout, errs)
	}
	code, stdout, errs = run(t, "check", "--baseline", slow, "-q", "--format", "json")
	var v struct {
		OK           bool
		Regressions  []struct{ Key, Reason string }
		Improvements []struct{ Key, Reason string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != cli.ExitError || v.OK || len(v.Regressions) != 0 || len(v.Improvements) != 1 {
		t.Fatalf("check --format json of a faster point: exit %d, %v %+v\n%s\n%s", code, err, v, stdout, errs)
	}
	code, stdout, errs = run(t, "check", "--baseline", slow, "-q", "--one-sided")
	if code != 0 || !strings.HasPrefix(stdout, "ok: 2 points no worse than 2%") {
		t.Fatalf("check --one-sided of a faster point: exit %d\n%s\n%s", code, stdout, errs)
	}
}
