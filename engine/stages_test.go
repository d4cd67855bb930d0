package engine_test

import (
	"errors"
	"fmt"
	"strings"
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

// TestFollowStagesErrors: a forward op without a stage, a stage out of
// range and an empty stage are errors naming the op or stage.
func TestFollowStagesErrors(t *testing.T) {
	g := transformerTraining(2, 3)
	full := func() []int {
		st := make([]int, len(g.Ops))
		for v, op := range g.Ops {
			st[v] = -1
			if op.Role == workloads.Forward {
				st[v] = 0
				if op.Layer == "layer1" || op.Layer == "head" {
					st[v] = 1
				}
			}
		}
		return st
	}
	cases := []struct {
		name string
		mod  func([]int) []int
		devs []int
		want string
	}{
		{"forward op in no stage", func(st []int) []int { st[0] = -1; return st }, []int{0, 1}, `forward op "embed/lookup" is in no stage`},
		{"stage out of range", func(st []int) []int { st[0] = 2; return st }, []int{0, 1}, "is in stage 2 (valid range: 0..1"},
		{"empty stage", func(st []int) []int { return st }, []int{0, 1, 2}, "stage 2 of 3 has no op"},
		{"wrong length", func(st []int) []int { return st[1:] }, []int{0, 1}, "stage assignments for"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := engine.FollowStages(g, tc.mod(full()), tc.devs)
			if !errors.Is(err, engine.ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalidPlan saying %q", err, tc.want)
			}
		})
	}
	dev, stages, err := engine.FollowStages(g, full(), []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	for v, op := range g.Ops {
		if op.Role != workloads.Forward && op.Layer == "layer1" && dev[v] != 2 {
			t.Errorf("%s of layer1 on device %d, want 2 with its forward ops", op.Name, dev[v])
		}
	}
	if len(stages) != 2 {
		t.Errorf("%d stages, want 2", len(stages))
	}
}
