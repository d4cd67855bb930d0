package tarnawski

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"placesim/workloads"
)

// TestDPFallsBackAboveIdealLimit: a graph with more ideals than the DP's
// limit (40 independent chains of 2: 3^40 ideals) makes tarnawski-dp stop
// enumerating at the limit and return DPL's split, with a fallback that
// names the limit, within a second; the plan is DPL's.
func TestDPFallsBackAboveIdealLimit(t *testing.T) {
	g := workloads.NewGraph("wide", 1)
	for i := 0; i < 80; i++ {
		g.AddOp(workloads.Op{Name: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Measured: map[string]float64{workloads.MeasuredAccelerator: 1e-3, workloads.MeasuredCPU: 1e-2}})
		if i%2 == 1 {
			g.AddEdge(i-1, i, 1<<20)
		}
	}
	req := tinyRequest(t, g, 2, 1, 1<<34)
	start := time.Now()
	dp := &DP{maxMemory: DefaultMaxMemoryMiB << 20, maxIdeals: 5000}
	plan, rep, err := dp.PlaceReport(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("fallback took %v, want seconds", el)
	}
	for _, want := range []string{"tarnawski-dpl", "more than 5000 ideals", "limit 5000"} {
		if !strings.Contains(rep.Fallback, want) {
			t.Errorf("fallback %q does not say %q", rep.Fallback, want)
		}
	}
	dpl := &DP{maxMemory: DefaultMaxMemoryMiB << 20, linearize: true}
	want, wrep, err := dpl.PlaceReport(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plan.Device, want.Device) || rep.MaxLoad != wrep.MaxLoad {
		t.Errorf("fallback plan differs from DPL's (max-load %g, DPL %g)", rep.MaxLoad, wrep.MaxLoad)
	}
	if wrep.Fallback != "" {
		t.Errorf("DPL itself reports a fallback: %q", wrep.Fallback)
	}
}
