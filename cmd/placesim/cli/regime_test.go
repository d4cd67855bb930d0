package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// compareRow is the part of a compare --format json row these tests read.
type compareRow struct {
	Placer        string  `json:"placer"`
	Regime        string  `json:"regime"`
	StepTime      float64 `json:"stepTime"`
	VsBest        float64 `json:"vsBest"`
	NotComparable string  `json:"notComparable"`
	Error         string  `json:"error"`
	Pipeline      *struct {
		Schedule     string `json:"schedule"`
		MicroBatches int    `json:"microBatches"`
	} `json:"pipeline"`
	DataParallel *struct {
		Replicas int `json:"replicas"`
	} `json:"dataParallel"`
}

// TestCompareRegimeFlags: compare plays every placer in the regime of the
// flags (issue 14's must-show, on a small graph): each row is a 1F1B x4
// pipeline, the max-load splits and FastT's rewritten graph included, or
// not comparable with a reason (a plan that replicates the model through
// the engine's data parallelism: the data-parallel placer); each played
// row's vsBest is its step time over the fastest of the regime, and a row
// not comparable has none.
func TestCompareRegimeFlags(t *testing.T) {
	code, out, errs := run(t, "compare", "-w", "zoo:mlp?training=true&batch=64", "-c", "4xV100-pcie",
		"--placers", "single,round-robin,greedy,m-topo,tarnawski-dpl,data-parallel,fastt-dpos", "--pipeline", "1f1b", "--microbatches", "4",
		"--format", "json", "--reproducible", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct{ Results []compareRow }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 7 {
		t.Fatalf("%d rows, want 7", len(res.Results))
	}
	best := math.Inf(1)
	for _, r := range res.Results {
		if r.NotComparable == "" && r.Error == "" {
			best = math.Min(best, r.StepTime)
		}
	}
	const tol = 1e-9
	for _, r := range res.Results {
		if r.Regime != "1f1b:4" {
			t.Errorf("%s: regime %q, want 1f1b:4", r.Placer, r.Regime)
		}
		switch {
		case r.Placer == "data-parallel" && r.NotComparable == "":
			t.Errorf("data-parallel (x4 replicas) played in 1f1b:4, want not comparable")
		case r.NotComparable != "":
			if !strings.Contains(r.NotComparable, "not comparable in regime 1f1b:4: the placer replicates the model itself") || r.StepTime != 0 || r.VsBest != 0 {
				t.Errorf("%s: not comparable %q, step %g, vs best %g; want the reason, no step, no vs best", r.Placer, r.NotComparable, r.StepTime, r.VsBest)
			}
		case r.Error != "":
			t.Errorf("%s failed: %s", r.Placer, r.Error)
		case r.Pipeline == nil || r.Pipeline.Schedule != "1f1b" || r.Pipeline.MicroBatches != 4:
			t.Errorf("%s played as %+v, want 1f1b x4", r.Placer, r.Pipeline)
		case !scalar.EqualWithinAbsOrRel(r.VsBest, r.StepTime/best, tol, tol) || r.VsBest < 1-tol:
			t.Errorf("%s: vs best %g, want its step %g over the regime's best %g", r.Placer, r.VsBest, r.StepTime, best)
		}
	}
}

// TestCompareRegimes: --regimes runs every regime and adds the placer x
// regime matrix; a bad list names the flag and the syntax, and the
// single-regime flags are refused beside it.
func TestCompareRegimes(t *testing.T) {
	code, out, errs := run(t, "compare", "-w", "zoo:mlp?training=true&batch=64", "-c", "4xV100-pcie",
		"--placers", "single,greedy,data-parallel", "--regimes", "step,1f1b:4,dp:4",
		"--format", "json", "--reproducible", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Results []compareRow
		Matrix  struct {
			Regimes []string `json:"regimes"`
			Placers []struct {
				Placer     string `json:"placer"`
				BestRegime string `json:"bestRegime"`
				Cells      []struct {
					Regime, Status string
				} `json:"cells"`
			} `json:"placers"`
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 9 || strings.Join(res.Matrix.Regimes, ",") != "step,1f1b:4,dp:4" || len(res.Matrix.Placers) != 3 {
		t.Fatalf("%d rows, regimes %v, %d matrix rows; want 9, [step 1f1b:4 dp:4], 3", len(res.Results), res.Matrix.Regimes, len(res.Matrix.Placers))
	}
	for _, p := range res.Matrix.Placers {
		if p.BestRegime == "" {
			t.Errorf("%s has no best regime", p.Placer)
		}
		if p.Placer == "data-parallel" && (p.Cells[0].Status != "not-comparable" || p.Cells[2].Status != "ok") {
			t.Errorf("data-parallel cells %+v: want not-comparable in step, ok in dp:4", p.Cells)
		}
	}
	code, out, _ = run(t, "compare", "-w", "zoo:mlp?training=true&batch=64", "--placers", "single", "--regimes", "step,1f1b:4", "--quiet")
	if code != 0 || !strings.Contains(out, "regime 1f1b:4") || !strings.Contains(out, "best regime") {
		t.Errorf("table output (exit %d) lacks the per-regime tables or the matrix:\n%s", code, out)
	}
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"bad list", "--regimes", []string{"--regimes", "step,1f1b"}},
		{"with --pipeline", "exclude each other", []string{"--regimes", "step", "--pipeline", "1f1b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"compare", "-w", "zoo:mlp", "--placers", "single", "--quiet"}, tc.args...)
			code, _, errs := run(t, args...)
			if code == 0 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want an error with %q", code, errs, tc.want)
			}
		})
	}
}

