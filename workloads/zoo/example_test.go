package zoo_test

import (
	"fmt"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// Build a model's training step at operator granularity and at layer
// granularity.
func ExampleBuild() {
	for _, spec := range []string{"zoo:resnet50?batch=32&training=true", "zoo:resnet50?batch=32&training=true&granularity=layer"} {
		g, err := zoo.Build(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		s := workloads.ComputeStats(g)
		fmt.Printf("%s: %d ops (%d forward, %d backward, %d update), %.1f GFLOPs/sample\n",
			g.Name, s.Ops, s.Forward, s.Backward, s.Update, s.FLOPs/float64(g.Batch)/1e9)
	}
	// Output:
	// zoo:resnet50?batch=32&training=true: 2388 ops (1133 forward, 1094 backward, 161 update), 24.5 GFLOPs/sample
	// zoo:resnet50?batch=32&training=true&granularity=layer: 324 ops (74 forward, 89 backward, 161 update), 24.8 GFLOPs/sample
}
