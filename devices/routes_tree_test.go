package devices

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"placesim/links"
)

// tiedClusterYAML is a cluster file full of equal routes: every GPU on two
// PCIe switches of equal links, both switches on two equal network
// switches, and a node pair joined twice by links of one kind, so that
// every route between nodes is one of several of equal time and hops and
// the tie-breaking alone picks it.
func tiedClusterYAML() []byte {
	var b strings.Builder
	b.WriteString("name: ties\ndevices:\n")
	for n := 0; n < 3; n++ {
		for g := 0; g < 4; g++ {
			fmt.Fprintf(&b, "  - {name: n%d-g%d, kind: V100-16GB}\n", n, g)
		}
	}
	b.WriteString("endpoints:\n  - {name: core0, type: net-switch}\n  - {name: core1, type: net-switch}\n")
	for n := 0; n < 3; n++ {
		fmt.Fprintf(&b, "  - {name: n%d-sw0, type: pcie-switch}\n  - {name: n%d-sw1, type: pcie-switch}\n", n, n)
	}
	b.WriteString("links:\n")
	for n := 0; n < 3; n++ {
		for g := 0; g < 4; g++ {
			fmt.Fprintf(&b, "  - {between: [n%d-g%d, n%d-sw0], kind: pcie3, width: 16}\n", n, g, n)
			fmt.Fprintf(&b, "  - {between: [n%d-g%d, n%d-sw1], kind: pcie3, width: 16}\n", n, g, n)
		}
		for s := 0; s < 2; s++ {
			fmt.Fprintf(&b, "  - {between: [n%d-sw%d, core0], kind: ib-edr}\n", n, s)
			fmt.Fprintf(&b, "  - {between: [n%d-sw%d, core1], kind: ib-edr}\n", n, s)
		}
	}
	b.WriteString("  - {between: [n0-sw0, n1-sw1], kind: ib-edr}\n  - {between: [n0-sw0, n1-sw1], kind: ib-edr}\n")
	return []byte(b.String())
}

// routeTestClusters: every preset, systems of each fabric (a fat-tree's
// spines give equal routes), a cluster file of ties and one of the
// benchmark's DGX shape.
func routeTestClusters(t *testing.T) []*Cluster {
	var cs []*Cluster
	for _, p := range Presets() {
		c, err := NewPreset(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
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
		c, err := NewSystem(s)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	c, err := ParseCluster(tiedClusterYAML())
	if err != nil {
		t.Fatal(err)
	}
	cs = append(cs, c)
	return cs
}

// checkRouteTable holds a route table to links.Topology: every source's
// row is RouteTree's tree, link for link (the search itself is held to a
// reference Dijkstra by links' TestRouteTreeMatchesReference and
// TestRouteTreeMatchesReferenceSystems); every route is the one read out of
// it (RouteIn); the transfer time is Topology.TransferTime of that route,
// bit for bit; an adapter is crossed exactly when one of the route's
// links leaves or enters one.
func checkRouteTable(t *testing.T, name string, top *links.Topology, devs []Device) {
	t.Helper()
	rt := newRouteTable(top, devs)
	for i, d := range devs {
		want, err := top.RouteTree(d.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]links.LinkID, len(want))
		for e, l := range rt.row(i).via {
			got[e] = links.LinkID(l)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: tree of %s differs from RouteTree's", name, top.Endpoints[d.Endpoint].Name)
		}
		for j, e := range devs {
			wantR, err := top.RouteIn(want, d.Endpoint, e.Endpoint)
			if err != nil {
				if i != j && rt.route(i, j) != nil {
					t.Fatalf("%s: %d -> %d unreachable, yet routed", name, i, j)
				}
				continue
			}
			if i == j {
				continue
			}
			for k, b := range []int64{1, 1 << 20, 64 << 20} {
				// ask the time before and after the route is read out
				if k == 1 {
					if got := rt.route(i, j); !slices.Equal(got, wantR) {
						t.Fatalf("%s: route %d -> %d %v, RouteIn %v", name, i, j, got, wantR)
					}
				}
				if got, w := rt.transferTime(i, j, b), top.TransferTime(wantR, b); got != w {
					t.Fatalf("%s: transfer time %d -> %d of %d bytes %v, the route's %v", name, i, j, b, got, w)
				}
			}
			nic := false
			for _, lid := range wantR {
				l := top.Links[lid]
				nic = nic || top.Endpoints[l.From].Type == links.NIC || top.Endpoints[l.To].Type == links.NIC
			}
			if got := rt.crossesNIC(i, j); got != nic {
				t.Fatalf("%s: crossesNIC(%d, %d) = %v, the route says %v", name, i, j, got, nic)
			}
		}
	}
	checkNearest(t, name, rt, len(devs))
}

// checkNearest holds nearest to a scan of every candidate in order
// keeping strict improvements, from every source, over all devices, the
// devices in reverse and random subsets in random orders, for a small,
// a ring-sized and a large message.
func checkNearest(t *testing.T, name string, rt *routeTable, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 5))
	var lists [][]int
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	lists = append(lists, all, nil)
	rev := slices.Clone(all)
	slices.Reverse(rev)
	lists = append(lists, rev)
	for k := 0; k < 4; k++ {
		sub := slices.Clone(all)
		r.Shuffle(len(sub), func(i, j int) { sub[i], sub[j] = sub[j], sub[i] })
		lists = append(lists, sub[:r.IntN(n+1)])
	}
	for src := 0; src < n; src++ {
		for _, b := range []int64{1, 64 << 20, 1 << 34} {
			for _, cands := range lists {
				want, wantT := -1, math.Inf(1)
				for i, d := range cands {
					if t := rt.transferTime(src, d, b); t < wantT {
						want, wantT = i, t
					}
				}
				if got, gotT := rt.nearest(src, b, cands); got != want || gotT != wantT {
					t.Fatalf("%s: nearest from %d of %v (%d bytes): %d (%v), the scan's %d (%v)", name, src, cands, b, got, gotT, want, wantT)
				}
			}
		}
	}
}

