package tarnawski_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers"
	"placesim/placers/tarnawski"
)

// optTol is the relative tolerance on the README's optimum (issue 6).
const optTol = 1e-6

func TestDPOptimum(t *testing.T) {
	for _, tc := range fiddleCases {
		t.Run(tc.file, func(t *testing.T) {
			req := fiddleRequest(t, tc.file)
			p, err := placers.Typed(tarnawski.NewDP)(placers.Options{"pipeline": "none"})
			if err != nil {
				t.Fatal(err)
			}
			plan, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got := rep.MaxLoad * 1e3
			t.Logf("max-load %.6f ms (README %.6f), %v", got, tc.optimum, rep.Notes)
			if !scalar.EqualWithinRel(got, tc.optimum, optTol) {
				t.Errorf("DP max-load %.9f ms, README optimum %.6f", got, tc.optimum)
			}
			if rep.Ideals != tc.paperIDs {
				t.Errorf("%d ideals, Table 1 has %d", rep.Ideals, tc.paperIDs)
			}
			if err := placers.CheckColocation(req.Graph, plan); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestDPL checks that the linearisation heuristic never beats the DP (its
// search space is a subset) and has |V|+1 ideals.
func TestDPL(t *testing.T) {
	for _, tc := range fiddleCases {
		t.Run(tc.file, func(t *testing.T) {
			req := fiddleRequest(t, tc.file)
			run := func(f placers.Factory) *placers.Report {
				p, err := f(placers.Options{"pipeline": "none"})
				if err != nil {
					t.Fatal(err)
				}
				_, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			dp, dpl := run(placers.Typed(tarnawski.NewDP)), run(placers.Typed(tarnawski.NewDPL))
			t.Logf("DP %.6f ms, DPL %.6f ms (%+.3f %%); %v", dp.MaxLoad*1e3, dpl.MaxLoad*1e3, 100*(dpl.MaxLoad/dp.MaxLoad-1), dpl.Notes)
			if dpl.MaxLoad < dp.MaxLoad*(1-optTol) {
				t.Errorf("DPL %.9g below the optimum %.9g", dpl.MaxLoad, dp.MaxLoad)
			}
		})
	}
}
