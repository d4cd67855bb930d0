package engine_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// TestRepeatedEdgesAreOneDependency: several edges between two ops are one
// dependency, of the largest edge's bytes. A step of a graph with repeated
// edges (on one device and across devices, the larger first or last) plays
// exactly as the graph with each pair's first edge carrying the largest
// bytes, with and without a trace.
func TestRepeatedEdgesAreOneDependency(t *testing.T) {
	t.Parallel()
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	base := workloads.RandomLayered(3000, 32, 7)
	r := rand.New(rand.NewPCG(7, 9))
	rep := workloads.NewGraph("repeats", base.Batch)
	rep.Ops = append(rep.Ops, base.Ops...)
	rep.Edges = append(rep.Edges, base.Edges...)
	for _, e := range base.Edges {
		if r.IntN(3) == 0 { // a third of the pairs again, smaller or larger
			rep.AddEdge(e.From, e.To, e.Bytes/2+int64(r.IntN(int(e.Bytes))))
		}
	}
	// the same pairs once each, in the order of their first edge, with the
	// largest bytes
	type pair struct{ from, to int }
	first := map[pair]int{}
	one := workloads.NewGraph("once", base.Batch)
	one.Ops = append(one.Ops, base.Ops...)
	for _, e := range rep.Edges {
		k := pair{e.From, e.To}
		if i, ok := first[k]; ok {
			one.Edges[i].Bytes = max(one.Edges[i].Bytes, e.Bytes)
			continue
		}
		first[k] = len(one.Edges)
		one.Edges = append(one.Edges, e)
	}
	if len(one.Edges) == len(rep.Edges) {
		t.Fatal("no repeated edge")
	}
	// the rule is workloads.Graph.UniquePreds': the same dependencies with
	// the same bytes (wire's on-the-fly rule for a step, written out for
	// speed, is pinned to it here)
	deps, oneDeps := rep.UniquePreds(), one.UniquePreds()
	if !reflect.DeepEqual(deps, oneDeps) {
		t.Fatal("the graph without repeats is not the one UniquePreds gives")
	}
	for _, g := range []*workloads.Graph{rep, one} {
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	plan := &engine.Plan{Device: make([]int, len(base.Ops))}
	for i := range plan.Device {
		plan.Device[i] = (i / 3) % 4 // some edges local, most remote
	}
	for _, trace := range []bool{false, true} {
		want, err := engine.Simulate(one, c, plan, engine.Options{Trace: trace})
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.Simulate(rep, c, plan, engine.Options{Trace: trace})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trace=%v: repeated edges play differently: step %g s, %d transfers, %d bytes; once: %g s, %d transfers, %d bytes",
				trace, got.StepTime, got.TransferCount, got.BytesMoved, want.StepTime, want.TransferCount, want.BytesMoved)
		}
	}
}
