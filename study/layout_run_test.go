package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"placesim/engine/llm"
	"placesim/placers/builtin"
	"placesim/workloads/zoo"
)

// A layout travels in the regime: "layout:SPEC" parses into
// Regime.Layout, prints back as it was read, and plays through
// SimulateLayout the iteration engine/llm plays for the same job.
func TestLayoutRegime(t *testing.T) {
	const spec = "layout:tp=2,pp=2,vp=1,cp=1,ep=1,dp=2,zero=1,recompute=selective,mbs=1,gbs=8,precision=bf16"
	r, err := ParseRegime(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Layout == nil || r.Layout.TP != 2 || r.Layout.PP != 2 || r.Layout.DP != 2 || r.Layout.GlobalBatch != 8 {
		t.Fatalf("parsed %+v", r.Layout)
	}
	if r.String() != spec {
		t.Errorf("String %q, want %q", r.String(), spec)
	}
	back, err := ParseRegime(r.String(), nil)
	if err != nil || *back.Layout != *r.Layout {
		t.Errorf("round trip %+v %v", back.Layout, err)
	}
	req := LayoutRequest{Workload: "zoo:llama3.1-8b?layers=4", Cluster: "dgx-h100", Regime: r, Planner: PlannerEven}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	j, res, err := SimulateLayout(context.Background(), reg, req)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := zoo.ParseLLM("zoo:llama3.1-8b?layers=4")
	c, err := llm.System("dgx-h100", 8)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := llm.Simulate(&llm.Job{Model: m, Layout: *r.Layout, Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if j.Layout != *r.Layout || res.IterationTime != direct.IterationTime || res.IterationTime <= 0 {
		t.Errorf("through the regime %g s, engine/llm directly %g s", res.IterationTime, direct.IterationTime)
	}
	if _, err := ParseRegime("layout:tp=0", nil); err == nil || !strings.Contains(err.Error(), "tp") {
		t.Errorf("bad layout: %v", err)
	}
}

// A layout with a graph workload, or beside a graph regime, is an error
// naming the workload and the valid models; a graph run refuses a regime
// that carries a layout.
func TestLayoutNeedsDecoderOnlyModel(t *testing.T) {
	r, err := ParseRegime("layout:tp=2,gbs=8", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"zoo:mlp", "zoo:bert-large", "my-graph.json"} {
		_, err := LayoutJob(LayoutRequest{Workload: w, Cluster: "dgx-h100", Regime: r})
		if !errors.Is(err, ErrLayoutWorkload) || !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), "llama3.1-8b") {
			t.Errorf("%s: %v", w, err)
		}
	}
	// a preset with a bad override names the field, not the model list
	if _, err := LayoutJob(LayoutRequest{Workload: "zoo:llama3.1-8b?seq=0", Cluster: "dgx-h100", Regime: r}); err == nil || errors.Is(err, ErrLayoutWorkload) || !strings.Contains(err.Error(), "seq") {
		t.Errorf("bad override: %v", err)
	}
	mixed := r
	pipe, err := ParseRegime("1f1b:4", nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed.Pipeline = pipe.Pipeline
	if _, err := LayoutJob(LayoutRequest{Workload: "zoo:llama3.1-8b", Cluster: "dgx-h100", Regime: mixed}); !errors.Is(err, ErrLayoutWorkload) {
		t.Errorf("layout beside a pipeline regime: %v", err)
	}
	g, c, err := (Inputs{Workload: "zoo:mlp", Cluster: "4xV100-pcie"}).Load()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), reg, g, c, Spec{Placer: "single", Regime: r}); !errors.Is(err, ErrLayoutWorkload) {
		t.Errorf("graph run with a layout: %v", err)
	}
}

// A scenario's layout: field runs its points through engine/llm (each
// placer planning the stages, "even" Megatron's split), the record
// holding the iteration SimulateLayout plays; a graph workload under a
// layout is its point's error.
func TestScenarioLayout(t *testing.T) {
	s, err := ParseScenario([]byte(`name: layout
workloads: ["zoo:llama3.1-8b?layers=4&seq=2048", "zoo:mlp"]
clusters: ["dgx-h100:nodes=1"]
placers: [even]
layout: tp=2,pp=2,dp=2,sp,zero=1,mbs=1,gbs=8
`))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := RunScenario(context.Background(), s, RunOptions{Registry: reg, Dir: t.TempDir(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 {
		t.Fatalf("%d records, want 2", len(res.Records))
	}
	r, _ := ParseRegime("layout:tp=2,pp=2,dp=2,sp,zero=1,mbs=1,gbs=8", nil)
	_, want, err := SimulateLayout(context.Background(), reg, LayoutRequest{Workload: "zoo:llama3.1-8b?layers=4&seq=2048", Cluster: "dgx-h100:nodes=1", Regime: r, Planner: PlannerEven})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range res.Records {
		switch rec.Point.Workload {
		case "zoo:mlp":
			if !strings.Contains(rec.Error, ErrLayoutWorkload.Error()) || !strings.Contains(rec.Error, "zoo:mlp") {
				t.Errorf("graph workload under a layout: error %q", rec.Error)
			}
		default:
			if rec.Error != "" || rec.StepTime != want.IterationTime || rec.Point.Regime != r.String() {
				t.Errorf("layout point: %+v, want step time %g in regime %s", rec, want.IterationTime, r)
			}
		}
	}
	if _, err := ParseScenario([]byte("name: x\nworkloads: [a]\nclusters: [b]\nplacers: [even]\nlayout: tp=zero\n")); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("bad layout field: %v", err)
	}
}

// LayoutJob's and SimulateLayout's bad input is a FieldError naming the
// request's field (never a flag), so that each command names its own.
func TestLayoutErrorsNameFields(t *testing.T) {
	r, err := LayoutRegime("tp=2,pp=2,dp=2,gbs=8")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		req   LayoutRequest
	}{
		{"workload", LayoutRequest{Workload: "zoo:mlp", Cluster: "dgx-h100", Regime: r}},
		{"workload", LayoutRequest{Workload: "zoo:llama3.1-8b?seq=0", Cluster: "dgx-h100", Regime: r}},
		{"cluster", LayoutRequest{Workload: "zoo:llama3.1-8b", Cluster: "dgx-h10", Regime: r}},
		{"stage planner", LayoutRequest{Workload: "zoo:llama3.1-8b?layers=4", Cluster: "dgx-h100", Regime: r, Planner: "nosuch"}},
	} {
		_, _, err := SimulateLayout(context.Background(), reg, tc.req)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %v, want a FieldError of %q naming no flag", tc.req, err, tc.field)
		}
	}
	if _, err := LayoutRegime("tp=2,dq=4"); err == nil || !strings.Contains(err.Error(), "layout: ") {
		t.Errorf("bad layout: %v", err)
	}
}
