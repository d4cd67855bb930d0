package devices

import (
	"sync"

	"placesim/links"
)

// routeTable holds a cluster's routes, computed per source device on first
// use: one Dijkstra run (links.Topology.RouteTree) gives every route from
// that device. A simulation that sends from k devices costs k runs, not
// the n^2 of computing every pair up front.
type routeTable struct {
	topo  *links.Topology
	devs  []Device
	trees []routeRow
}

type routeRow struct {
	once   sync.Once
	via    []links.LinkID
	routes []links.Route
	err    error
}

func newRouteTable(t *links.Topology, devs []Device) *routeTable {
	return &routeTable{topo: t, devs: devs, trees: make([]routeRow, len(devs))}
}

// row returns the routes from device src to every device (nil for itself
// and for a device it cannot reach).
func (rt *routeTable) row(src int) ([]links.Route, error) {
	r := &rt.trees[src]
	r.once.Do(func() {
		from := rt.devs[src].Endpoint
		r.via, r.err = rt.topo.RouteTree(from)
		if r.err != nil {
			return
		}
		// every route of the row in one backing array
		hops := 0
		count := make([]int32, len(rt.devs)) // each route's links
		for j, d := range rt.devs {
			if j != src {
				count[j] = int32(rt.topo.Hops(r.via, from, d.Endpoint))
				hops += int(count[j])
			}
		}
		backing := make([]links.LinkID, hops)
		r.routes = make([]links.Route, len(rt.devs))
		for j, d := range rt.devs {
			if j == src {
				continue
			}
			if k := int(count[j]); k > 0 {
				route := links.Route(backing[:k:k])
				backing = backing[k:]
				rt.topo.FillRoute(r.via, d.Endpoint, route)
				r.routes[j] = route
			}
		}
	})
	return r.routes, r.err
}

// joinedByOneFabric reports whether one connected group of non-GPU
// endpoints (switches, NICs, hosts) touches every device: then every
// device reaches every other through it, and no route needs computing to
// know it. It is linear in the topology (union-find over its links).
func (rt *routeTable) joinedByOneFabric() bool {
	t := rt.topo
	n := len(t.Endpoints)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	transit := func(e links.EndpointID) bool { return t.Endpoints[e].Type != links.GPU }
	for _, l := range t.Links {
		if transit(l.From) && transit(l.To) {
			if a, b := find(int(l.From)), find(int(l.To)); a != b {
				parent[a] = b
			}
		}
	}
	// the groups each device touches: its own (a host is transit) and
	// those of its transit neighbours
	touches := make([]map[int]bool, len(rt.devs))
	count := map[int]int{}
	for i, d := range rt.devs {
		touches[i] = map[int]bool{}
		if transit(d.Endpoint) {
			touches[i][find(int(d.Endpoint))] = true
		}
		for _, lid := range t.Out(d.Endpoint) {
			if to := t.Links[lid].To; transit(to) {
				touches[i][find(int(to))] = true
			}
		}
		for g := range touches[i] {
			count[g]++
		}
	}
	for _, c := range count {
		if c == len(rt.devs) {
			return true
		}
	}
	return len(rt.devs) == 1
}
