package tarnawski_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"placesim/placers"
	"placesim/placers/mip/miptest"
	"placesim/placers/tarnawski"
)

// longEnv runs the slow variants of the tests (all eight workloads for
// the IPs, about 45 s more on two cores).
const longEnv = "PLACESIM_LONG_TESTS"

// TestIPSharedWorkloads runs both throughput IPs, warm-started from the
// DP, with a short time limit: the contiguous IP must return the DP's
// optimum (within CBC's tolerances: it searches the same space), the
// non-contiguous one a split no worse. The notes carry CBC's bound and
// gap. By default it runs the three smallest workloads (CBC's root node
// alone takes seconds on the others); PLACESIM_LONG_TESTS=1 runs all
// eight.
func TestIPSharedWorkloads(t *testing.T) {
	miptest.Require(t)
	for _, tc := range fiddleCases {
		t.Run(tc.file, func(t *testing.T) {
			quick := map[string]bool{"LayerGraphs/bert24_inference.json": true, "LayerGraphs/bert24_training.json": true, "OperatorGraphs/bert_l-3_inference.json": true}
			if os.Getenv(longEnv) != "1" && !quick[tc.file] {
				t.Skipf("slow (CBC's root node takes seconds); %s=1 runs it", longEnv)
			}
			req := fiddleRequest(t, tc.file)
			opts := placers.Options{"time-limit": "1", "pipeline": "none"}
			run := func(f placers.Factory) *placers.Report {
				t.Helper()
				p, err := f(opts)
				if err != nil {
					t.Fatal(err)
				}
				_, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			contig, non := run(placers.Typed(tarnawski.NewIP)), run(placers.Typed(tarnawski.NewIPNonContig))
			opt := tc.optimum / 1e3
			t.Logf("contiguous IP %.6f ms %v", contig.MaxLoad*1e3, contig.Notes)
			t.Logf("non-contiguous IP %.6f ms %v", non.MaxLoad*1e3, non.Notes)
			if contig.MaxLoad > opt*(1+optTol) || contig.MaxLoad < opt*(1-1e-5) {
				t.Errorf("contiguous IP %.9g ms, DP optimum %.6f ms", contig.MaxLoad*1e3, tc.optimum)
			}
			if non.MaxLoad > opt*(1+optTol) {
				t.Errorf("non-contiguous IP %.9g ms above the contiguous optimum %.6f ms", non.MaxLoad*1e3, tc.optimum)
			}
		})
	}
}

// TestIPTimeLimit gives CBC 1 s on a contiguous IP it cannot prove in
// that time: it must stop, say so, and return its incumbent (the DP's
// split it started from).
func TestIPTimeLimit(t *testing.T) {
	miptest.Require(t)
	const file = "OperatorGraphs/bert_l-3_training.json"
	req := fiddleRequest(t, file)
	p, err := placers.Typed(tarnawski.NewIP)(placers.Options{"time-limit": "1", "gap": "0"})
	if err != nil {
		t.Fatal(err)
	}
	plan, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plan == nil || len(plan.Device) != len(req.Graph.Ops) {
		t.Fatal("no plan from a timed-out solve")
	}
	said := false
	for _, n := range rep.Notes {
		said = said || strings.Contains(n, "stopped at its time or node limit") || strings.Contains(n, "CBC failed")
	}
	if !said {
		t.Errorf("notes do not say the solve stopped: %v", rep.Notes)
	}
	if want := fiddleCases[5].optimum; rep.MaxLoad*1e3 > want*(1+optTol) {
		t.Errorf("incumbent %.6f ms worse than the warm start %.6f ms", rep.MaxLoad*1e3, want)
	}
	t.Log(rep.Notes)
}
