package study_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"placesim/placers"
	"placesim/placers/baseline"
	"placesim/placers/builtin"
	"placesim/reports"
	"placesim/study"
	"placesim/study/studytest"
)

func registry(t *testing.T) *placers.Registry {
	t.Helper()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// sweep40 is a 40-point sweep: 2 workloads x 5 bandwidths x 2 placers x 2 seeds.
func sweep40() *study.Scenario {
	return &study.Scenario{Name: "sweep40",
		Workloads: []string{"zoo:mlp?training=true&batch=32", "zoo:mlp?layers=3&hidden=2048"},
		Clusters:  []string{"8xV100-nvlink"}, Placers: []string{"round-robin", "random"}, Seeds: []uint64{1, 2},
		Vary: &study.Vary{Param: "link.nvlink.bandwidth", Range: "0.1x..10x:5"}}
}

func encode(t *testing.T, r *study.Results) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := study.EncodeResults(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestShardedEqualsUnsharded(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	s := sweep40()
	whole, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Records) != 40 {
		t.Fatalf("%d points, want 40", len(whole.Records))
	}
	var paths []string
	dir := t.TempDir()
	for i := 3; i >= 0; i-- { // any order
		r, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: dir, Shard: study.Shard{I: i, N: 4}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Records) != 10 || r.Shard == "" {
			t.Fatalf("shard %d: %d points, shard %q", i, len(r.Records), r.Shard)
		}
		// through the files, as placesim merge reads them
		path := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if err := study.WriteResults(path, r, nil); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	merged, err := study.MergeFiles(context.Background(), paths, study.MergeOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, whole), encode(t, merged)) {
		t.Fatal("4 shards merged differ from one unsharded run")
	}
	if _, err := study.MergeFiles(context.Background(), paths[:3], study.MergeOptions{Registry: reg}); err == nil || !strings.Contains(err.Error(), "3 of 4 shards") {
		t.Fatalf("merging 3 of 4 shards: %v", err)
	}
}

