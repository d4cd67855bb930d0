package study_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers/builtin"
	"placesim/study"
)

// TestParseRegime: each regime of the grammar reads back to itself; bad
// ones are errors that quote the regime and give the syntax.
func TestParseRegime(t *testing.T) {
	t.Parallel()
	good := []struct {
		in, want     string
		mb, replicas int
	}{
		{"step", "step", 0, 0},
		{"1f1b:16", "1f1b:16", 16, 0},
		{" gpipe:8:recompute ", "gpipe:8:recompute", 8, 0},
		{"pipedream:4:even", "pipedream:4:even", 4, 0},
		{"dp:4", "dp:4", 0, 4},
		{"1f1b:8+dp:2", "1f1b:8+dp:2", 8, 2},
		{"dp:2+1f1b:8", "1f1b:8+dp:2", 8, 2},
		{"dp:all", "dp:all", 0, study.ReplicasAll},
	}
	for _, tc := range good {
		t.Run(tc.in, func(t *testing.T) {
			r, err := study.ParseRegime(tc.in, &engine.DataParallel{BucketBytes: 1 << 20, Overlap: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if (r.Pipeline != nil) != (tc.mb > 0) || (r.Pipeline != nil && r.Pipeline.MicroBatches != tc.mb) {
				t.Errorf("pipeline %+v, want %d micro-batches", r.Pipeline, tc.mb)
			}
			if (r.DataParallel != nil) != (tc.replicas != 0) {
				t.Fatalf("data parallel %+v, want %d replicas", r.DataParallel, tc.replicas)
			}
			if d := r.DataParallel; d != nil && (d.Replicas != tc.replicas || d.BucketBytes != 1<<20 || !d.Overlap) {
				t.Errorf("data parallel %+v: want %d replicas and the given all-reduce settings", d, tc.replicas)
			}
			if r.IsStep() != (tc.want == "step") {
				t.Errorf("IsStep() = %v for %q", r.IsStep(), tc.want)
			}
		})
	}
	for _, bad := range []string{"", "steps", "1f1b", "1f1b:0", "1f1b:x", "zigzag:4", "dp:0", "dp:2:1", "1f1b:4+gpipe:4", "dp:2+dp:2", "1f1b:4:fast", "1f1b:all", "dp:-1"} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := study.ParseRegime(bad, nil)
			if err == nil || !strings.Contains(err.Error(), "valid: step") {
				t.Fatalf("ParseRegime(%q) = %v, want an error with the syntax", bad, err)
			}
		})
	}
	if _, err := study.ParseRegimes("step,1f1b:4,step", nil); err == nil {
		t.Error("a regime listed twice is accepted")
	}
}

