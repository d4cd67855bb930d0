package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// simulate --layout plays the same iteration as train (one typed regime,
// "layout:LAYOUT"), and refuses a graph workload or a graph regime flag
// beside it.
func TestSimulateLayout(t *testing.T) {
	args := []string{"-w", "zoo:llama3.1-8b?layers=4&seq=2048", "-c", "dgx-h100", "--layout", "tp=2,pp=2,dp=2,sp,zero=1,mbs=1,gbs=8", "--format", "json"}
	code, sim, errs := run(t, append([]string{"simulate"}, args...)...)
	if code != 0 {
		t.Fatalf("simulate exit %d: %s", code, errs)
	}
	code, train, errs := run(t, append([]string{"train"}, args...)...)
	if code != 0 {
		t.Fatalf("train exit %d: %s", code, errs)
	}
	type record struct {
		StepTime *float64 `json:"stepTime"`
		LLM      struct {
			Layout string `json:"layout"`
		} `json:"llm"`
	}
	var a, b record
	if err := json.Unmarshal([]byte(sim), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(train), &b); err != nil {
		t.Fatal(err)
	}
	if a.StepTime == nil || b.StepTime == nil || *a.StepTime != *b.StepTime || a.LLM.Layout == "" || a.LLM.Layout != b.LLM.Layout {
		t.Errorf("simulate %v %q, train %v %q", a.StepTime, a.LLM.Layout, b.StepTime, b.LLM.Layout)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"graph workload", []string{"simulate", "-w", "zoo:mlp", "-c", "dgx-h100", "--layout", "tp=2,gbs=8"}, "zoo:mlp"},
		{"graph regime flag", []string{"simulate", "-w", "zoo:llama3.1-8b?layers=2", "-c", "dgx-h100", "--layout", "tp=2,gbs=8", "--data-parallel", "2"}, "--data-parallel"},
		{"bad layout", []string{"simulate", "-w", "zoo:llama3.1-8b?layers=2", "-c", "dgx-h100", "--layout", "tp=three"}, "--layout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := run(t, c.args...)
			if code != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q does not name %q", code, errs, c.want)
			}
		})
	}
}
