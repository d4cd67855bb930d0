// Command benchgraphs writes the graphs that scripts/bench-engine-ratio.sh
// plays through two engines (this tree's and an older commit's): the
// training steps of BenchmarkSimulateTransformer (the Celeritas
// Transformer at op granularity as TensorFlow 1 runs it, 12 and 20
// layers: 21,248 and 35,384 ops) in placesim's native format, every op
// carrying its time on the benchmark's device (a V100 of 4xV100-pcie) as a
// measured time, so that an engine with another cost model plays the very
// same step.
//
// Usage: go run ./engine/internal/benchgraphs DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"placesim/devices"
	"placesim/workloads/native"
	"placesim/workloads/zoo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchgraphs DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benchgraphs:", err)
		os.Exit(1)
	}
}

// write builds the graphs and writes them into dir.
func write(dir string) error {
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		return err
	}
	kind := &c.Devices[0].Kind
	for _, layers := range []int{12, 20} {
		spec := fmt.Sprintf("transformer?layers=%d&heads=16&hidden=2048&batch=64&training=true&framework=tf1-graph", layers)
		g, err := zoo.Build(spec)
		if err != nil {
			return fmt.Errorf("build %s: %w", spec, err)
		}
		for i := range g.Ops {
			op := &g.Ops[i]
			t, err := devices.OpTime(op, kind)
			if err != nil {
				return fmt.Errorf("%s: op %q: %w", spec, op.Name, err)
			}
			op.Measured = map[string]float64{"*": t}
			// fields an older reader does not know; the times above hold
			// what they decided
			op.Precision, op.GradBytes = 0, 0
		}
		g.Precision, g.Framework = "", ""
		path := filepath.Join(dir, fmt.Sprintf("transformer-layers%02d.json", layers))
		if err := native.WriteFile(path, g); err != nil {
			return err
		}
	}
	return nil
}
