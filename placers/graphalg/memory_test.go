package graphalg_test

import (
	"errors"
	"reflect"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers/graphalg"
	"placesim/workloads"
)

// TestOpMemories checks the memory model on an MLP training step by hand:
// each op is charged its parameters, and a forward output read by a
// backward op is charged once, to its last reader (the gradient of the
// producer itself, which comes last in the backward pass).
func TestOpMemories(t *testing.T) {
	fwd := workloads.MLP(8, []int{16, 32, 4})
	g, err := workloads.DeriveTraining(fwd)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := devices.NewPreset("4xV100-pcie")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	mem := graphalg.OpMemories(g, est)
	want := make([]int64, len(g.Ops))
	for i := range g.Ops {
		want[i] = g.Ops[i].ParamBytes
	}
	d := graphalg.NewDAG(g)
	for u := range g.Ops {
		if g.Ops[u].Role != workloads.Forward {
			continue
		}
		// the backward readers of a forward output; the last one (largest
		// ID: DeriveTraining adds gradients in reverse order) pays
		last := -1
		var size int64 = g.Ops[u].OutputBytes
		lo, hi := d.SuccRange(u)
		for j := lo; j < hi; j++ {
			v := d.SuccAt(j)
			if g.Ops[v].Role != workloads.Forward {
				last = max(last, v)
				size = max(size, d.BytesAt(d.DepOfSucc(j)))
			}
		}
		if last >= 0 {
			want[last] += size
		}
	}
	for i := range want {
		if mem[i] != want[i] {
			t.Errorf("%s: charged %d, want %d", g.Ops[i].Name, mem[i], want[i])
		}
	}
	// an inference graph keeps no activations: parameters only
	inf := graphalg.OpMemories(fwd, est)
	for i := range fwd.Ops {
		if inf[i] != fwd.Ops[i].ParamBytes {
			t.Errorf("inference %s: charged %d, want its parameters %d", fwd.Ops[i].Name, inf[i], fwd.Ops[i].ParamBytes)
		}
	}
	if r := graphalg.Reserve(g, est, 32<<30); r != 32<<30/10 {
		t.Errorf("reserve %d on 32 GiB, want a tenth", r)
	}
}

func TestCoarseExpand(t *testing.T) {
	// a chain a -> b -> c -> d; a and d share a colocation group; clusters
	// {a, b} and {c, d}: d is anchored by cluster 0, so cluster 1 is cut
	// into the runs {c} and {d}, and {d} joins {a, b}'s colocation group
	g := build(t, []string{"a", "b", "c", "d"}, []float64{1, 1, 1, 1},
		[][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}}, 1<<10)
	g.Ops[0].Colocation, g.Ops[3].Colocation = "ad", "ad"
	g.Ops[0].ParamBytes, g.Ops[3].ParamBytes = 100, 50
	c, _ := devices.NewPreset("4xV100-pcie")
	est, _ := devices.NewEstimates(g, c, devices.EstimateOptions{})
	tg, _ := graphalg.NewTargets(g, c)
	co, err := graphalg.NewCoarse(g, graphalg.NewDAG(g), est, tg, [][]int{{0, 1}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 1}, {2}, {3}}; !reflect.DeepEqual(co.Members, want) {
		t.Fatalf("coarse ops %v, want %v", co.Members, want)
	}
	// the group's memory (a's and d's parameters) is charged once, to {a, b}
	var got []int64
	for i := range co.Graph.Ops {
		got = append(got, co.Graph.Ops[i].ParamBytes)
	}
	if want := []int64{150, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("coarse charges %v, want %v", got, want)
	}
	if g0, g2 := co.Graph.Ops[0].Colocation, co.Graph.Ops[2].Colocation; g0 == "" || g0 != g2 || co.Graph.Ops[1].Colocation != "" {
		t.Fatalf("coarse colocation %q %q %q, want {a,b} with {d} only", g0, co.Graph.Ops[1].Colocation, g2)
	}
	if len(co.Graph.Edges) != 2 || co.Graph.Edges[0].Bytes != 1<<10 {
		t.Fatalf("coarse edges %+v", co.Graph.Edges)
	}
	fine, err := co.Expand(&engine.Plan{Device: []int{2, 1, 2}, Order: [][]int{nil, {1}, {0, 2}, nil}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 2, 1, 2}; !reflect.DeepEqual(fine.Device, want) {
		t.Fatalf("expanded devices %v, want %v", fine.Device, want)
	}
	if fine.Order != nil || len(fine.Priority) != 4 {
		t.Fatalf("expanded plan: order %v priority %v, want priorities only", fine.Order, fine.Priority)
	}
	// a coarse plan that splits the group is refused
	if _, err := co.Expand(&engine.Plan{Device: []int{2, 1, 1}}); !errors.Is(err, graphalg.ErrSplitUnit) {
		t.Fatalf("split group: %v, want ErrSplitUnit", err)
	}
}
