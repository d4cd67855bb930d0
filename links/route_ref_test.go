package links

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"placesim/internal/heap"
)

// refItem is an item of referenceRouteTree's queue.
type refItem struct {
	e EndpointID
	d float64
	h int
}

// refItemBefore orders the reference's items by (distance, hops,
// endpoint).
func refItemBefore(a, b *refItem) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if a.h != b.h {
		return a.h < b.h
	}
	return a.e < b.e
}

// referenceRouteTree is the plain Dijkstra Fabric.Tree must agree with,
// tie for tie: a binary heap (the project's generic one) of (distance,
// hops, endpoint) items, read off the Topology itself, each link's
// weight its HopTime(RouteRefBytes), a shorter distance or as short in
// fewer hops taking the link, no route through a GPU other than src. It
// is the search RouteTree ran before Fabric, kept for the tests only.
func (t *Topology) referenceRouteTree(src EndpointID) []LinkID {
	n := len(t.Endpoints)
	dist := make([]float64, n)
	hops := make([]int, n)
	via := make([]LinkID, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		via[i] = -1
	}
	dist[src] = 0
	pq := heap.New(refItemBefore)
	pq.Push(refItem{src, 0, 0})
	for pq.Len() > 0 {
		cur := pq.Pop()
		if cur.d > dist[cur.e] || (cur.d == dist[cur.e] && cur.h > hops[cur.e]) {
			continue
		}
		if cur.e != src && t.Endpoints[cur.e].Type == GPU {
			continue
		}
		for _, lid := range t.out[cur.e] {
			l := t.Links[lid]
			nd := cur.d + l.HopTime(RouteRefBytes)
			nh := cur.h + 1
			if nd < dist[l.To] || (nd == dist[l.To] && nh < hops[l.To]) {
				dist[l.To], hops[l.To], via[l.To] = nd, nh, lid
				pq.Push(refItem{l.To, nd, nh})
			}
		}
	}
	via[src] = -1
	return via
}

// checkAgainstReference holds RouteTree (Fabric.Tree), and one Fabric
// asked for every source in turn (its scratch reused), to the reference
// Dijkstra from every endpoint.
func checkAgainstReference(t *testing.T, name string, top *Topology) {
	t.Helper()
	f := NewFabric(top)
	v := make([]int32, f.Endpoints())
	for e := range top.Endpoints {
		src := EndpointID(e)
		want := top.referenceRouteTree(src)
		got, err := top.RouteTree(src)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: source %s: RouteTree %v, the reference's %v", name, top.Endpoints[e].Name, got, want)
		}
		f.Tree(src, v)
		for i, l := range v {
			if LinkID(l) != want[i] {
				t.Fatalf("%s: source %s: the fabric's tree reaches %s by link %d, the reference by %d",
					name, top.Endpoints[e].Name, top.Endpoints[i].Name, l, want[i])
			}
		}
	}
}

// randomTopology is a random fabric of GPUs, hosts, switches and
// adapters, each endpoint joined to one to three earlier ones by links
// of three kinds and two widths: many equal-distance ties.
func randomTopology(t *testing.T, seed uint64, n int) *Topology {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	top := NewTopology()
	var ids []EndpointID
	kinds := []Kind{PCIe4, NVLink3, IBHDR}
	types := []EndpointType{GPU, PCIeSwitch, NIC, NetSwitch, CPU, NVSwitch}
	for i := 0; i < n; i++ {
		ids = append(ids, top.MustEndpoint(fmt.Sprintf("e%d", i), types[r.IntN(len(types))]))
	}
	for i := 1; i < len(ids); i++ {
		for k := 0; k < 1+r.IntN(3); k++ {
			if err := top.Connect(ids[i], ids[r.IntN(i)], kinds[r.IntN(len(kinds))], 1+r.IntN(2)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return top
}

// tiedTopology is a fabric of equal routes: three nodes of four GPUs,
// each GPU on two PCIe switches by equal links, each switch on two
// network switches, one node pair joined twice by links of one kind, so
// that every route between nodes is one of several of equal time and
// hops and the tie-breaking alone picks it.
func tiedTopology(t *testing.T) *Topology {
	t.Helper()
	top := NewTopology()
	core := []EndpointID{top.MustEndpoint("core0", NetSwitch), top.MustEndpoint("core1", NetSwitch)}
	var sw [3][2]EndpointID
	for n := range 3 {
		for s := range 2 {
			sw[n][s] = top.MustEndpoint(fmt.Sprintf("n%d-sw%d", n, s), PCIeSwitch)
		}
	}
	connect := func(a, b EndpointID, k Kind, w int) {
		if err := top.Connect(a, b, k, w); err != nil {
			t.Fatal(err)
		}
	}
	for n := range 3 {
		for g := range 4 {
			gpu := top.MustEndpoint(fmt.Sprintf("n%d-g%d", n, g), GPU)
			connect(gpu, sw[n][0], PCIe3, 1)
			connect(gpu, sw[n][1], PCIe3, 1)
		}
		for s := range 2 {
			connect(sw[n][s], core[0], IBEDR, 1)
			connect(sw[n][s], core[1], IBEDR, 1)
		}
	}
	connect(sw[0][0], sw[1][1], IBEDR, 1)
	connect(sw[0][0], sw[1][1], IBEDR, 1)
	return top
}

// TestRouteTreeMatchesReference: RouteTree and Fabric.Tree (the bucketed
// search) give every source the reference Dijkstra's tree, link for
// link, on a fabric of ties and on random fabrics with many
// equal-distance ties. TestRouteTreeMatchesReferenceSystems does the
// presets and systems of devices.
func TestRouteTreeMatchesReference(t *testing.T) {
	checkAgainstReference(t, "ties", tiedTopology(t))
	for seed := uint64(1); seed <= 8; seed++ {
		checkAgainstReference(t, fmt.Sprint("random seed ", seed), randomTopology(t, seed, 60))
	}
}
