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
