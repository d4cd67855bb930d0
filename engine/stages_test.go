package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"placesim/engine"
	"placesim/workloads"
)

// TestEvenStages: forward layers are dealt in equal contiguous shares,
// gradients and updates follow their layer, and every op is in one stage.
func TestEvenStages(t *testing.T) {
	cases := []struct {
		layers, p int
		want      []int // forward layers per stage
	}{
		{24, 4, []int{6, 6, 6, 6}},
		{7, 3, []int{3, 2, 2}},
		{5, 5, []int{1, 1, 1, 1, 1}},
		{10, 1, []int{10}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d layers on %d", tc.layers, tc.p), func(t *testing.T) {
			g := transformerTraining(tc.layers-2, 3) // embed and head are layers too
			devs := make([]int, tc.p)
			for i := range devs {
				devs[i] = tc.p - 1 - i // any devices
			}
			dev, stages, err := engine.EvenStages(g, devs)
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]int, len(g.Ops))
			for s, ops := range stages {
				layers := map[string]bool{}
				for _, v := range ops {
					seen[v]++
					if dev[v] != devs[s] {
						t.Errorf("op %q of stage %d on device %d, want %d", g.Ops[v].Name, s, dev[v], devs[s])
					}
					if g.Ops[v].Role == workloads.Forward {
						layers[g.Ops[v].Layer] = true
					}
				}
				if len(layers) != tc.want[s] {
					t.Errorf("stage %d has %d forward layers, want %d", s, len(layers), tc.want[s])
				}
			}
			for v, n := range seen {
				if n != 1 {
					t.Errorf("op %q is in %d stages", g.Ops[v].Name, n)
				}
			}
			// a layer's ops, gradients and updates share a stage
			stageOfLayer := map[string]int{}
			for v := range g.Ops {
				l := g.Ops[v].Layer
				if s, ok := stageOfLayer[l]; ok && s != dev[v] {
					t.Errorf("layer %s is on devices %d and %d", l, s, dev[v])
				}
				stageOfLayer[l] = dev[v]
			}
		})
	}
	t.Run("too few layers", func(t *testing.T) {
		g := transformerTraining(1, 3)
		_, _, err := engine.EvenStages(g, []int{0, 1, 2, 3})
		if !errors.Is(err, engine.ErrInvalidPlan) {
			t.Errorf("3 layers on 4 stages: error %v, want ErrInvalidPlan", err)
		}
	})
}