// TestCompareRewrittenGraph: a run on a graph the placer rewrote (FastT's
// replicas and splits) is reported, traced and charted against that
// graph: its row says so, and its Gantt chart, memory timelines and trace
// are written.
func TestCompareRewrittenGraph(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := run(t, "compare", "-w", "zoo:vgg19?image=64&batch=16&training=true", "-c", "4xV100-pcie",
		"--placers", "single,fastt-os-dpos", "--gantt", "fastt-os-dpos", "--out", dir, "--format", "json", "--reproducible", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Results []struct {
			Placer, Rewritten, Error string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Error != "" {
			t.Errorf("%s failed: %s", r.Placer, r.Error)
		}
		if (r.Placer == "fastt-os-dpos") != strings.Contains(r.Rewritten, "graph rewritten") {
			t.Errorf("%s: rewritten %q", r.Placer, r.Rewritten)
		}
	}
	for _, f := range []string{"trace.json", "gantt.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s of the rewritten run: %v", f, err)
		}
	}
}

// TestSweepAndCheckRegimes: sweep plays every placer in the regime of the
// flags and records it; check re-runs only the regimes asked for and
// refuses one the baseline lacks.
func TestSweepAndCheckRegimes(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "sweep", "-w", "zoo:mlp?batch=32&training=true", "-c", "4xV100-pcie", "--placers", "single,greedy",
		"--vary", "link.pcie.bandwidth=0.5x,2x", "--regimes", "step,1f1b:4", "-q", "--out", dir)
	if code != 0 || !strings.Contains(out, "greedy [1f1b:4]") {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Records []struct{ Placer, Regime string }
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range res.Records {
		count[r.Regime]++
	}
	if len(res.Records) != 8 || count["step"] != 4 || count["1f1b:4"] != 4 {
		t.Fatalf("%d records by regime %v, want 4 step and 4 1f1b:4", len(res.Records), count)
	}
	base := filepath.Join(dir, "results.json")
	if code, out, errs := run(t, "check", "--baseline", base, "--pipeline", "1f1b", "--microbatches", "4"); code != 0 || !strings.Contains(out, "ok: 4 points") {
		t.Errorf("check of 1f1b:4 only: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := run(t, "check", "--baseline", base, "--regimes", "dp:4"); code == 0 || !strings.Contains(errs, "no point in regime dp:4") {
		t.Errorf("check of a regime the baseline lacks: exit %d, %s", code, errs)
	}
}

// TestCompareSkip: --skip trims the default placers (make run leaves out
// those whose solver is missing); it names unknown placers and refuses
// --placers beside it.
func TestCompareSkip(t *testing.T) {
	code, out, errs := run(t, "compare", "-w", "zoo:mlp?batch=8", "-c", "2xV100-nvlink+cpu", "--skip", "pesto,tarnawski-ip,tarnawski-ip-noncontig,metis,scotch,local-search,fastt-os-dpos",
		"--format", "json", "--reproducible", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct{ Results []compareRow }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range res.Results {
		seen[r.Placer] = true
	}
	for _, n := range []string{"pesto", "metis", "scotch", "tarnawski-ip"} {
		if seen[n] {
			t.Errorf("skipped placer %s has a row", n)
		}
	}
	if !seen["single"] || !seen["m-etf"] {
		t.Errorf("rows %v lack the placers not skipped", seen)
	}
	for _, tc := range [][]string{{"--skip", "nosuch"}, {"--skip", "single", "--placers", "single"}} {
		code, _, errs := run(t, append([]string{"compare", "-w", "zoo:mlp", "--quiet"}, tc...)...)
		if code == 0 || !strings.Contains(errs, "--skip") {
			t.Errorf("%v: exit %d, stderr %q; want an error naming --skip", tc, code, errs)
		}
	}
}
