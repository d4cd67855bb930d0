package zoo_test

import (
	"fmt"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// Build a model's training step at operator granularity under the default
// framework profile (PyTorch: fused batch norm) and TensorFlow 1.x's
// op-by-op graph, and at layer granularity.
func ExampleBuild() {
	for _, spec := range []string{"zoo:resnet50?batch=32&training=true", "zoo:resnet50?batch=32&training=true&framework=tf1-graph",
		"zoo:resnet50?batch=32&training=true&granularity=layer"} {
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
	// zoo:resnet50?batch=32&training=true&framework=pytorch: 586 ops (179 forward, 246 backward, 161 update), 24.6 GFLOPs/sample
	// zoo:resnet50?batch=32&training=true&framework=tf1-graph: 2388 ops (1133 forward, 1094 backward, 161 update), 24.5 GFLOPs/sample
	// zoo:resnet50?batch=32&training=true&granularity=layer&framework=pytorch: 325 ops (74 forward, 90 backward, 161 update), 24.9 GFLOPs/sample
}
