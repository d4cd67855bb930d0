package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/internal/sharedtest"
)

func TestTrainPrintsFieldUnits(t *testing.T) {
	code, out, errs := run(t, "train", "-w", "zoo:llama3.1-8b?layers=8&seq=4096", "-c", "dgx-h100", "--layout", "tp=2,pp=2,dp=2,sp,zero=1,mbs=1,gbs=8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"iteration time", "tokens/s/GPU", "model TFLOP/s/GPU", "MFU / HFU", "pipeline bubble", "exposed comm", "TP ", "PP ", "DP ", "optimizer GB"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTrainTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	code, _, errs := run(t, "train", "-w", "zoo:llama3.1-8b?layers=4&seq=2048", "--layout", "pp=2,dp=2,gbs=8", "--trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !json.Valid(b) || !strings.Contains(string(b), "\"F0.0\"") {
		t.Fatalf("trace: %v %.200s", err, b)
	}
}

func TestTrainOOMExit2(t *testing.T) {
	code, out, errs := run(t, "train", "-w", "zoo:llama3.1-70b", "-c", "dgx-h100", "--layout", "dp=64,gbs=64", "--format", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (OOM): %s", code, errs)
	}
	// the record's oom, as every command's results write it
	var v struct {
		OOM struct {
			Device string `json:"deviceName"`
			Op     string `json:"opName"`
			Bytes  int64  `json:"requested"`
		} `json:"oom"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.OOM.Device != "n0-gpu0" || v.OOM.Bytes <= 80e9 || v.OOM.Op == "" {
		t.Fatalf("oom %+v", v.OOM)
	}
}

func TestTrainBadLayoutNamesField(t *testing.T) {
	code, _, errs := run(t, "train", "-w", "zoo:llama3.1-8b", "--layout", "tp=3,pp=0")
	if code != 1 || !strings.Contains(errs, "pp") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// TestTrainNamesItsFlags: train plays its job through study.SimulateLayout,
// whose errors name the request's fields; each reaches the person as the
// flag they typed.
func TestTrainNamesItsFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"workload", []string{"-w", "zoo:mlp", "--layout", "tp=2,dp=4"}, `--workload: layout needs a decoder-only model: model "zoo:mlp"`},
		{"override", []string{"-w", "zoo:llama3.1-8b?seq=0", "--layout", "tp=2,dp=4"}, "--workload: "},
		{"layout", []string{"-w", "zoo:llama3.1-8b", "--layout", "tp=2,dq=4"}, `--layout: parallel layout "tp=2,dq=4": unknown field "dq"`},
		{"cluster", []string{"-w", "zoo:llama3.1-8b", "-c", "dgx-h10", "--layout", "tp=2,dp=4"}, "--cluster: "},
		{"planner", []string{"-w", "zoo:llama3.1-8b?layers=4", "--layout", "pp=2,dp=2,gbs=8", "--planner", "nosuch"}, `--planner: nosuch: unknown placer "nosuch"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, append([]string{"train"}, tc.args...)...)
			if code != 1 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "stage planner") {
				t.Fatalf("exit %d, want 1 and %q in:\n%s", code, tc.want, errs)
			}
		})
	}
}

func TestCompareStagePlanners(t *testing.T) {
	code, out, errs := run(t, "compare", "-w", "zoo:llama3.1-8b?layers=30&seq=4096", "-c", "dgx-h100", "--layout", "tp=2,pp=4,sp,gbs=8",
		"--placers", "tarnawski-dp,pipedream,order-place")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"even", "tarnawski-dp", "pipedream", "order-place", "MFU", "peak memory GB"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// --format json: compare's results, a record per planner
	code, out, errs = run(t, "compare", "-w", "zoo:llama3.1-8b?layers=30&seq=4096", "-c", "dgx-h100", "--layout", "tp=2,pp=4,sp,gbs=8",
		"--placers", "tarnawski-dp,pipedream", "--format", "json")
	var v struct {
		Results []struct {
			Placer   string   `json:"placer"`
			StepTime *float64 `json:"stepTime"`
			LLM      *struct {
				Layout string `json:"layout"`
				Stages []int  `json:"stages"`
			} `json:"llm"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Results) != 3 {
		t.Fatalf("--format json: exit %d, %v, %d records:\n%s\n%s", code, err, len(v.Results), out, errs)
	}
	for _, r := range v.Results {
		if r.StepTime == nil || r.LLM == nil || r.LLM.Layout == "" || len(r.LLM.Stages) == 0 {
			t.Errorf("record of %s lacks the step time or the layout's figures: %s", r.Placer, out)
		}
	}
}

func TestValidateDetectsLLMFile(t *testing.T) {
	path := sharedtest.Path(t, "fidelity", "llm.tsv")
	code, out, errs := run(t, "validate", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, id := range []string{"kor-t5-175b-seqsel", "dgxc-llama31-405b-bf16-512", "mbr-gptoss-120b-bf16-h100-64", "median |error|"} {
		if !strings.Contains(out, id) {
			t.Errorf("output lacks %q", id)
		}
	}
}
