package study_test

import (
	"strings"
	"testing"

	"placesim/devices"
	"placesim/study"
	"placesim/workloads"
)

func TestStandardEvalEstimates(t *testing.T) {
	t.Parallel()
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

// TestStandardEvalTable5 measures Standard Evaluation's mean relative
// deviations on the models of Celeritas' Table 5 (the paper: memory 1.5-6
// %, time 8-14 %).
func TestStandardEvalTable5(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds four large training graphs at several batch sizes")
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ name, spec string }{
		{"Inception_V3", "zoo:inception_v3?batch=512&training=true&framework=tf1-graph"},
		{"NMT", "zoo:gnmt?layers=4&hidden=2048&batch=512&training=true&framework=tf1-graph"},
		{"Transformer", "zoo:transformer?layers=12&heads=16&hidden=2048&batch=256&training=true&framework=tf1-graph"},
		{"Tensor Holography", "zoo:tensor_holography?batch=32&training=true&framework=tf1-graph"},
	} {
		t.Run(m.name, func(t *testing.T) {
			g, err := study.LoadWorkload(m.spec)
			if err != nil {
				t.Fatal(err)
			}
			build, err := study.ZooBuilder(g.Name)
			if err != nil {
				t.Fatal(err)
			}
			_, rep, err := devices.StandardEvaluation(g, c, build, devices.StandardEvalOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !(rep.TimeDev > 0 && rep.TimeDev < 1 && rep.MemDev > 0 && rep.MemDev < 1) {
				t.Fatalf("deviations: time %g, memory %g (want in (0, 1))", rep.TimeDev, rep.MemDev)
			}
			if (rep.Profiled || rep.LargeBatch > 0) && !(rep.TimeDev < rep.RoughTimeDev) {
				t.Fatalf("second step: time deviation %g, first step alone %g", rep.TimeDev, rep.RoughTimeDev)
			}
			t.Logf("%s: profiled at batches %v for %d: memory deviation %.2f %%, time %.2f %% (first step alone %.2f %%)",
				m.name, rep.Batches, rep.Target, 100*rep.MemDev, 100*rep.TimeDev, 100*rep.RoughTimeDev)
		})
	}
}
