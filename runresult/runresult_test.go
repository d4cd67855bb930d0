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
