package study

import (
	"context"
	"testing"

	"placesim/engine/llm"
	"placesim/parallel"
	"placesim/placers/builtin"
	"placesim/workloads/zoo"
)

// TestStagePlanners: the seeds' pipeline placers plan the stages of a
// Llama pipeline seeing each tensor-parallel group as one device; every
// split holds every layer, and Tarnawski's max-load DP, which weighs the
// head (a 128k vocabulary) on the last stage, is no slower than
// Megatron's even split.
func TestStagePlanners(t *testing.T) {
	m, err := zoo.ParseLLM("zoo:llama3.1-8b?seq=4096&layers=30")
	if err != nil {
		t.Fatal(err)
	}
	l, err := parallel.Parse("tp=2,pp=4,mbs=1,gbs=16,sp")
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.System("dgx-h100", l.GPUs())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	j := &llm.Job{Model: m, Layout: l, Cluster: c}
	plans := CompareStagePlanners(context.Background(), reg, []string{PlannerEven, "tarnawski-dp", "pipedream", "order-place"}, j)
	even := plans[0].Result
	if even == nil {
		t.Fatal(plans[0].Failure)
	}
	for _, p := range plans {
		if p.Failure != "" {
			t.Errorf("%s: %s", p.Planner, p.Failure)
			continue
		}
		sum := 0
		for _, s := range p.Stages {
			sum += s
		}
		if sum != m.Layers || len(p.Stages) != 4 {
			t.Errorf("%s: stages %v", p.Planner, p.Stages)
		}
		t.Logf("%-14s stages %v iteration %.4f s MFU %.3f peak %.1f GB %v", p.Planner, p.Stages, p.Result.IterationTime, p.Result.MFU, float64(p.Result.PeakMemory)/1e9, p.Notes)
	}
	// 30 layers over 4 stages: Megatron's split counts the embedding
	// and the loss as a layer each (7,8,8,7); the max-load DP weighs
	// them by their time
	for _, p := range plans[1:2] {
		if p.Result != nil && p.Result.IterationTime > even.IterationTime*1.001 {
			t.Errorf("%s: %.4f s slower than even %.4f s", p.Planner, p.Result.IterationTime, even.IterationTime)
		}
	}
}
