package study

import (
	"bytes"
	"math"
	"os"
	"testing"

	"placesim/internal/sharedtest"
)

// TestValidateLLMRunsEveryRow: every row of ../shared/fidelity/llm.tsv is
// read as it is and simulated on its system with its layout, with an
// error for each (the accuracy goal belongs to issue 26).
func TestValidateLLMRunsEveryRow(t *testing.T) {
	path := "../validation/llm.tsv"
	shared, err := os.ReadFile(sharedtest.Path(t, "fidelity", "llm.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if own, err := os.ReadFile(path); err != nil || !bytes.Equal(own, shared) {
		t.Fatalf("validation/llm.tsv is not a copy of ../shared/fidelity/llm.tsv (%v)", err)
	}
	ok, err := IsLLMValidation(path)
	if err != nil || !ok {
		t.Fatalf("header of %s not detected as llm.tsv: %v", path, err)
	}
	if ok, _ := IsLLMValidation("../validation/published.tsv"); ok {
		t.Fatal("published.tsv detected as llm.tsv")
	}
	rows, err := ReadLLMValidation(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 10 {
		t.Fatalf("%d rows", len(rows))
	}
	s := ValidateLLM(rows)
	for _, r := range s.Rows {
		if r.Failure != "" {
			t.Errorf("%s: %s", r.ID, r.Failure)
			continue
		}
		if !(r.Simulated > 0) || math.IsNaN(r.Error) {
			t.Errorf("%s: simulated %g error %g", r.ID, r.Simulated, r.Error)
		}
		t.Logf("%-30s %10.2f %10.2f %-13s %+6.1f%% MFU %.2f %s", r.ID, r.Measured, r.Simulated, r.Unit, 100*r.Error, r.MFU, r.OOM)
	}
	t.Logf("median |error| %.1f %%, worst %.1f %% (%s)", 100*s.MedianError, 100*s.WorstError, s.WorstID)
}

// TestExplainLLMShowsMoEMechanisms: --explain of the GPT-OSS row lists
// the MoE dispatcher's sort by expert, the eager expert bias and the
// head-dimension-64 attention, the unfused YaRN rotary and the
// dispatcher's metadata, each adding time; a dense Llama row (head
// dimension 128, no experts, cp=2) has none of them, only ring
// attention's merge; an unknown id is an error naming the valid ones.
func TestExplainLLMShowsMoEMechanisms(t *testing.T) {
	rows, err := ReadLLMValidation("../validation/llm.tsv")
	if err != nil {
		t.Fatal(err)
	}
	e, err := ExplainLLM(rows, "mbr-gptoss-120b-bf16-h100-64")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"sort by expert", "eager expert bias", "attention head dim", "unfused YaRN rotary", "dispatcher metadata"} {
		if !(e.Mechanisms[m] > 0) || !(e.Mechanisms[m] < e.IterationTime) {
			t.Errorf("%s: %g s of a %g s iteration", m, e.Mechanisms[m], e.IterationTime)
		}
	}
	d, err := ExplainLLM(rows, "dgxc-llama31-70b-bf16-64")
	if err != nil {
		t.Fatal(err)
	}
	// the dense Llama row (cp=2) has ring attention's merge and none of
	// the MoE mechanisms
	if len(d.Mechanisms) != 1 || !(d.Mechanisms["context-parallel merge"] > 0) {
		t.Errorf("dense Llama row: mechanisms %v", d.Mechanisms)
	}
	if !(e.Optimizer > 0 && d.Optimizer > 0) || !(e.Optimizer < e.IterationTime) {
		t.Errorf("optimizer step: GPT-OSS %g s, Llama %g s", e.Optimizer, d.Optimizer)
	}
	if _, err := ExplainLLM(rows, "nope"); err == nil || !bytes.Contains([]byte(err.Error()), []byte("mbr-gptoss-120b-bf16-h100-64")) {
		t.Errorf("unknown id: %v", err)
	}
}
