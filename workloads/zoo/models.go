package zoo

import (
	"fmt"

	"placesim/workloads"
)

// models is the one list of zoo entries.
func models() []Model {
	return []Model{
		{Name: "mlp", Description: "multi-layer perceptron (layers=, hidden=, input=, classes=)", DefaultBatch: 128, Build: buildMLP},
	}
}

func buildMLP(p *Params) (*workloads.Graph, error) {
	layers, err := p.Int("layers", 4, 1, 1000)
	if err != nil {
		return nil, err
	}
	hidden, err := p.Int("hidden", 4096, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	in, err := p.Int("input", 1024, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	classes, err := p.Int("classes", 1000, 1, 1<<20)
	if err != nil {
		return nil, err
	}
	widths := []int{in}
	for i := 0; i < layers-1; i++ {
		widths = append(widths, hidden)
	}
	widths = append(widths, classes)
	g := workloads.MLP(p.Batch, widths)
	if p.Granularity == Layer {
		return nil, fmt.Errorf("granularity=layer is not available for mlp (its layers are 3 ops)")
	}
	return g, nil
}