// TestRouteTreeMatchesTopology: the route table's rows (links.Fabric's
// trees, made once per table) are links.RouteTree's trees, and its
// routes, transfer times, adapter crossings and nearest peers, read from
// the rows, are those of the routes RouteIn reads out of them, on the presets, systems, a cluster file of ties and random
// fabrics with many equal-distance ties.
func TestRouteTreeMatchesTopology(t *testing.T) {
	for _, c := range routeTestClusters(t) {
		checkRouteTable(t, c.Name, c.Topology, c.Devices)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		top := links.NewTopology()
		var ids []links.EndpointID
		var devs []Device
		kinds := []links.Kind{links.PCIe4, links.NVLink3, links.IBHDR}
		for i := 0; i < 60; i++ {
			typ := []links.EndpointType{links.GPU, links.PCIeSwitch, links.NIC, links.NetSwitch, links.CPU}[r.IntN(5)]
			id := top.MustEndpoint(fmt.Sprintf("e%d", i), typ)
			ids = append(ids, id)
			if typ == links.GPU || typ == links.CPU {
				devs = append(devs, Device{ID: len(devs), Endpoint: id})
			}
		}
		for i := 1; i < len(ids); i++ {
			for k := 0; k < 1+r.IntN(3); k++ {
				if err := top.Connect(ids[i], ids[r.IntN(i)], kinds[r.IntN(len(kinds))], 1+r.IntN(2)); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkRouteTable(t, fmt.Sprint("random seed ", seed), top, devs)
	}
}

// TestRouteTableConcurrent: goroutines asking one fresh cluster for
// routes, times, adapter crossings and nearest peers at once get what one
// asking alone gets (run with -race to check the table's locking).
func TestRouteTableConcurrent(t *testing.T) {
	fresh := func() *Cluster {
		c, err := NewSystem("dgx-h100:nodes=3,fabric=fat-tree,oversubscription=2")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	type answer struct {
		route []links.LinkID
		time  float64
		nic   bool
		near  int
	}
	ask := func(c *Cluster, i int) []answer {
		n := len(c.Devices)
		all := make([]int, n)
		for j := range all {
			all[j] = (j + i) % n
		}
		out := make([]answer, n)
		for j := range n {
			k, _ := c.Nearest(i, 64<<20, all[j:])
			out[j] = answer{c.Route(i, j), c.TransferTime(i, j, 1<<20), c.CrossesNIC(i, j), k}
		}
		return out
	}
	ref := fresh()
	c := fresh()
	n := len(c.Devices)
	got := make([][]answer, n)
	done := make(chan int)
	for i := range n {
		go func() {
			got[i] = ask(c, i)
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		want := ask(ref, i)
		for j := range want {
			if g, w := got[i][j], want[j]; !slices.Equal(g.route, w.route) || g.time != w.time || g.nic != w.nic || g.near != w.near {
				t.Fatalf("from %d to %d: concurrently %+v, alone %+v", i, j, g, w)
			}
		}
	}
}
