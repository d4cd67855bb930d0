package links_test

import (
	"testing"

	"placesim/devices"
	"placesim/links"
)

// TestRouteTreeMatchesReferenceSystems: on every preset cluster and on
// systems of each fabric (a fat-tree's spines give equal routes),
// RouteTree and Fabric.Tree give every endpoint the reference Dijkstra's
// tree. An external test: devices builds these topologies and imports
// links, so links' own tests cannot name it.
func TestRouteTreeMatchesReferenceSystems(t *testing.T) {
	for _, p := range devices.Presets() {
		c, err := devices.NewPreset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		links.CheckAgainstReference(t, p.Name, c.Topology)
	}
	for _, s := range []string{
		"dgx-h100:nodes=8,fabric=fat-tree,oversubscription=4",
		"dgx-h100:nodes=6,fabric=fat-tree,leaf=8,oversubscription=2",
		"system:nodes=4,gpus-per-node=4,adapters=2,fabric=fat-tree,leaf=2",
		"dgx-h100:nodes=3,fabric=single",
		"dgx-h100:nodes=4",
		"mi300x:nodes=2",
		"gb200-nvl72:racks=1",
	} {
		c, err := devices.NewSystem(s)
		if err != nil {
			t.Fatal(err)
		}
		links.CheckAgainstReference(t, s, c.Topology)
	}
}
