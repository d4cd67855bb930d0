package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers/builtin"
)

// replayTol is the relative difference allowed between a layout point's
// record and its replay: the simulation is deterministic, so only the
// JSON round trip of a float may differ.
const replayTol = 1e-12

// A layout record names what replays it; each missing field is named.
func TestLayoutReplayFields(t *testing.T) {
	good := Record{Point: Point{Workload: "zoo:llama3.1-8b?layers=2", Cluster: "dgx-h100:nodes=2", Placer: PlannerEven,
		Regime:   "layout:tp=2,pp=2,dp=4,mbs=1,gbs=8",
		Settings: []Setting{{Param: "system.adapter-speed", Value: "100Gb/s"}}}}
	req, setErr, err := LayoutReplay(&good)
	if err != nil || setErr != nil {
		t.Fatalf("LayoutReplay: %v, %v", err, setErr)
	}
	if !strings.Contains(req.Cluster, "adapter-speed=100Gb/s") || req.Regime.Layout == nil || req.Regime.Layout.TP != 2 || req.Planner != PlannerEven {
		t.Fatalf("request %+v: want the system setting applied, the layout parsed and the planner", req)
	}
	// a search candidate's regime is "layout SPEC"
	search := good
	search.Regime, search.Settings = "layout tp=2,pp=2,dp=4,mbs=1,gbs=8", nil
	if _, _, err := LayoutReplay(&search); err != nil {
		t.Fatalf("search candidate: %v", err)
	}
	for _, c := range []struct {
		name  string
		edit  func(r *Record)
		field string
	}{
		{"workload", func(r *Record) { r.Workload = "" }, "field workload"},
		{"cluster", func(r *Record) { r.Cluster = " " }, "field cluster"},
		{"placer", func(r *Record) { r.Placer = "" }, "field placer"},
		{"empty layout", func(r *Record) { r.Regime = "layout:" }, "field regime"},
		{"bad layout", func(r *Record) { r.Regime = "layout:tp=0" }, "field regime"},
		{"what-if", func(r *Record) { r.Settings = []Setting{{Param: "link.nvlink.bandwidth", Value: "2x"}} }, "field settings[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good
			c.edit(&r)
			if _, _, err := LayoutReplay(&r); err == nil || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("got %v, want an error naming %s", err, c.field)
			}
			_, err := layoutReplays([]Record{good, r})
			if !errors.Is(err, ErrNotReplayable) || !errors.Is(err, ErrUnmatched) || !strings.Contains(err.Error(), "records[1]") {
				t.Fatalf("layoutReplays: %v, want ErrNotReplayable naming records[1]", err)
			}
		})
	}
	// a setting the system no longer takes is a failure of the replay,
	// not a refusal
	bad := good
	bad.Settings = []Setting{{Param: "system.nvlink-domain", Value: "4"}}
	if _, setErr, err := LayoutReplay(&bad); err != nil || setErr == nil {
		t.Fatalf("nvlink-domain=4 on dgx-h100: %v, %v (want a setting error)", err, setErr)
	}
}

// Check replays layout records (as sweep --layout writes them: a system
// setting, the layout as played, a stage planner) to the same iteration
// time and peak memory, with no scenario to re-run; a record made faster
// than its replay is a regression of that point.
func TestCheckReplaysLayoutRecords(t *testing.T) {
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i, pt := range []Point{
		{Workload: "zoo:llama3.1-8b?layers=2&seq=1024", Cluster: "dgx-h100:nodes=2", Placer: PlannerEven,
			Settings: []Setting{{Param: "system.adapter-speed", Value: "100Gb/s"}}, Regime: "layout:tp=2,pp=2,dp=4,mbs=1,gbs=8"},
		{Workload: "zoo:llama3.1-8b?layers=4&seq=1024", Cluster: "dgx-h100", Placer: "tarnawski-dp", Regime: "layout:tp=2,pp=2,dp=2,mbs=1,gbs=8"},
	} {
		pt.Index = i
		req, _, err := LayoutReplay(&Record{Point: pt})
		if err != nil {
			t.Fatal(err)
		}
		j, r, err := SimulateLayout(context.Background(), reg, req)
		if err != nil {
			t.Fatal(err)
		}
		rec := LayoutRecord(pt, j, r)
		rec.LLM.System = j.Cluster.Name
		recs = append(recs, rec)
	}
	// a baseline whose scenario RunScenario could not play (as sweep
	// --layout's): check must not re-run it
	base := &Results{Scenario: &Scenario{Name: "sweep-layout", Workloads: []string{"zoo:llama3.1-8b?layers=2&seq=1024"}, Clusters: []string{"dgx-h100"},
		Placers: []string{PlannerEven}, Vary: &Vary{Param: "gpus", Range: "8"}, Layout: "tp=2"}, Records: recs}
	regs, cur, err := Check(context.Background(), base, reg, 0.02)
	if err != nil || len(regs) != 0 {
		t.Fatalf("check: %v %v", err, regs)
	}
	if len(cur.Records) != len(recs) {
		t.Fatalf("%d records replayed, want %d", len(cur.Records), len(recs))
	}
	for i, c := range cur.Records {
		b := recs[i]
		if c.Point.Key() != b.Point.Key() || !scalar.EqualWithinRel(c.StepTime, b.StepTime, replayTol) || c.MaxPeak() != b.MaxPeak() {
			t.Errorf("record %d replayed as %s %g s %d B, was %s %g s %d B", i, c.Point.Key(), c.StepTime, c.MaxPeak(), b.Point.Key(), b.StepTime, b.MaxPeak())
		}
	}
	// the second point's recorded iteration time 5 % below its replay,
	// the first's peak memory 5 % below
	tampered := &Results{Scenario: base.Scenario, Records: append([]Record(nil), recs...)}
	tampered.Records[1].StepTime *= 0.95
	tampered.Records[0].PeakMemory = append([]int64(nil), recs[0].PeakMemory...)
	for k := range tampered.Records[0].PeakMemory {
		tampered.Records[0].PeakMemory[k] = tampered.Records[0].PeakMemory[k] * 95 / 100
	}
	regs, _, err = Check(context.Background(), tampered, reg, 0.02)
	if err != nil || len(regs) != 2 {
		t.Fatalf("check of tampered records: %v %v (want 2 regressions)", err, regs)
	}
	if regs[0].Key != recs[0].Point.Key() || !strings.Contains(regs[0].Reason, "peak memory") ||
		regs[1].Key != recs[1].Point.Key() || !strings.Contains(regs[1].Reason, "step time") {
		t.Fatalf("regressions %v: want the first point's peak memory and the second's step time", regs)
	}
	// a system the record did not run on is a failure of its point
	moved := &Results{Scenario: base.Scenario, Records: append([]Record(nil), recs...)}
	llmf := *recs[0].LLM
	llmf.System = "dgx-h100:nodes=4"
	moved.Records[0].LLM = &llmf
	regs, _, err = Check(context.Background(), moved, reg, 0.02)
	if err != nil || len(regs) != 1 || !strings.Contains(regs[0].Reason, "llm.system") {
		t.Fatalf("check of a record of another system: %v %v", err, regs)
	}
}
