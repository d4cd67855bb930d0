package runresult_test

import (
	"encoding/json"
	"strings"
	"testing"

	"placesim/runresult"
)

// TestRecordJSON: a simulated record carries its step time and
// throughput; one that failed or is not comparable carries null, never a
// 0 a reader could take for a measurement; a record reads back.
func TestRecordJSON(t *testing.T) {
	p := runresult.Point{Index: 3, Workload: "zoo:mlp", Cluster: "4xV100-pcie", Placer: "single", Seed: 1, Regime: "step",
		Settings: []runresult.Setting{{Param: "batch", Value: "8"}}}
	for _, tc := range []struct {
		name string
		r    runresult.Record
		want string
	}{
		{"simulated", runresult.Record{Point: p, StepTime: 0.5, Throughput: 64}, `"stepTime":0.5,"throughput":64`},
		{"failed", runresult.Record{Point: p, StepTime: 0, Error: "place: no plan"}, `"stepTime":null,"throughput":null`},
		{"not comparable", runresult.Record{Point: p, NotComparable: "replicates"}, `"stepTime":null,"throughput":null`},
	} {
		b, err := json.Marshal(tc.r)
		if err != nil || !strings.Contains(string(b), tc.want) {
			t.Fatalf("%s: %s (%v), want %s", tc.name, b, err, tc.want)
		}
		var back runresult.Record
		if err := json.Unmarshal(b, &back); err != nil || back.Point.Key() != p.Key() || back.StepTime != tc.r.StepTime {
			t.Fatalf("%s: read back %+v (%v)", tc.name, back, err)
		}
	}
	if got, want := p.Key(), "single | zoo:mlp | 4xV100-pcie | batch=8 | seed 1 | regime step"; got != want {
		t.Fatalf("key %q, want %q", got, want)
	}
}

// TestFileSchema: the file's fields as scripts read them.
func TestFileSchema(t *testing.T) {
	f := runresult.File[map[string]string]{Format: runresult.Format, Version: runresult.Version,
		Stamp: &runresult.Stamp{Placesim: "v1", Command: "compare", Date: "2026-11-25T00:00:00Z"}, Scenario: map[string]string{"name": "x"}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"placesim-results","version":3,"stamp":{"placesim":"v1","command":"compare","date":"2026-11-25T00:00:00Z"},"scenario":{"name":"x"},"records":null}`
	if string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
	if got := f.Stamp.String(); got != "placesim v1 compare, 2026-11-25T00:00:00Z" {
		t.Fatalf("caption %q", got)
	}
}

// TestRecordNotes: a record's notes come in the one documented order
// (not comparable, rewritten graph, fallback, relaxed constraints),
// without the error and the regime note, which views place themselves.
func TestRecordNotes(t *testing.T) {
	r := runresult.Record{
		Error: "place: no plan", RegimeNote: "played as step",
		Relaxed: []string{"memory", "colocation"}, Fallback: "m-ETF warm start",
		Rewritten: "graph rewritten by the placer: 9 ops", NotComparable: "replicates the model",
	}
	want := []string{"replicates the model", "graph rewritten by the placer: 9 ops", "fallback: m-ETF warm start", "relaxed: memory, colocation"}
	got := r.Notes()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("notes %q, want %q", got, want)
	}
	if n := (&runresult.Record{Error: "x", RegimeNote: "y"}).Notes(); len(n) != 0 {
		t.Fatalf("notes of a record with only an error and a regime note: %q, want none", n)
	}
}
