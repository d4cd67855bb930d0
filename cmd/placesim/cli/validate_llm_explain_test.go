package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidateLLMExplain: --explain on an llm.tsv file takes the GPT-OSS
// row apart (its kernels and the MoE mechanisms' shares, in text and
// JSON), refuses an unknown id with the valid ones and refuses a
// threshold beside it.
func TestValidateLLMExplain(t *testing.T) {
	const file = "../../../validation/llm.tsv"
	const id = "mbr-gptoss-120b-bf16-h100-64"
	code, out, errOut := run(t, "validate", file, "--explain", id)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"expert-bias", "sort-chunks", "eager expert bias", "attention head dim", "recompute modules", "% of the iteration"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "validate", file, "--explain", id, "--format", "json")
	var e struct {
		Mechanisms map[string]float64 `json:"mechanisms"`
		Ops        []map[string]any   `json:"ops"`
	}
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || !(e.Mechanisms["eager expert bias"] > 0) || len(e.Ops) == 0 {
		t.Errorf("json: exit %d, %v, %+v", code, err, e.Mechanisms)
	}
	if code, _, errOut := run(t, "validate", file, "--explain", "nope"); code == 0 || !strings.Contains(errOut, id) {
		t.Errorf("unknown id: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, "validate", file, "--explain", id, "--max-worst", "0.5"); code == 0 || !strings.Contains(errOut, "--explain takes one row apart") {
		t.Errorf("explain and threshold: exit %d, %s", code, errOut)
	}
}
