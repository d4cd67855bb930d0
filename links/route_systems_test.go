package links_test

import (
	"fmt"
	"testing"

	"placesim/devices"
	"placesim/links"
)

// TestRouteTreeMatchesReferenceSystems: on every preset cluster and on
// every system family with each fabric (single switch, rails, a
// fat-tree, one oversubscribed) and on fat-trees whose spines give equal
// routes, RouteTree and Fabric.Tree give every endpoint the reference
// Dijkstra's tree. An external test: devices builds these topologies and
// imports links, so links' own tests cannot name it.
func TestRouteTreeMatchesReferenceSystems(t *testing.T) {
	for _, p := range devices.Presets() {
		c, err := devices.NewPreset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		links.CheckAgainstReference(t, p.Name, c.Topology)
	}
	// fat-trees of several leaves under spines
	specs := []string{"dgx-h100:nodes=6,fabric=fat-tree,leaf=8,oversubscription=2",
		"system:nodes=4,gpus-per-node=4,adapters=2,fabric=fat-tree,leaf=2"}
	for _, f := range devices.SystemFamilies() {
		for _, fabric := range []string{"single", "rail", "fat-tree", "fat-tree,oversubscription=4"} {
			specs = append(specs, fmt.Sprintf("%s:%s=4,fabric=%s", f.Name, f.Unit, fabric))
		}
	}
	for _, spec := range specs {
		c, err := devices.NewSystem(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		links.CheckAgainstReference(t, spec, c.Topology)
	}
}

// BenchmarkFabricTree times the route search on a 1,024-GPU DGX H100
// cluster (a fat-tree): one shortest-path tree from each GPU in turn, as
// a data-parallel step's route table asks them.
func BenchmarkFabricTree(b *testing.B) {
	c, err := devices.NewSystem("dgx-h100:nodes=128,fabric=fat-tree")
	if err != nil {
		b.Fatal(err)
	}
	f := links.NewFabric(c.Topology)
	via := make([]int32, f.Endpoints())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Tree(c.Devices[i%len(c.Devices)].Endpoint, via)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trees/s")
}
