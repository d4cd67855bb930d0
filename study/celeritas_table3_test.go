package study_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"placesim/study"
)

// TestCeleritasTable3Regime pins what issue 14 asks of
// scenarios/celeritas-table3.yaml, on a small stand-in for its models (the
// scenario itself takes minutes): every placer, Metis too, plays one
// training step (Metis's split, made for a pipeline, says it is played as
// step), and no memory-aware placer's plan runs out of memory unless it
// refused the graph with a does-not-fit error. The stand-in is VGG-19 at
// batch 256 on 4 x RTX 2080 Ti 11 GB with the scenario's estimates
// (Standard Evaluation): too large for one GPU, small enough for four.
func TestCeleritasTable3Regime(t *testing.T) {
	if testing.Short() {
		t.Skip("places and simulates a zoo training graph with six placers")
	}
	if _, err := exec.LookPath("gpmetis"); err != nil {
		t.Skip("gpmetis (Debian metis) not installed: make deps")
	}
	t.Parallel()
	s, err := study.LoadScenario("../scenarios/celeritas-table3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Regimes.Strings(), []string{"step"}) {
		t.Fatalf("regimes %v, want [step] (the paper's single-step times)", s.Regimes)
	}
	for _, p := range []string{"metis", "m-topo", "m-etf", "m-sct", "order-place", "celeritas"} {
		if !slices.Contains(s.Placers, p) {
			t.Fatalf("placers %v lack %s", s.Placers, p)
		}
	}
	s.Workloads = []string{"zoo:vgg19?batch=256&training=true&framework=tf1-graph"}
	s.Clusters = []string{"4xRTX2080Ti-pcie"}
	res, _, err := study.RunScenario(context.Background(), s, study.RunOptions{Registry: registry(t), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, r := range res.Records {
		t.Logf("%s: regime %s step %.4g s error %q oom %v note %q peak %v", r.Placer, r.Regime, r.StepTime, r.Error, r.OOM != nil, r.RegimeNote, r.PeakMemory)
		if r.Regime != "step" {
			t.Errorf("%s played in %q, want step", r.Placer, r.Regime)
		}
		if r.Placer == "metis" {
			if r.Error != "" || !strings.Contains(r.RegimeNote, "played as step") {
				t.Errorf("metis: error %q, regime note %q; want a step with the note", r.Error, r.RegimeNote)
			}
			continue
		}
		switch {
		case r.Error != "" && !strings.Contains(r.Error, "does not fit"):
			t.Errorf("%s failed without a does-not-fit error: %s", r.Placer, r.Error)
		case r.OOM != nil:
			t.Errorf("%s: memory-aware plan runs out of memory: %v", r.Placer, r.OOM.Err())
		case r.Error == "":
			placed++
		}
	}
	if placed == 0 {
		t.Error("every memory-aware placer refused the stand-in: nothing checked")
	}
}
