package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"placesim/placers/builtin"
)

// streamScenario is a 6-point scenario and its results in two shards,
// with figures a simulation could give.
func streamScenario(t *testing.T) (*Scenario, []*Results) {
	t.Helper()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Name: "m", Workloads: []string{"zoo:mlp?batch=8"}, Clusters: []string{"4xV100-pcie"},
		Placers: []string{"single", "round-robin", "m-topo"}, Seeds: []uint64{1, 2}}
	pts, err := s.Points(reg)
	if err != nil {
		t.Fatal(err)
	}
	warn := map[string][]string{"zoo:mlp?batch=8": {"an import warning"}}
	parts := []*Results{{Scenario: s, Shard: "0/2", Warnings: warn}, {Scenario: s, Shard: "1/2", Warnings: warn}}
	for _, p := range pts {
		st := 1e-3 * float64(1+p.Index)
		parts[p.Index%2].Records = append(parts[p.Index%2].Records, Record{Point: p, StepTime: st, Throughput: 8 / st,
			PeakMemory: []int64{int64(p.Index) << 20, 0, 0, 0}, Capacity: []int64{16 << 30, 16 << 30, 16 << 30, 16 << 30}, Transfers: p.Index})
	}
	return s, parts
}

// writeSortedKeys rewrites JSON with every object's keys sorted (as jq -S or
// Python's sort_keys write it): records before scenario and version.
func writeSortedKeys(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	sorted := strings.TrimSuffix(path, ".json") + "-sorted.json"
	if err := os.WriteFile(sorted, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return sorted
}

// TestReadResultsStream: results read record by record equal what
// json.Unmarshal of the whole file gives, in placesim's key order and in
// sorted key order; MergeFiles of the shards, in either order, holds
// every record of them at its point's index.
func TestReadResultsStream(t *testing.T) {
	t.Parallel()
	_, parts := streamScenario(t)
	dir := t.TempDir()
	var paths, sorted []string
	for i, p := range parts {
		path := writeResultsFile(t, filepath.Join(dir, fmt.Sprintf("results-%d-of-2.json", i)), p)
		paths = append(paths, path)
		sorted = append(sorted, writeSortedKeys(t, path))
	}
	for i := range paths {
		b, _ := os.ReadFile(paths[i])
		var whole Results
		if err := json.Unmarshal(b, &whole); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{paths[i], sorted[i]} {
			got, err := ReadResults(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, &whole) {
				t.Errorf("%s: streamed read differs from json.Unmarshal:\n%+v\n%+v", filepath.Base(path), got, &whole)
			}
		}
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]Record, len(parts[0].Records)+len(parts[1].Records))
	for _, p := range parts {
		for _, r := range p.Records {
			want[r.Index] = r
		}
	}
	for _, ps := range [][]string{paths, sorted, {sorted[1], paths[0]}} {
		got, err := MergeFiles(t.Context(), ps, MergeOptions{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Records, want) {
			t.Errorf("MergeFiles(%v) records differ from the shards' records by index", ps)
		}
		if !reflect.DeepEqual(got.Warnings, parts[0].Warnings) {
			t.Errorf("MergeFiles(%v) warnings %q, want the shards' %q", ps, got.Warnings, parts[0].Warnings)
		}
		for i, r := range got.Records {
			if r.Index != i {
				t.Errorf("record %d holds index %d", i, r.Index)
			}
		}
	}
}

// TestDecodeResultsErrors: malformed results files are errors naming the
// file and the place at fault; a file of another format is refused
// before any of its records is handed on; more records than the limit
// are refused when the one past it is reached.
func TestDecodeResultsErrors(t *testing.T) {
	t.Parallel()
	head := `{"format": "placesim-results", "version": 3, "scenario": {"name": "x"}, `
	rec := `{"index": 0, "stepTime": 1, "throughput": 1}`
	tests := []struct {
		name, data string
		limit      int
		want       string
		is         error
	}{
		{"empty", "  \n", 0, "the file is empty", nil},
		{"not an object", "[]", 0, `want a JSON object, found "["`, nil},
		{"two objects", head + `"records": []} {}`, 0, `"{" after the results object`, nil},
		{"records not an array", head + `"records": {"a": 1}}`, 0, `records: want an array, found "{"`, nil},
		{"records twice", head + `"records": [], "records": []}`, 0, "records: given twice", nil},
		{"bad record", head + `"records": [` + rec + `, {"index": "one"}]}`, 0, "records[1]: json: cannot unmarshal string", nil},
		{"truncated", head + `"records": [` + rec, 0, "unexpected EOF", nil},
		{"another version first", `{"format": "placesim-results", "version": 2, "records": [` + rec + `]}`, 0, "version 2, this placesim reads", ErrResultsVersion},
		{"another version last", `{"records": [` + rec + `], "format": "placesim-results", "version": 2}`, 0, "version 2, this placesim reads", ErrResultsVersion},
		{"no scenario", `{"format": "placesim-results", "version": 3, "records": []}`, 0, "no scenario recorded", nil},
		{"past the limit", head + `"records": [` + strings.Repeat(rec+",", 3) + rec + `]}`, 3, "records: too many records: more than 3 (valid: at most 3,", ErrTooManyRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			handed := 0
			_, err := decodeResults(t.Context(), "r.json", strings.NewReader(tc.data), resultsHandler{
				record:     func(int, *Record) error { handed++; return nil },
				maxRecords: tc.limit,
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"r.json"`) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("error %v, want one naming the file, containing %q and wrapping %v", err, tc.want, tc.is)
			}
			if tc.name == "another version first" && handed != 0 {
				t.Errorf("%d records handed on before the version was refused", handed)
			}
			if tc.limit > 0 && handed != tc.limit {
				t.Errorf("%d records handed on, want the %d within the limit", handed, tc.limit)
			}
		})
	}
}

// TestMergeFilesMemory: a merge whose points' records take more than
// its memory budget is refused before they are read, naming the points,
// the memory, the limit and its field; within the limit it merges.
func TestMergeFilesMemory(t *testing.T) {
	t.Parallel()
	_, parts := streamScenario(t)
	dir := t.TempDir()
	var paths []string
	for i, p := range parts {
		paths = append(paths, writeResultsFile(t, filepath.Join(dir, fmt.Sprintf("r%d.json", i)), p))
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	need := 6 * (RecordBytes + pointBytes)
	_, err = MergeFiles(t.Context(), paths, MergeOptions{Registry: reg, MaxMemory: need - 1})
	if !errors.Is(err, ErrMergeMemory) || !strings.Contains(err.Error(), "its 6 points' records take at least") || !strings.Contains(err.Error(), "which holds at most 5 points (valid: max memory >= ") {
		t.Fatalf("error %v, want ErrMergeMemory naming 6 points and a limit of 5", err)
	}
	// the points fit, their per-device figures do not
	_, err = MergeFiles(t.Context(), paths, MergeOptions{Registry: reg, MaxMemory: need + 8})
	if !errors.Is(err, ErrMergeMemory) || !strings.Contains(err.Error(), "records[") {
		t.Fatalf("error %v, want ErrMergeMemory naming the record that passed the limit", err)
	}
	if _, err := MergeFiles(t.Context(), paths, MergeOptions{Registry: reg, MaxMemory: need + 4096}); err != nil {
		t.Fatal(err)
	}
}

// TestReadResultsWithin: a results file whose records take more than the
// reader's budget is refused at the record that passes it, naming the
// file, the record and the limit; within the budget it reads whole.
func TestReadResultsWithin(t *testing.T) {
	t.Parallel()
	_, parts := streamScenario(t)
	path := writeResultsFile(t, filepath.Join(t.TempDir(), "results.json"), parts[0])
	n := len(parts[0].Records)
	_, err := ReadResultsWithin(t.Context(), path, 2*RecordBytes)
	if !errors.Is(err, ErrResultsMemory) || !strings.Contains(err.Error(), "results.json\": records[") || !strings.Contains(err.Error(), "more than the limit of") {
		t.Fatalf("error %v, want ErrResultsMemory naming the file, the record and the limit", err)
	}
	got, err := ReadResultsWithin(t.Context(), path, int64(n)*RecordBytes+1<<20)
	if err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	if len(got.Records) != n {
		t.Fatalf("within the budget: %d records, want %d", len(got.Records), n)
	}
}
