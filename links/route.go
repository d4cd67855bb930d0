package links

import (
	"fmt"
	"math"
	"sync"
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

// routeScratch is what one RouteTree run works in, kept for the next
// (a cluster of a thousand GPUs runs a thousand).
type routeScratch struct {
	dist []float64
	hops []int
	pq   distHeap
}

var routeWork = sync.Pool{New: func() any { return &routeScratch{} }}

// RouteTree returns the shortest-path tree of every route from src (one
// Dijkstra run, O(E log V)): via[e] is the last link of the fastest route
// from src to e, -1 when e is src or unreachable. Routes never pass
// through a GPU other than src, so a GPU is a leaf of the tree. RouteIn
// reads a route out of it; Route(src, dst) is RouteIn(RouteTree(src), src,
// dst).
func (t *Topology) RouteTree(src EndpointID) ([]LinkID, error) {
	n := len(t.Endpoints)
	if err := t.checkEndpoint(src); err != nil {
		return nil, fmt.Errorf("route from %d: %w", src, err)
	}
	w := routeWork.Get().(*routeScratch)
	defer routeWork.Put(w)
	if cap(w.dist) < n {
		w.dist, w.hops = make([]float64, n), make([]int, n)
	}
	dist, hops := w.dist[:n], w.hops[:n]
	via := make([]LinkID, n)
	for i := range dist {
		dist[i] = math.Inf(1)
		hops[i] = 0
		via[i] = -1
	}
	dist[src] = 0
	pq := &w.pq
	pq.items = pq.items[:0]
	pq.Push(distItem{src, 0, 0})
	for pq.Len() > 0 {
		cur := pq.Pop()
		if cur.d > dist[cur.e] || (cur.d == dist[cur.e] && cur.h > hops[cur.e]) {
			continue
		}
		if cur.e != src && t.Endpoints[cur.e].Type == GPU {
			continue // no routing through another accelerator
		}
		for _, lid := range t.out[cur.e] {
			l := t.Links[lid]
			nd := cur.d + l.HopTime(RouteRefBytes)
			nh := cur.h + 1
			if nd < dist[l.To] || (nd == dist[l.To] && nh < hops[l.To]) {
				dist[l.To], hops[l.To], via[l.To] = nd, nh, lid
				if t.Endpoints[l.To].Type != GPU {
					// a GPU is a leaf: popped, it would relax nothing
					pq.Push(distItem{l.To, nd, nh})
				}
			}
		}
	}
	via[src] = -1
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

// Hops is the number of links on the route from src to dst in src's
// RouteTree: 0 when dst is src or unreachable.
func (t *Topology) Hops(via []LinkID, src, dst EndpointID) int {
	if src == dst || int(dst) < 0 || int(dst) >= len(via) || via[dst] < 0 {
		return 0
	}
	n := 0
	for e := dst; e != src; e = t.Links[via[e]].From {
		n++
	}
	return n
}

// FillRoute writes the route to dst read from a RouteTree into r, whose
// length must be its Hops.
func (t *Topology) FillRoute(via []LinkID, dst EndpointID, r Route) {
	e := dst
	for i := len(r) - 1; i >= 0; i-- {
		r[i] = via[e]
		e = t.Links[via[e]].From
	}
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

// distHeap is RouteTree's priority queue: internal/heap's binary heap
// written out for distItem with distBefore inlined (the generic one calls
// its order through a function value: two thirds of a thousand-GPU
// cluster's routing time). distBefore is a total order on the items a run
// pushes (an endpoint is pushed again only at a smaller distance or fewer
// hops), so any binary heap pops them in the same order;
// TestRouteTreeHeap holds it to the generic heap.
type distHeap struct{ items []distItem }

func (h *distHeap) Len() int { return len(h.items) }

// Push adds x: the hole moves up from the end, x is written once.
func (h *distHeap) Push(x distItem) {
	h.items = append(h.items, x)
	items := h.items
	i := len(items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !distBefore(&x, &items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = x
}

// Pop removes and returns the least item: the last one fills the hole
// left at the root, moving down.
func (h *distHeap) Pop() distItem {
	items := h.items
	top := items[0]
	n := len(items) - 1
	x := items[n]
	items = items[:n]
	h.items = items
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && distBefore(&items[r], &items[c]) {
			c = r
		}
		if !distBefore(&items[c], &x) {
			break
		}
		items[i] = items[c]
		i = c
	}
	items[i] = x
	return top
}

// distBefore orders Dijkstra's items by (distance, hops, endpoint).
func distBefore(a, b *distItem) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if a.h != b.h {
		return a.h < b.h
	}
	return a.e < b.e
}