func TestResumeRunsOnlyMissingPoints(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	s := sweep40()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var first atomic.Int32
	_, _, err := study.RunScenario(ctx, s, study.RunOptions{Registry: reg, Dir: dir, Workers: 2,
		Progress: func(done, total int, p study.Point) {
			if first.Add(1) == 12 {
				cancel() // a kill after 12 points
			}
		}})
	if err == nil || !strings.Contains(err.Error(), "re-run to resume") {
		t.Fatalf("interrupted run: %v", err)
	}
	journal, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	// a kill can also tear the last line: append half a record
	os.WriteFile(filepath.Join(dir, "journal.jsonl"), append(journal, []byte(`{"record":{"index":39,"placer":"ran`)...), 0o644)
	journaled := bytes.Count(journal, []byte("\n"))
	if journaled < 12 || journaled >= 40 {
		t.Fatalf("%d points journaled after the interruption", journaled)
	}
	var second atomic.Int32
	var ranAgain atomic.Int32
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: dir, Workers: 2,
		Progress: func(done, total int, p study.Point) {
			second.Add(1)
			if done <= journaled {
				ranAgain.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if int(second.Load()) != 40-journaled {
		t.Fatalf("resumed run ran %d points, want only the %d missing", second.Load(), 40-journaled)
	}
	whole, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := encode(t, whole), encode(t, res); !bytes.Equal(a, b) {
		os.WriteFile("/tmp/a.json", a, 0o644)
		os.WriteFile("/tmp/b.json", b, 0o644)
		t.Fatal("resumed results differ from an uninterrupted run")
	}
}

func TestCheckCatchesDegradedPlacer(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	s := &study.Scenario{Name: "check", Workloads: []string{"zoo:mlp?training=true&batch=64"},
		Clusters: []string{"4xV100-pcie"}, Placers: []string{"single", "round-robin"}}
	base, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := study.WriteResults(path, base, nil); err != nil {
		t.Fatal(err)
	}
	// unchanged: passes
	regs, _, err := study.Check(context.Background(), base, reg, 0.02)
	if err != nil || len(regs) != 0 {
		t.Fatalf("unchanged placers: %v %v", regs, err)
	}
	studytest.CheckAgainst(t, path, reg, 0.02)
	// "single" deliberately degraded: it now spreads the graph round robin
	bad := placers.NewRegistry()
	if err := bad.Add(placers.Define("single", "degraded", baseline.NewRoundRobin)); err != nil {
		t.Fatal(err)
	}
	if err := bad.Add(placers.Define("round-robin", "unchanged", baseline.NewRoundRobin)); err != nil {
		t.Fatal(err)
	}
	regs, _, err = study.Check(context.Background(), base, bad, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	// spread round robin, single is slower and holds less memory on its
	// busiest device: a two-sided check reports both
	if len(regs) != 2 || !strings.HasPrefix(regs[0].Key, "single |") || !strings.HasPrefix(regs[0].Reason, "step time") || regs[0].Better ||
		regs[1].Key != regs[0].Key || !strings.HasPrefix(regs[1].Reason, "peak memory") || !regs[1].Better {
		t.Fatalf("changes %v, want exactly two: single's step time worse and its peak memory better", regs)
	}
	// a tiny memory makes it newly OOM
	s2 := *s
	s2.Clusters = []string{filepath.Join(t.TempDir(), "small.yaml")}
	os.WriteFile(s2.Clusters[0], []byte("name: small\ndevices: [{name: g, kind: V100-16GB}]\nlinks: []\n"), 0o644)
	base2, _, _ := study.RunScenario(context.Background(), &s2, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	os.WriteFile(s2.Clusters[0], []byte("name: small\ndevices: [{name: g, kind: V100-16GB, memory: 1MiB}]\nlinks: []\n"), 0o644)
	regs, _, _ = study.Check(context.Background(), base2, reg, 0.02)
	if len(regs) != 2 || !strings.Contains(regs[0].Reason, "now runs out of memory") {
		t.Fatalf("regressions %v, want two new OOMs", regs)
	}
}

func TestFixedPlacementMonotoneInBandwidth(t *testing.T) {
	t.Parallel()
	// The Pesto NMT setting (NMT-2-1024 on 2 x V100 with NVLink + a CPU)
	// swept over NVLink bandwidth 0.1x..10x. Placers that ignore costs give
	// a fixed placement at every point, and a faster link must never make a
	// fixed placement slower. The sweep's charts must exist.
	reg := registry(t)
	s := &study.Scenario{Name: "mono", Workloads: []string{"zoo:gnmt?layers=2&hidden=1024&batch=64&training=true"},
		Clusters: []string{"2xV100-nvlink+cpu"}, Placers: []string{"round-robin", "random", "single"}, Baseline: "single",
		Vary: &study.Vary{Param: "link.nvlink.bandwidth", Range: "0.1x..10x:7"}}
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]float64{}
	for _, r := range res.Records {
		if r.Failed() {
			t.Fatalf("%s: %s", r.Key(), r.Error)
		}
		if prev, ok := last[r.Placer]; ok && r.StepTime > prev*(1+1e-12) {
			t.Fatalf("%s: step time %g after %g at lower bandwidth", r.Key(), r.StepTime, prev)
		}
		last[r.Placer] = r.StepTime
	}
	if first, final := res.Records[0].StepTime, last["round-robin"]; !(final < first/2) {
		t.Fatalf("round-robin gains too little from 100x NVLink bandwidth: %g -> %g", first, final)
	}
	figs, err := study.SweepFigures(res)
	if err != nil || len(figs) != 2 {
		t.Fatalf("sweep figures: %d, %v", len(figs), err)
	}
	dir := t.TempDir()
	files, err := reports.WriteFigures(dir, figs)
	if err != nil || len(files) != 4 {
		t.Fatalf("wrote %v, %v", files, err)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Fatalf("%s: %v (size %d)", f, err, st.Size())
		}
	}
}

func TestScenarioErrors(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	tests := []struct{ name, yaml, want string }{
		{"unknown field", "name: x\nworkloads: [zoo:mlp]\nclusters: [1xV100]\nplacers: [single]\nseed: 3\n", `unknown field "seed"`},
		{"no workloads", "name: x\nclusters: [1xV100]\nplacers: [single]\n", "field workloads is empty"},
		{"bad timeout", "name: x\nworkloads: [zoo:mlp]\nclusters: [1xV100]\nplacers: [single]\ntimeout: soon\n", `timeout "soon"`},
		{"bad range", "name: x\nworkloads: [zoo:mlp]\nclusters: [1xV100]\nplacers: [single]\nvary: {param: batch, range: '0..9:3'}\n", "vary.range"},
		{"bad estimates", "name: x\nworkloads: [zoo:mlp]\nclusters: [1xV100]\nplacers: [single]\nestimates: {mode: magic}\n", `estimates.mode "magic"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := study.ParseScenario([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	s := &study.Scenario{Name: "x", Workloads: []string{"zoo:mlp"}, Clusters: []string{"1xV100"}, Placers: []string{"nope"}}
	if err := s.Validate(reg); err == nil || !strings.Contains(err.Error(), `unknown placer "nope"`) {
		t.Fatalf("unknown placer: %v", err)
	}
	// a what-if naming a link family the cluster lacks is refused before
	// any point runs (issue 24), not a crash
	s = &study.Scenario{Name: "x", Workloads: []string{"zoo:mlp"}, Clusters: []string{"1xV100"}, Placers: []string{"single"},
		Settings: [][]study.Setting{{{Param: "link.warp.bandwidth", Value: "2x"}}}}
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if !errors.Is(err, study.ErrUnknownTarget) || !strings.Contains(err.Error(), `no "warp" links`) || res != nil {
		t.Fatalf("bad what-if: %v, %+v", err, res)
	}
}

func TestExpandRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"0.1x..10x:3", "0.1x 1x 10x"},
		{"32..512:5", "32 64 128 256 512"},
		{"a,b", "a b"},
		// bounds whose quotient leaves float64: interpolated in
		// logarithms, no "+Infx" (issue 31)
		{"1e-300x..1e300x:3", "1e-300x 1x 1e+300x"},
	}
	for _, tc := range tests {
		got, err := study.ExpandRange(tc.in)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Fatalf("%s: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"1..2:1", "0x..1x:3", "1x..5:3", "a,,b"} {
		if _, err := study.ExpandRange(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	if _, ok, err := study.ShardFromEnv(4); ok || err != nil {
		t.Fatalf("no env: ok %v err %v", ok, err)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "3")
	if sh, ok, err := study.ShardFromEnv(4); !ok || err != nil || sh != (study.Shard{I: 3, N: 4}) {
		t.Fatalf("k8s: %v %v %v", sh, ok, err)
	}
	if _, _, err := study.ShardFromEnv(3); err == nil {
		t.Fatal("index 3 of 3 shards accepted")
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
	if sh, ok, err := study.ShardFromEnv(0); !ok || err != nil || sh != (study.Shard{I: 1, N: 2}) {
		t.Fatalf("slurm: %v %v %v", sh, ok, err)
	}
}

func TestScenarioFigures(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	s := &study.Scenario{Name: "bars", Workloads: []string{"zoo:mlp?batch=32", "zoo:mlp?batch=64"},
		Clusters: []string{"4xV100-pcie"}, Placers: []string{"single", "round-robin"}}
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: reg, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	figs := study.ScenarioFigures(res)
	if len(figs) != 2 || figs[1].Name != "step_time_02" || !strings.Contains(figs[1].Title, "zoo:mlp?batch=64 on 4xV100-pcie") {
		t.Fatalf("figures %d: %+v", len(figs), figs)
	}
	files, err := reports.WriteFigures(t.TempDir(), figs)
	if err != nil || len(files) != 4 {
		t.Fatalf("wrote %v, %v", files, err)
	}
}
