package links

import (
	"fmt"
	"math"
)

// RouteRefBytes is the message size routes are chosen for: a route
// minimises the uncontended time of a transfer of this many bytes, so a
// fat link wins over a thin one and, at equal bandwidth, fewer hops win.
const RouteRefBytes = 1 << 20

// Route is the sequence of directed links a transfer takes.
type Route []LinkID

// Route returns the fastest route from src to dst for a RouteRefBytes
// message (RouteTree's search; ties go to fewer hops, then to the path
// found first in link order, so routes are deterministic). Routes may
// pass through switches, NICs and hosts but never through another GPU.
// It lays the topology out anew (NewFabric) on every call: a caller
// asking many routes of one topology makes its Fabric once.
func (t *Topology) Route(src, dst EndpointID) (Route, error) {
	if err := t.checkEndpoint(dst); err != nil {
		return nil, fmt.Errorf("route %d->%d: %w", src, dst, err)
	}
	via, err := t.RouteTree(src)
	if err != nil {
		return nil, err
	}
	return t.RouteIn(via, src, dst)
}

func (t *Topology) checkEndpoint(e EndpointID) error {
	if n := len(t.Endpoints); int(e) < 0 || int(e) >= n {
		return fmt.Errorf("endpoint %d out of range [0, %d)", e, n)
	}
	return nil
}

// RouteTree returns the shortest-path tree of every route from src:
// via[e] is the last link of the fastest route from src to e, -1 when e
// is src or unreachable (Fabric.Tree on NewFabric(t): one search,
// O(E log V)). Routes never pass through a GPU other than src, so a GPU
// is a leaf of the tree. RouteIn reads a route out of it; Route(src, dst)
// is RouteIn(RouteTree(src), src, dst). A caller asking many trees of one
// topology makes its Fabric once and asks it.
func (t *Topology) RouteTree(src EndpointID) ([]LinkID, error) {
	if err := t.checkEndpoint(src); err != nil {
		return nil, fmt.Errorf("route from %d: %w", src, err)
	}
	f := NewFabric(t)
	v := make([]int32, f.Endpoints())
	f.Tree(src, v)
	via := make([]LinkID, len(v))
	for e, l := range v {
		via[e] = LinkID(l)
	}
	return via, nil
}

// RouteIn reads the route from src to dst out of src's RouteTree; it is
// ErrNoRoute when dst is unreachable.
func (t *Topology) RouteIn(via []LinkID, src, dst EndpointID) (Route, error) {
	if src == dst {
		return Route{}, nil
	}
	if int(dst) < 0 || int(dst) >= len(via) || via[dst] < 0 {
		return nil, fmt.Errorf("%w from %s to %s", ErrNoRoute, t.name(src), t.name(dst))
	}
	n := 0
	for e := dst; e != src; e = t.Links[via[e]].From {
		n++
	}
	r := make(Route, n)
	for e := dst; e != src; e = t.Links[via[e]].From {
		n--
		r[n] = via[e]
	}
	return r, nil
}

// TransferTime is the uncontended time to move b bytes along r: each hop
// adds its latency; a store-and-forward hop (out of a host endpoint) also
// adds b/bandwidth, while cut-through hops (out of a switch or NIC) overlap
// with the previous hop, so only the slowest link's b/bandwidth counts once
// per cut-through segment. It equals what the engine's link queues give
// when no other transfer is in the way.
func (t *Topology) TransferTime(r Route, b int64) float64 {
	var start, finish float64 // of the current hop
	for i, lid := range r {
		l := t.Links[lid]
		if i > 0 && !t.Endpoints[l.From].StoreAndForward() {
			// cut-through: head arrives after the previous hop's latency
			prev := t.Links[r[i-1]]
			s := start + prev.Latency
			f := math.Max(s+l.HopTime(b), finish+l.Latency)
			start, finish = s, f
			continue
		}
		start = finish
		finish = start + l.HopTime(b)
	}
	return finish
}