// TestRunPlaysEveryPlacerInTheRegime: the regime of the spec decides how
// every plan is played: a max-load placer's own 1F1B pipeline gives way to
// one step (and says so), or to the requested micro-batches; a placer
// that replicates the model itself is not comparable outside data
// parallelism and is played replicated in a data-parallel regime.
func TestRunPlaysEveryPlacerInTheRegime(t *testing.T) {
	t.Parallel()
	g := mlpTraining(t)
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	parse := func(s string) study.Regime {
		r, err := study.ParseRegime(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		placer, regime string
		own            bool // PlacerRegime
		wantMB         int  // pipeline micro-batches played (0: none)
		wantDP         int  // replicas played (0: none)
		notComparable  bool
		note           string // in RegimeNote
	}{
		{"greedy", "step", false, 0, 0, false, "made for a pipeline"},
		{"greedy", "step", true, 4 * 1, 0, false, ""}, // its own 1f1b, 4 per stage
		{"greedy", "1f1b:6", false, 6, 0, false, ""},
		{"metis", "gpipe:3", false, 3, 0, false, ""},
		{"round-robin", "1f1b:5", false, 5, 0, false, ""},
		{"data-parallel", "step", false, 0, 0, true, ""},
		{"data-parallel", "1f1b:4", false, 0, 0, true, ""},
		{"data-parallel", "dp:4", false, 0, 4, false, ""},
		{"data-parallel", "dp:all", false, 0, 4, false, ""},
		{"greedy", "1f1b:4+dp:2", false, 4, 2, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.placer+" "+tc.regime, func(t *testing.T) {
			s := study.Spec{Placer: tc.placer, Reproducible: true, Regime: parse(tc.regime), PlacerRegime: tc.own}
			o, err := study.Run(context.Background(), reg, g, c, s)
			if err != nil {
				t.Fatal(err)
			}
			if o.Error != "" {
				t.Fatalf("run failed: %s", o.Error)
			}
			if tc.notComparable {
				if o.NotComparable == "" || o.Plan != nil || o.StepTime != 0 {
					t.Fatalf("not comparable %q, plan %v, step %g: want a reason and no simulation", o.NotComparable, o.Plan != nil, o.StepTime)
				}
				if !strings.Contains(o.NotComparable, tc.regime) {
					t.Errorf("reason %q does not name the regime", o.NotComparable)
				}
				return
			}
			if o.NotComparable != "" {
				t.Fatalf("not comparable: %s", o.NotComparable)
			}
			if !tc.own && o.Regime != tc.regime {
				t.Errorf("regime %q, want %q", o.Regime, tc.regime)
			}
			if tc.own && o.Regime == "step" {
				t.Errorf("regime %q: the placer's own pipeline should show", o.Regime)
			}
			switch {
			case tc.wantMB == 0 && o.Result.Pipeline != nil:
				t.Errorf("played as a pipeline (%s x%d), want none", o.Result.Pipeline.Schedule, o.Result.Pipeline.MicroBatches)
			case tc.wantMB > 0 && tc.own && o.Result.Pipeline == nil:
				t.Errorf("not played as its own pipeline")
			case tc.wantMB > 0 && !tc.own && (o.Result.Pipeline == nil || o.Result.Pipeline.MicroBatches != tc.wantMB):
				t.Errorf("pipeline %+v, want %d micro-batches", o.Result.Pipeline, tc.wantMB)
			}
			if got := 0; o.Result.DataParallel != nil {
				got = o.Result.DataParallel.Replicas
				if got != tc.wantDP {
					t.Errorf("%d replicas, want %d", got, tc.wantDP)
				}
			} else if tc.wantDP > 0 {
				t.Errorf("not replicated, want %d replicas", tc.wantDP)
			}
			if (tc.note == "") != (o.RegimeNote == "") || !strings.Contains(o.RegimeNote, tc.note) {
				t.Errorf("regime note %q, want one with %q", o.RegimeNote, tc.note)
			}
		})
	}
}

// TestScenarioRegimes: a scenario's regimes are an axis of its points;
// each record carries its regime, points of different regimes never
// compare in a check, and bad regimes are errors naming the field.
func TestScenarioRegimes(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	s := &study.Scenario{Name: "regimes", Workloads: []string{"zoo:mlp?training=true&batch=64"},
		Clusters: []string{"4xV100-pcie"}, Placers: []string{"greedy", "data-parallel"}, Regimes: regimeList(t, "step,1f1b:4,dp:4")}
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 6 {
		t.Fatalf("%d records, want 2 placers x 3 regimes", len(res.Records))
	}
	for _, r := range res.Records {
		nc := r.Placer == "data-parallel" && r.Regime != "dp:4"
		if (r.NotComparable != "") != nc {
			t.Errorf("%s in %s: not comparable %q, want %v", r.Placer, r.Regime, r.NotComparable, nc)
		}
		if !nc && (r.Error != "" || r.StepTime <= 0) {
			t.Errorf("%s in %s: error %q, step %g", r.Placer, r.Regime, r.Error, r.StepTime)
		}
		if !strings.HasSuffix(r.Point.Key(), "regime "+r.Regime) {
			t.Errorf("key %q does not name the regime %s", r.Point.Key(), r.Regime)
		}
	}
	// a baseline in step only, checked against a run in 1f1b:4 only: no
	// point matches, so every baseline point is missing, none compared
	step, err := study.SelectRegimes(res, []study.Regime{{}})
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := study.SelectRegimes(res, []study.Regime{{Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(step.Records) != 2 || len(pipe.Records) != 2 || len(pipe.Scenario.Regimes) != 1 {
		t.Fatalf("selected %d step and %d 1f1b:4 records (regimes %v), want 2 and 2", len(step.Records), len(pipe.Records), pipe.Scenario.Regimes)
	}
	regs := study.CompareResults(step, pipe, 0.02, study.BothSides)
	if len(regs) != 2 {
		t.Errorf("%d regressions, want the 2 step points missing", len(regs))
	}
	for _, r := range regs {
		if !strings.Contains(r.Reason, "missing") {
			t.Errorf("a step point was compared with a 1f1b:4 one: %s", r)
		}
	}
	if _, err := study.SelectRegimes(res, []study.Regime{{DataParallel: &engine.DataParallel{Replicas: 2}}}); err == nil || !strings.Contains(err.Error(), "dp:2") {
		t.Errorf("selecting a regime the results lack: %v", err)
	}
	for _, bad := range []struct{ regimes, want string }{
		{`["step", "1f1b"]`, "regimes[1]"},
		{`["dp:2", "dp:2"]`, "regimes[1]"},
	} {
		_, err := study.ParseScenario([]byte("name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nregimes: " + bad.regimes + "\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("regimes %s: error %v, want one naming %s", bad.regimes, err, bad.want)
		}
	}
}

// regimeList parses a comma-separated list of regimes for a scenario.
func regimeList(t *testing.T, list string) study.RegimeList {
	t.Helper()
	rs, err := study.ParseRegimes(list, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestStageSource: "" and "auto" are the same source (one stage per
// device), "even" and a path are the others, and a regime's stages
// round-trip through its string.
func TestStageSource(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want study.StageSource
	}{
		{"", study.StageSource{}},
		{"auto", study.StageSource{}},
		{"even", study.StageSource{Kind: study.StagesEven}},
		{"plans/stages.json", study.StageSource{Kind: study.StagesFile, File: "plans/stages.json"}},
	} {
		if got := study.ParseStageSource(tc.in); got != tc.want {
			t.Errorf("ParseStageSource(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	for _, s := range []string{"1f1b:4", "gpipe:8:recompute:even", "1f1b:2:stages=s.json+dp:2"} {
		r, err := study.ParseRegime(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != s {
			t.Errorf("ParseRegime(%q).String() = %q", s, r.String())
		}
	}
}

// TestScenarioRegimesParsedOnce: a scenario's regimes are typed when the
// file is read; a bad one is refused there, naming its index, and the
// results file writes them back as the strings they were read from.
func TestScenarioRegimesParsedOnce(t *testing.T) {
	s, err := study.ParseScenario([]byte("name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nregimes: [step, \"1f1b:4:even\", \"dp:2\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Regimes) != 3 || s.Regimes[1].Stages.Kind != study.StagesEven || s.Regimes[2].DataParallel == nil || s.Regimes[2].DataParallel.Replicas != 2 {
		t.Fatalf("regimes %+v", s.Regimes)
	}
	b, err := json.Marshal(s.Regimes)
	if err != nil || string(b) != `["step","1f1b:4:even","dp:2"]` {
		t.Fatalf("regimes as JSON %s (%v)", b, err)
	}
	_, err = study.ParseScenario([]byte("name: x\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nregimes: [step, \"1f1b:zero\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "regimes[1]") {
		t.Fatalf("bad regime: error %v, want one naming regimes[1]", err)
	}
}
