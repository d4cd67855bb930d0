package study

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/placers/builtin"
)

// TestMergeFilesVerifies: the files of a 6-point run's two shards merge;
// a tampered record (an index out of range, another workload, a record of
// the other shard, a point twice, a negative or absurd step time, a
// negative throughput) or missing points are refused with an error that
// names the file, the record and the field.
func TestMergeFilesVerifies(t *testing.T) {
	t.Parallel()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Name: "m", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"},
		Placers: []string{"single", "round-robin", "m-topo"}, Seeds: []uint64{1, 2}}
	var shards []*Results
	for i := 0; i < 2; i++ {
		res, _, err := RunScenario(t.Context(), s, RunOptions{Registry: reg, Dir: t.TempDir(), Shard: Shard{I: i, N: 2}})
		if err != nil {
			t.Fatal(err)
		}
		res.Shard = fmt.Sprintf("%d/2", i)
		shards = append(shards, res)
	}
	names := []string{"results-0-of-2.json", "results-1-of-2.json"}
	merge := func(a, b *Results) (*Results, error) {
		dir := t.TempDir()
		paths := []string{writeResultsFile(t, filepath.Join(dir, names[0]), a), writeResultsFile(t, filepath.Join(dir, names[1]), b)}
		return MergeFiles(t.Context(), paths, MergeOptions{Registry: reg})
	}
	merged, err := merge(shards[0], shards[1])
	if err != nil || len(merged.Records) != 6 {
		t.Fatalf("untampered shards: %v, %v", merged, err)
	}
	copyOf := func(r *Results) *Results {
		c := *r
		c.Records = append([]Record(nil), r.Records...)
		return &c
	}
	tests := []struct {
		name   string
		tamper func(a, b *Results)
		want   string
		is     error // nil: no sentinel to wrap
	}{
		{"index 999", func(a, _ *Results) { a.Records[1].Index = 999 }, "results-0-of-2.json: records[1] (index 999, ", ErrForeignRecord},
		{"index -1", func(a, _ *Results) { a.Records[0].Index = -1 }, "index -1 (valid: 0 to 5, the 6 points of scenario \"m\")", ErrForeignRecord},
		{"another workload", func(a, _ *Results) { a.Records[2].Workload = "zoo:bert" }, `records[2] (index 4, m-topo): record not of this scenario: workload "zoo:bert", but point 4 of the scenario is "zoo:mlp?batch=8"`, ErrForeignRecord},
		{"another shard's record", func(a, b *Results) { a.Records = append(a.Records, b.Records[0]); b.Records = b.Records[1:] }, "records[3] (index 1, single): record not of this scenario: index 1 is a point of shard 1/2, not of this file's shard 0/2", ErrForeignRecord},
		{"a point twice", func(a, _ *Results) { a.Records = append(a.Records, a.Records[0]) }, "results-0-of-2.json: records[3]: point 0 appears twice", nil},
		{"negative step time", func(a, _ *Results) { a.Records[0].StepTime = -1 }, "stepTime = -1 (valid: a finite time", ErrForeignRecord},
		{"absurd step time", func(a, _ *Results) { a.Records[0].StepTime = math.MaxFloat64 }, "stepTime = 1.7976931348623157e+308", ErrForeignRecord},
		{"negative throughput", func(a, _ *Results) { a.Records[0].Throughput = -5 }, "throughput = -5 (valid: a finite rate >= 0", ErrForeignRecord},
		{"missing points", func(a, _ *Results) { a.Records = a.Records[:1] }, "2 of the 6 points of scenario \"m\" are in no part (indexes 2, 4;", ErrMissingPoints},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := copyOf(shards[0]), copyOf(shards[1])
			tc.tamper(a, b)
			_, err := merge(a, b)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("error %v, want one containing %q and wrapping %v", err, tc.want, tc.is)
			}
		})
	}
}

// writeResultsFile writes r to path as results.json is written.
func writeResultsFile(t *testing.T, path string, r *Results) string {
	t.Helper()
	var b bytes.Buffer
	if err := EncodeResults(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckRefusesImplausibleBaselines: check refuses a baseline whose
// simulated step time is MaxFloat64, +Inf, 0 or negative, or whose
// throughput is negative or NaN, naming the record and field; a record
// that failed (an error) carries no figures and passes.
func TestCheckRefusesImplausibleBaselines(t *testing.T) {
	t.Parallel()
	ok := Record{Point: Point{Index: 0, Placer: "single", Regime: "step"}, StepTime: 1e-3, Throughput: 8000, PeakMemory: []int64{1}}
	tests := []struct {
		name   string
		tamper func(r *Record)
		want   string
	}{
		{"MaxFloat64", func(r *Record) { r.StepTime = math.MaxFloat64 }, "records[0].stepTime = 1.7976931348623157e+308"},
		{"+Inf", func(r *Record) { r.StepTime = math.Inf(1) }, "records[0].stepTime = +Inf"},
		{"zero", func(r *Record) { r.StepTime = 0 }, "records[0].stepTime = 0 (valid: a time in (0, 1e+12] s"},
		{"negative throughput", func(r *Record) { r.Throughput = -1 }, "records[0].throughput = -1"},
		{"NaN throughput", func(r *Record) { r.Throughput = math.NaN() }, "records[0].throughput = NaN"},
		{"negative peak", func(r *Record) { r.PeakMemory = []int64{-1} }, "records[0].peakMemory[0] = -1"},
	}
	for _, tc := range tests {
		r := ok
		tc.tamper(&r)
		err := checkBaselineRecords([]Record{r})
		if err == nil || !errors.Is(err, ErrBadBaseline) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadBaseline naming %q", tc.name, err, tc.want)
		}
	}
	failed := Record{Point: ok.Point, Error: "placer failed"}
	if err := checkBaselineRecords([]Record{ok, {Point: Point{Index: 1, Placer: "x", Regime: "step"}, Error: failed.Error}}); err != nil {
		t.Errorf("plausible and failed records: %v", err)
	}
}
