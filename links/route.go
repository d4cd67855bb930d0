package links

import (
	"container/heap"
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
// message (Dijkstra; ties go to the path found first in link-ID order, so
// routes are deterministic). Routes may pass through switches, NICs and
// hosts but never through another GPU.
func (t *Topology) Route(src, dst EndpointID) (Route, error) {
	n := len(t.Endpoints)
	if int(src) < 0 || int(src) >= n || int(dst) < 0 || int(dst) >= n {
		return nil, fmt.Errorf("route %d->%d: endpoint out of range [0, %d)", src, dst, n)
	}
	if src == dst {
		return Route{}, nil
	}
	dist := make([]float64, n)
	hops := make([]int, n)
	via := make([]LinkID, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		via[i] = -1
	}
	dist[src] = 0
	pq := &distHeap{{src, 0, 0}}
	for pq.Len() > 0 {
		cur := heap.Pop(pq).(distItem)
		if cur.d > dist[cur.e] || (cur.d == dist[cur.e] && cur.h > hops[cur.e]) {
			continue
		}
		if cur.e != src && cur.e != dst && t.Endpoints[cur.e].Type == GPU {
			continue // no routing through another accelerator
		}
		for _, lid := range t.out[cur.e] {
			l := t.Links[lid]
			nd := cur.d + l.HopTime(RouteRefBytes)
			nh := cur.h + 1
			if nd < dist[l.To] || (nd == dist[l.To] && nh < hops[l.To]) {
				dist[l.To], hops[l.To], via[l.To] = nd, nh, lid
				heap.Push(pq, distItem{l.To, nd, nh})
			}
		}
	}
	if via[dst] < 0 {
		return nil, fmt.Errorf("%w from %s to %s", ErrNoRoute, t.Endpoints[src].Name, t.Endpoints[dst].Name)
	}
	var r Route
	for e := dst; e != src; e = t.Links[via[e]].From {
		r = append(r, via[e])
	}
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
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

type distItem struct {
	e EndpointID
	d float64
	h int
}

type distHeap []distItem

func (h distHeap) Len() int { return len(h) }
func (h distHeap) Less(i, j int) bool {
	if h[i].d != h[j].d {
		return h[i].d < h[j].d
	}
	if h[i].h != h[j].h {
		return h[i].h < h[j].h
	}
	return h[i].e < h[j].e
}
func (h distHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)   { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
