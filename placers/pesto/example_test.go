package pesto_test

import (
	"context"
	"fmt"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/pesto"
	"placesim/workloads/zoo"
)

// The Expert placement of a 4-layer RNNLM on the Pesto testbed: the
// embedding and the first two LSTM layers on gpu0, the last two and the
// softmax on gpu1.
func ExampleNewExpert() {
	g, _ := zoo.Build("zoo:rnnlm?layers=4&hidden=256&seq=5&vocab=1000&batch=16&training=true")
	c, _ := devices.NewPreset("2xV100-nvlink+cpu")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	p, _ := placers.Typed(pesto.NewExpert)(nil)
	plan, err := p.Place(context.Background(), &placers.Request{Graph: g, Cluster: c, Estimates: est})
	if err != nil {
		fmt.Println(err)
		return
	}
	seen := map[string]bool{}
	for i, op := range g.Ops {
		if op.Layer != "" && !seen[op.Layer] {
			seen[op.Layer] = true
			fmt.Printf("%-9s %s\n", op.Layer, c.Devices[plan.Device[i]].Name)
		}
	}
	// Output:
	// input     gpu0
	// embedding gpu0
	// lstm_0    gpu0
	// lstm_1    gpu0
	// lstm_2    gpu1
	// lstm_3    gpu1
	// softmax   gpu1
}
