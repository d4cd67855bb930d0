package tarnawski_test

import (
	"context"
	"fmt"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/tarnawski"
	"placesim/workloads"
)

// ExampleNewDP splits a chain of six 1 ms layers over two accelerators:
// the DP's optimal contiguous split puts three layers on each, and its
// max-load is their compute plus the one transfer each device pays.
func ExampleNewDP() {
	g := workloads.NewGraph("chain", 1)
	for i := 0; i < 6; i++ {
		g.AddOp(workloads.Op{Name: fmt.Sprintf("layer%d", i), Measured: map[string]float64{workloads.MeasuredAny: 1e-3}})
		if i > 0 {
			g.AddEdge(i-1, i, 15_750_000) // 1 ms on PCIe 3.0
		}
	}
	c, _ := devices.AccCPU("2acc", 2, 0, 16<<30)
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	p, _ := placers.Typed(tarnawski.NewDP)(placers.Options{"pipeline": "none"})
	plan, rep, err := p.(placers.Reporter).PlaceReport(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("devices:", plan.Device)
	fmt.Printf("max-load: %.3f ms per sample\n", rep.MaxLoad*1e3)
	// Output:
	// devices: [0 0 0 1 1 1]
	// max-load: 4.000 ms per sample
}
