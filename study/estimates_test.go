package study_test

import (
	"strings"
	"testing"

	"placesim/devices"
	"placesim/study"
	"placesim/workloads"
)

func TestStandardEvalEstimates(t *testing.T) {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	g, err := study.LoadWorkload("zoo:mlp?batch=64&hidden=256&training=true")
	if err != nil {
		t.Fatal(err)
	}
	build, err := study.ZooBuilder(g.Name)
	if err != nil {
		t.Fatal(err)
	}
	h, err := build(8)
	if err != nil {
		t.Fatal(err)
	}
	if h.Batch != 8 || len(h.Ops) != len(g.Ops) || !h.Training {
		t.Fatalf("rebuilt graph: batch %d, %d ops (want 8, %d), training %v", h.Batch, len(h.Ops), len(g.Ops), h.Training)
	}
	est, err := study.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.StandardEval, Sigma: 0.1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	differ := false
	for op := range g.Ops {
		differ = differ || est.OpTime(op, 0) != exact.OpTime(op, 0)
	}
	if !differ {
		t.Fatal("standard-eval estimates equal the exact ones: no measurement noise")
	}
	// a file workload cannot be rebuilt at another batch size
	f := workloads.Chain(3, []float64{1e-3}, 1)
	f.Name = "model.json"
	if _, err := study.NewEstimates(f, c, devices.EstimateOptions{Mode: devices.StandardEval}); err == nil || !strings.Contains(err.Error(), "not a zoo model") {
		t.Fatalf("file workload: %v", err)
	}
}
