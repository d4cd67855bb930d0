package tarnawski_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/placers"
	"placesim/placers/tarnawski"
)

// pipeTol is issue 28's bound (1 %) on |simulated period per sample - max-load|
// / max-load for the DP's split under 1F1B with 256 micro-batches.
const pipeTol = 0.01

// TestPipelineMatchesMaxLoad simulates the DP's split of every layer
// workload as a 1F1B pipeline of 256 micro-batches on the machine the file
// describes and compares the steady-state period per sample with the DP's
// max-load.
//
// The two cost models differ in one way: the engine moves tensors on the
// links (FCFS queues beside the compute streams), so a device's transfers
// overlap its compute, whereas the max-load model adds them to its load
// (section 3; Appendix H.1 describes the overlapping variant). The
// simulated period is therefore the bottleneck's compute (or a link's
// busy time), up to the communication share of the max-load. On the layer
// graphs that share is below 0.5 %; on the operator graphs it is 9-29 %
// (e.g. BERT-3 inference: max-load 27.919 ms, of which 8.011 ms transfers
// on the bottleneck, simulated period 19.908 ms, its compute), so they are
// not held to the 2 % bound.
func TestPipelineMatchesMaxLoad(t *testing.T) {
	for _, tc := range fiddleCases {
		if !strings.HasPrefix(tc.file, "LayerGraphs/") {
			continue
		}
		t.Run(tc.file, func(t *testing.T) {
			req := fiddleRequest(t, tc.file)
			p, err := placers.Typed(tarnawski.NewDP)(placers.Options{"pipeline": "1f1b", "micro-batches": "256"})
			if err != nil {
				t.Fatal(err)
			}
			plan, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Pipeline == nil {
				t.Fatalf("no pipeline in the plan: %v", rep.Notes)
			}
			res, err := engine.Simulate(req.Graph, req.Cluster, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.OOM != nil {
				t.Fatalf("OOM: %v", res.OOM.Err())
			}
			// each micro-batch is one sample at the file's times
			perSample := res.Pipeline.PeriodPerSample
			if math.Abs(perSample-res.Pipeline.Period) > 1e-12*res.Pipeline.Period {
				t.Errorf("period per sample %g s, per micro-batch %g s: a micro-batch of a per-sample graph is one sample", perSample, res.Pipeline.Period)
			}
			rel := (perSample - rep.MaxLoad) / rep.MaxLoad
			t.Logf("max-load %.6f ms, simulated period per sample %.6f ms (%+.3f %%), step %.3f ms, bubble %.3f",
				rep.MaxLoad*1e3, perSample*1e3, 100*rel, res.StepTime*1e3, res.Pipeline.BubbleFraction)
			if rel > pipeTol || rel < -pipeTol {
				t.Errorf("period per sample %.6f ms differs from the max-load %.6f ms by %.2f %%", perSample*1e3, rep.MaxLoad*1e3, 100*rel)
			}
		})
	}
}
