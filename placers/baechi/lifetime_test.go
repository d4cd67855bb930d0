package baechi_test

import (
	"errors"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers"
	"placesim/placers/baechi"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// alternating is a training chain f0 -> b1 -> f2 -> b3 ... of n ops whose
// forward ops' outputs (out bytes) are read by the backward op after them:
// each is an activation kept for the backward pass, which the static book
// charges for the whole step, but only one is ever alive at a time.
func alternating(t *testing.T, n int, out, params int64) *workloads.Graph {
	t.Helper()
	g := workloads.Chain(n, []float64{1e-3}, out)
	g.Training = true
	for i := range g.Ops {
		g.Ops[i].Role = workloads.Forward
		if i%2 == 1 {
			g.Ops[i].Role = workloads.Backward
		}
		g.Ops[i].ParamBytes = params
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

var lifetimePlacers = []struct {
	name string
	f    placers.Factory
}{{"m-etf", placers.Typed(baechi.NewMETF)}, {"m-sct", placers.Typed(baechi.NewMSCT)}, {"m-topo", placers.Typed(baechi.NewMTopo)}}

func TestLifetimeFitsWhereStaticSumDoesNot(t *testing.T) {
	const capacity = 64 << 20
	g := alternating(t, 80, 4<<20, 0)
	c := twoGPUs(t, capacity)
	c.Devices[1].Memory = capacity
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the premise: the static sum is above what the book lets the two
	// devices hold, so the old (static) rule refuses the graph
	var static int64
	for _, m := range graphalg.OpMemories(g, est) {
		static += m
	}
	budget := 2 * (capacity - graphalg.Reserve(g, est, capacity))
	if static <= budget {
		t.Fatalf("static sum %d fits the budget %d: the test needs a graph it does not", static, budget)
	}
	for _, tc := range lifetimePlacers {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := placeOn(t, tc.f, nil, g, c)
			if err != nil {
				t.Fatalf("refused a graph whose lifetime peak fits (static sum %d MiB, budget %d MiB): %v", static>>20, budget>>20, err)
			}
			res, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.OOM != nil {
				t.Fatalf("plan runs out of memory: %+v", res.OOM)
			}
		})
	}
}

func TestLifetimeStillRefusesWhatDoesNotFit(t *testing.T) {
	// parameters are resident all step: 80 x 4 MiB cannot fit 2 x 64 MiB
	const capacity = 64 << 20
	g := alternating(t, 80, 64<<10, 4<<20)
	c := twoGPUs(t, capacity)
	c.Devices[1].Memory = capacity
	for _, tc := range lifetimePlacers {
		t.Run(tc.name, func(t *testing.T) {
			_, err := placeOn(t, tc.f, nil, g, c)
			if !errors.Is(err, placers.ErrDoesNotFit) {
				t.Fatalf("err = %v, want ErrDoesNotFit", err)
			}
			for _, want := range []string{"needs", "by lifetime", "GiB", "limit"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}
