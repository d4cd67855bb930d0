package study_test

import (
	"context"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers/builtin"
	"placesim/study"
)

// TestExplain: a row's iteration taken apart sums to the simulated
// iteration; a data-parallel row has communication, the slowest GPU's
// share and the all-reduce's charges on the compute stream, a 1-GPU row
// none of them; an unknown id is refused with the valid ones.
func TestExplain(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	rows, err := study.ReadValidation("../validation/published.tsv")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := builtin.NewRegistry()
	for _, tc := range []struct {
		id string
		dp bool
	}{{"p039", true}, {"p037", false}} {
		t.Run(tc.id, func(t *testing.T) {
			e, err := study.Explain(context.Background(), reg, rows, tc.id, "../validation")
			if err != nil {
				t.Fatal(err)
			}
			if e.Row.Failure != "" || !(e.StepTime > 0) {
				t.Fatalf("row %s: step %g, failure %q", tc.id, e.StepTime, e.Row.Failure)
			}
			var sum float64
			parts := map[string]float64{}
			for _, p := range e.Parts {
				if p.Seconds < 0 {
					t.Errorf("part %s %s %s: %g s", p.Part, p.Role, p.Class, p.Seconds)
				}
				sum += p.Seconds
				parts[p.Part] += p.Seconds
			}
			if !scalar.EqualWithinAbsOrRel(sum, e.StepTime, 0, tol) {
				t.Errorf("parts sum to %.9g s, the iteration is %.9g s", sum, e.StepTime)
			}
			if parts["compute"] <= 0 || parts["optimizer"] <= 0 {
				t.Errorf("compute %g s, optimizer %g s: want both", parts["compute"], parts["optimizer"])
			}
			if tc.dp {
				if e.Comm == nil || e.Comm.Bytes <= 0 || parts["slowest-gpu"] <= 0 || parts["allreduce-on-compute"] <= 0 {
					t.Errorf("data-parallel row: comm %+v, slowest GPU %g s, all-reduce on compute %g s", e.Comm, parts["slowest-gpu"], parts["allreduce-on-compute"])
				}
				// p039 is AMP on a DGX A100: NCCL's kernels hold SMs and,
				// beside memory-bound kernels, HBM bandwidth; the loss
				// scaler unscales the gradients
				if parts["contention-sm"] <= 0 || parts["contention-hbm"] <= 0 || parts["unscale"] <= 0 {
					t.Errorf("contention by SMs %g s, by HBM %g s, unscale %g s: want all three", parts["contention-sm"], parts["contention-hbm"], parts["unscale"])
				}
				if e.Replica != e.Replicas-1 {
					t.Errorf("explained replica %d, want the slowest, %d", e.Replica, e.Replicas-1)
				}
			} else if e.Comm != nil || parts["slowest-gpu"] != 0 || parts["exposed-comm"] != 0 {
				t.Errorf("1-GPU row with communication %+v, slowest GPU %g s", e.Comm, parts["slowest-gpu"])
			}
		})
	}
	if _, err := study.Explain(context.Background(), reg, rows, "nope", "../validation"); err == nil || !strings.Contains(err.Error(), "p039") {
		t.Errorf("unknown id: error %v, want one listing the ids", err)
	}
}
