package reports_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"placesim/reports"
	"placesim/runresult"
	"placesim/workloads"
)

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteStats checks stats' text: the largest layer groups by name and
// the rest summed on one line, the CCR or "-" without a cluster, and a
// write error returned.
func TestWriteStats(t *testing.T) {
	s := workloads.Stats{Ops: 42, FLOPs: 1e9}
	for i := 0; i < 14; i++ {
		s.LayerFLOPs = append(s.LayerFLOPs, workloads.GroupFLOPs{Group: fmt.Sprintf("g%02d", i), Ops: 1, FLOPs: float64(100 + i)})
	}
	var b strings.Builder
	if err := reports.WriteStats(&b, &runresult.WorkloadStats{Workload: "w", Batch: 8, Stats: s}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// 14 groups, 12 lines: the 11 largest (g03..g13) and the 3 smallest summed
	for _, want := range []string{"ops                42", "(3 more groups)", "g13", "CCR                - (give --cluster)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "g00 ") || strings.Contains(out, "g02 ") {
		t.Errorf("a small group printed by name:\n%s", out)
	}
	b.Reset()
	ccr := &runresult.CCR{Value: 0.25, Cluster: "4xV100-pcie", From: "gpu0", To: "gpu1", Compute: "gpu0"}
	if err := reports.WriteStats(&b, &runresult.WorkloadStats{Workload: "w", Stats: s, CCR: ccr}); err != nil || !strings.Contains(b.String(), "CCR                0.25 (Celeritas eq. 1 on 4xV100-pcie") {
		t.Errorf("CCR line: %v\n%s", err, b.String())
	}
	if err := reports.WriteStats(failingWriter{}, &runresult.WorkloadStats{Workload: "w", Stats: s}); err == nil {
		t.Error("a failing writer: no error")
	}
}
