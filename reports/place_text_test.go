package reports_test

import (
	"fmt"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/reports"
	"placesim/runresult"
)

// TestWritePlacement checks place's text: a device's ops beyond eight
// summed as "(N more)", a simulation failure and an OOM said, --explain
// for a placer without loads, and a write error returned.
func TestWritePlacement(t *testing.T) {
	var ops []string
	for i := 0; i < 11; i++ {
		ops = append(ops, fmt.Sprintf("op%d", i))
	}
	load := 2.5
	p := &runresult.Placement{Placer: "single", Workload: "w", Cluster: "c", Regime: "step", Error: "boom",
		OOM:       &engine.OOM{DeviceName: "gpu0", OpName: "op3", Requested: 1 << 30, What: "output"},
		Placement: []runresult.PlacementShare{{Device: "gpu0", Ops: ops, Load: &load}}, Notes: []string{"a note"}}
	var b strings.Builder
	if err := reports.WritePlacement(&b, p, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"simulation       failed: boom", "OUT OF MEMORY    out of memory on gpu0 at 0 s: op \"op3\" asked 1.00 GiB", "11 ops  load 2.500000 ms  op0 ", "op7 ... (3 more)",
		"placer single does not report loads", "notes\n  a note"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "op8") || strings.Contains(out, "simulated step") {
		t.Errorf("an op beyond eight, or a step time of a failed simulation:\n%s", out)
	}
	if err := reports.WritePlacement(failingWriter{}, p, false); err == nil {
		t.Error("a failing writer: no error")
	}
}
