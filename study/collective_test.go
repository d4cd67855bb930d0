package study_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/engine"
	"placesim/placers/builtin"
	"placesim/study"
)

// TestRunCollectiveModel: every data-parallel run plays an all-reduce
// model: the workload's framework's by default (auto), for a regime's
// replicas and for a placer's own alike, or the one asked for; link time
// alone is the fastest, PyTorch DDP's copies the slowest.
func TestRunCollectiveModel(t *testing.T) {
	t.Parallel()
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	c, err := study.ResolveCluster("4xV100-pcie", nil)
	if err != nil {
		t.Fatal(err)
	}
	model := func(t *testing.T, name string) *engine.CollectiveModel {
		m, err := study.ParseCollective("model", name)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	step := map[string]float64{}
	tests := []struct {
		name, workload, placer, model string
		own                           bool
		want                          string
	}{
		{"pytorch auto", "zoo:mlp?training=true&batch=64", "single", "auto", false, engine.CollectivePyTorchDDP},
		{"tensorflow auto", "zoo:mlp?training=true&batch=64&framework=tensorflow", "single", "", false, engine.CollectiveNCCL},
		{"tf1-graph auto", "zoo:mlp?training=true&batch=64&framework=tf1-graph", "single", "auto", false, engine.CollectiveNCCL},
		{"pytorch link", "zoo:mlp?training=true&batch=64", "single", "link", false, engine.CollectiveLink},
		{"pytorch nccl", "zoo:mlp?training=true&batch=64", "single", "nccl", false, engine.CollectiveNCCL},
		{"placer's own replicas", "zoo:mlp?training=true&batch=64", "data-parallel", "", true, engine.CollectivePyTorchDDP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := study.LoadWorkload(tc.workload)
			if err != nil {
				t.Fatal(err)
			}
			s := study.Spec{Placer: tc.placer, Reproducible: true, PlacerRegime: tc.own}
			if !tc.own {
				s.Regime, err = study.ParseRegime("dp:4", &engine.DataParallel{BucketBytes: 1 << 20, Overlap: true, Collective: model(t, tc.model)})
				if err != nil {
					t.Fatal(err)
				}
			}
			o, err := study.Run(context.Background(), reg, g, c, s)
			if err != nil {
				t.Fatal(err)
			}
			if o.Error != "" || o.Result.DataParallel == nil {
				t.Fatalf("run: %q, data parallel %v", o.Error, o.Result.DataParallel)
			}
			if o.Result.DataParallel.Model != tc.want {
				t.Fatalf("all-reduce model %q, want %q", o.Result.DataParallel.Model, tc.want)
			}
			if !tc.own && strings.HasPrefix(tc.name, "pytorch") {
				step[tc.model] = o.StepTime
			}
		})
	}
	t.Run("order", func(t *testing.T) {
		link, nccl, auto := step["link"], step["nccl"], step["auto"]
		if !(link > 0 && link < nccl && nccl < auto) {
			t.Fatalf("step times link %g, nccl %g, pytorch-ddp %g: want increasing", link, nccl, auto)
		}
	})
}

// TestParseCollectiveErrors: an unknown model names the setting and the
// valid models; a scenario's allreduce.model is checked when it loads.
func TestParseCollectiveErrors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"gloo", "Link", " nccl"} {
		t.Run(name, func(t *testing.T) {
			_, err := study.ParseCollective("--allreduce-model", name)
			if err == nil || !strings.Contains(err.Error(), `--allreduce-model "`+name+`"`) || !strings.Contains(err.Error(), "valid: auto, link, nccl, pytorch-ddp") {
				t.Fatalf("error %v", err)
			}
		})
	}
	t.Run("scenario", func(t *testing.T) {
		sc := &study.Scenario{Name: "x", Workloads: []string{"zoo:mlp?training=true"}, Clusters: []string{"4xV100-pcie"},
			Placers: []string{"single"}, Regimes: regimeList(t, "dp:2"), AllReduce: &study.AllReduceSpec{Model: "gloo"}}
		err := sc.Validate(nil)
		if err == nil || !strings.Contains(err.Error(), `allreduce.model "gloo"`) {
			t.Fatalf("error %v", err)
		}
	})
}

// TestParseWirePrecision: the all-reduce's precision as bytes an element
// (0: the gradients' own); an unknown one names the setting and the valid
// ones, in a flag and in a scenario's allreduce.precision.
func TestParseWirePrecision(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int{"": 0, "gradients": 0, "fp32": 4, "fp16": 2, "bf16": 2} {
		if got, err := study.ParseWirePrecision("--allreduce-precision", v); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"fp8", "FP16", "half"} {
		if _, err := study.ParseWirePrecision("--allreduce-precision", v); err == nil || !strings.Contains(err.Error(), `--allreduce-precision "`+v+`"`) || !strings.Contains(err.Error(), "valid: gradients, fp32, fp16, bf16") {
			t.Errorf("%q: error %v", v, err)
		}
	}
	sc := &study.Scenario{Name: "x", Workloads: []string{"zoo:mlp?training=true"}, Clusters: []string{"4xV100-pcie"},
		Placers: []string{"single"}, Regimes: regimeList(t, "dp:2"), AllReduce: &study.AllReduceSpec{Precision: "fp12"}}
	if err := sc.Validate(nil); err == nil || !strings.Contains(err.Error(), `allreduce.precision "fp12"`) {
		t.Errorf("scenario: error %v", err)
	}
}

// TestValidateMatchesRun: a data-parallel validation row simulates as a
// run of the same workload in the same regime with the default all-reduce
// model does (one path for validate and simulate).
func TestValidateMatchesRun(t *testing.T) {
	t.Parallel()
	body := validationHeader +
		"dp\tzoo:mlp?training=true&batch=64\t4xV100-pcie\t4\tfp32\tpytorch\t1000\tsamples/s\t1\tsrc\t\n"
	path := writeValidation(t, body)
	rows, err := study.ReadValidation(path)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s, err := study.Validate(context.Background(), reg, rows, filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	g, err := study.LoadWorkload(s.Rows[0].Workload)
	if err != nil {
		t.Fatal(err)
	}
	c, err := study.ResolveCluster("4xV100-pcie", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := study.ParseRegime("dp:4", &engine.DataParallel{BucketBytes: study.DDPBucketBytes, Overlap: true})
	if err != nil {
		t.Fatal(err)
	}
	o, err := study.Run(context.Background(), reg, g, c, study.Spec{Placer: "single", Reproducible: true, Regime: r})
	if err != nil || o.Error != "" {
		t.Fatalf("run: %v %q", err, o.Error)
	}
	const tol = 1e-12
	if !scalar.EqualWithinAbsOrRel(o.Throughput, s.Rows[0].Simulated, tol, tol) {
		t.Fatalf("run %g samples/s, validate %g", o.Throughput, s.Rows[0].Simulated)
	}
	if o.Result.DataParallel.Model != engine.CollectivePyTorchDDP {
		t.Fatalf("model %q", o.Result.DataParallel.Model)
	}
}
