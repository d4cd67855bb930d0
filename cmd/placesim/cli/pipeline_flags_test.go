package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
)

// TestSimulatePipelineFlags: --pipeline, --microbatches, --stages,
// --recompute and --data-parallel reach the engine and its figures reach
// the JSON output.
func TestSimulatePipelineFlags(t *testing.T) {
	dir := t.TempDir()
	stageFile := filepath.Join(dir, "stages.json")
	if err := os.WriteFile(stageFile, []byte(`{"stages": [{"device": "gpu2", "layers": ["input", "fc1", "fc2"]}, {"device": "gpu3", "layers": ["fc3", "fc4"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w := "zoo:mlp?training=true&batch=64"
	cases := []struct {
		name     string
		args     []string
		stages   []string // devices of each stage, replicas joined by +
		m        int
		replicas int
	}{
		{"1f1b even", []string{"--pipeline", "1f1b", "--microbatches", "8", "--stages", "even"}, []string{"gpu0", "gpu1", "gpu2", "gpu3"}, 8, 0},
		{"gpipe auto from round-robin", []string{"-p", "round-robin", "--pipeline", "gpipe", "--microbatches", "4", "--recompute"}, nil, 4, 0},
		{"pipedream from a stage file", []string{"--pipeline", "pipedream", "--microbatches", "16", "--stages", stageFile}, []string{"gpu2", "gpu3"}, 16, 0},
		{"data parallel", []string{"--data-parallel", "4", "--allreduce-bucket", "1MiB", "--allreduce-overlap"}, nil, 0, 4},
		{"hybrid", []string{"--pipeline", "1f1b", "--stages", "even", "--data-parallel", "2"}, []string{"gpu0+gpu2", "gpu1+gpu3"}, 4, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"simulate", "-w", w, "-c", "4xV100-pcie", "--json", "--reproducible"}, tc.args...)
			code, out, errs := run(t, args...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var o struct {
				StepTime float64 `json:"stepTime"`
				Pipeline *struct {
					MicroBatches int `json:"microBatches"`
					Stages       []struct {
						Devices []string `json:"devices"`
					} `json:"stages"`
				} `json:"pipeline"`
				DataParallel *struct {
					Replicas   int              `json:"replicas"`
					AllReduces []map[string]any `json:"allReduces"`
				} `json:"dataParallel"`
			}
			if err := json.Unmarshal([]byte(out), &o); err != nil {
				t.Fatal(err)
			}
			if !(o.StepTime > 0) {
				t.Errorf("step time %g", o.StepTime)
			}
			if (tc.m > 0) != (o.Pipeline != nil) {
				t.Fatalf("pipeline in output: %v, want %v", o.Pipeline != nil, tc.m > 0)
			}
			if o.Pipeline != nil {
				if o.Pipeline.MicroBatches != tc.m {
					t.Errorf("%d micro-batches, want %d", o.Pipeline.MicroBatches, tc.m)
				}
				if tc.stages != nil {
					var got []string
					for _, s := range o.Pipeline.Stages {
						got = append(got, strings.Join(s.Devices, "+"))
					}
					if strings.Join(got, " ") != strings.Join(tc.stages, " ") {
						t.Errorf("stages on %v, want %v", got, tc.stages)
					}
				}
			}
			if (tc.replicas > 0) != (o.DataParallel != nil) {
				t.Fatalf("dataParallel in output: %v, want %v", o.DataParallel != nil, tc.replicas > 0)
			}
			if o.DataParallel != nil && (o.DataParallel.Replicas != tc.replicas || len(o.DataParallel.AllReduces) == 0) {
				t.Errorf("%d replicas, %d all-reduces; want %d replicas and some", o.DataParallel.Replicas, len(o.DataParallel.AllReduces), tc.replicas)
			}
		})
	}
}

// TestSimulatePipelineFlagErrors: bad values exit 1 with a message naming
// the flag and the valid values.
func TestSimulatePipelineFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--pipeline", "zigzag"}, "valid: gpipe, 1f1b, pipedream"},
		{[]string{"--pipeline", "1f1b", "--microbatches", "0"}, "--microbatches 0: valid range >= 1"},
		{[]string{"--microbatches", "8"}, "--microbatches needs --pipeline"},
		{[]string{"--recompute"}, "--recompute needs --pipeline"},
		{[]string{"--data-parallel", "0"}, "--data-parallel 0: valid range >= 1"},
		{[]string{"--data-parallel", "5"}, "5 replicas need at least 5 accelerators"},
		{[]string{"--allreduce-overlap"}, "needs --data-parallel"},
		{[]string{"--data-parallel", "2", "--allreduce-bucket", "lots"}, "--allreduce-bucket"},
		{[]string{"--allreduce-model", "link"}, "--allreduce-model needs --data-parallel"},
		{[]string{"--data-parallel", "2", "--allreduce-model", "gloo"}, `--allreduce-model "gloo": unknown all-reduce model (valid: auto, link, nccl, pytorch-ddp)`},
		{[]string{"--allreduce-precision", "fp16"}, "--allreduce-precision needs --data-parallel"},
		{[]string{"--data-parallel", "2", "--allreduce-precision", "fp8"}, `--allreduce-precision "fp8": unknown all-reduce precision (valid: gradients, fp32, fp16, bf16)`},
		{[]string{"--pipeline", "1f1b", "--stages", "no-such-file.json"}, "read stage file"},
		{[]string{"--pipeline", "1f1b", "--stages", "even", "-c", "8xV100-nvlink"}, "5 forward layers, too few for 8 stages"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"simulate", "-w", "zoo:mlp?training=true", "-c", "4xV100-pcie"}, tc.args...)
			code, _, errs := run(t, args...)
			if code != cli.ExitError || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs, tc.want)
			}
		})
	}
}

// TestSimulateAllReducePrecision: --allreduce-precision fp16 all-reduces
// 16-bit copies of an FP32 workload's gradients, half the bytes of its own
// precision's all-reduce; fp32 on an FP16 workload's gradients is refused,
// naming the field and the gradients' width.
func TestSimulateAllReducePrecision(t *testing.T) {
	bytes := func(extra ...string) int64 {
		t.Helper()
		args := append([]string{"simulate", "-w", "zoo:mlp?training=true", "-c", "4xV100-pcie", "--data-parallel", "2", "--format", "json"}, extra...)
		code, out, errs := run(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		var o struct {
			DataParallel struct {
				GradientBytes int64 `json:"gradientBytes"`
			} `json:"dataParallel"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		return o.DataParallel.GradientBytes
	}
	own, fp32, fp16 := bytes(), bytes("--allreduce-precision", "fp32"), bytes("--allreduce-precision", "fp16")
	if own <= 0 || fp32 != own || fp16 != own/2 {
		t.Errorf("all-reduced %d bytes (own), %d (fp32), %d (fp16); want the same, the same, half", own, fp32, fp16)
	}
	code, _, errs := run(t, "simulate", "-w", "zoo:mlp?training=true&precision=fp16", "-c", "4xV100-pcie", "--data-parallel", "2", "--allreduce-precision", "fp32")
	if code != cli.ExitError || !strings.Contains(errs, "dataParallel.wireBytes = 4") || !strings.Contains(errs, "2 bytes per element") {
		t.Errorf("fp32 all-reduce of FP16 gradients: exit %d, stderr %q; want 1 naming dataParallel.wireBytes and the gradients' 2 bytes", code, errs)
	}
}
