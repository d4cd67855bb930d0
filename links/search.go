package links

import (
	"math"
	"slices"
	"sync"
)

// Fabric is a Topology laid out for the shortest-route search: each
// endpoint's outgoing links as consecutive entries (in Topology.Out
// order, which decides ties) with their heads and routing weights, each
// link's figures as a transfer time reads them, and the endpoint facts
// a search and a route reader ask (a GPU, store-and-forward, an
// adapter) without copying a Link or comparing type names per link. It
// is a snapshot: made by NewFabric from the topology's figures at that
// time, read-only after, and safe for concurrent use. Topology.RouteTree
// and Route search one; a caller that asks many trees of one topology
// (a cluster's route table) makes it once.
type Fabric struct {
	first []int32 // endpoint e's links are edges[first[e]:first[e+1]]
	edges []Edge
	gpu   []bool // by endpoint: a GPU (a leaf of every route tree)
	saf   []bool // by endpoint: store-and-forward (Endpoint.StoreAndForward)
	nic   []bool // by endpoint: a network adapter
	hops  []Hop  // by link
	// unreached and noVia are a tree's labels and links before the
	// search: every endpoint at +Inf, no link
	unreached []label
	noVia     []int32
}

// Edge is a link as the search reads it, out of its tail endpoint.
type Edge struct {
	// W is the routing weight, Link.HopTime(RouteRefBytes).
	W float64
	// To is the link's head endpoint; Link its LinkID.
	To, Link int32
}

// Hop is a link's figures as a transfer time reads them.
type Hop struct {
	// From is the link's tail endpoint.
	From int32
	// Latency (s) and Bandwidth (bytes/s) are the Link's.
	Latency, Bandwidth float64
}

// NewFabric lays t out for the search, from its links' figures now.
func NewFabric(t *Topology) *Fabric {
	n := len(t.Endpoints)
	f := &Fabric{first: make([]int32, n+1), edges: make([]Edge, 0, len(t.Links)),
		gpu: make([]bool, n), saf: make([]bool, n), nic: make([]bool, n)}
	for e := range n {
		ep := t.Endpoints[e]
		f.gpu[e], f.saf[e], f.nic[e] = ep.Type == GPU, ep.StoreAndForward(), ep.Type == NIC
		for _, lid := range t.out[e] {
			l := &t.Links[lid]
			f.edges = append(f.edges, Edge{W: l.HopTime(RouteRefBytes), To: int32(l.To), Link: int32(lid)})
		}
		f.first[e+1] = int32(len(f.edges))
	}
	f.unreached, f.noVia = make([]label, n), make([]int32, n)
	for e := range n {
		f.unreached[e] = label{math.Inf(1), 0, f.gpu[e]}
		f.noVia[e] = -1
	}
	f.hops = make([]Hop, len(t.Links))
	for i, l := range t.Links {
		f.hops[i] = Hop{int32(l.From), l.Latency, l.Bandwidth}
	}
	return f
}

// Endpoints is the number of endpoints: the length of a tree.
func (f *Fabric) Endpoints() int { return len(f.gpu) }

// Out lists the links leaving endpoint e, in Topology.Out order; the
// slice is the fabric's, to read only.
func (f *Fabric) Out(e int32) []Edge { return f.edges[f.first[e]:f.first[e+1]] }

// Hops lists every link's figures by LinkID; the slice is the fabric's,
// to read only.
func (f *Fabric) Hops() []Hop { return f.hops }

// GPU reports whether endpoint e is a GPU (routes pass no GPU).
func (f *Fabric) GPU(e int32) bool { return f.gpu[e] }

// StoreAndForward is Endpoint.StoreAndForward of endpoint e.
func (f *Fabric) StoreAndForward(e int32) bool { return f.saf[e] }

// NIC reports whether endpoint e is a network adapter.
func (f *Fabric) NIC(e int32) bool { return f.nic[e] }

// The queue of Tree holds the endpoints to settle in buckets of one key
// (distance, hops): a relaxation that reaches many endpoints at one
// distance (a network switch's thousand adapters) fills one bucket, and
// the heap orders buckets, not endpoints. The endpoints of the least key
// are settled in endpoint order, as a queue ordered by (distance, hops,
// endpoint) pops them; a bucket is complete when it is taken, for every
// key pushed later is larger (a hop adds a positive time and one hop),
// so the endpoints are settled in the order of Dijkstra's binary heap of
// (distance, hops, endpoint) items and every tie is broken as it breaks
// it (TestRouteTreeMatchesReference holds Tree to that Dijkstra). On a
// 1,024-GPU DGX cluster a tree takes a third of the instructions of the
// heap of endpoints.

// bucket is the endpoints queued at one key.
type bucket struct {
	d      float64
	h      int32
	sorted bool // items ascending
	items  []int32
}

// bucketRef is a heap entry: a bucket's key and index.
type bucketRef struct {
	d   float64
	h   int32
	idx int32
}

func refBefore(a, b *bucketRef) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	return a.h < b.h
}

// label is an endpoint's distance and hops from the source, as far as
// the search knows, and whether it is a GPU.
type label struct {
	d   float64
	h   int32
	gpu bool
}

// treeScratch is what one Tree run works in, kept for the next (a
// cluster of a thousand GPUs runs a thousand).
type treeScratch struct {
	labels  []label
	buckets []bucket
	free    []int32 // buckets to reuse
	heap    []bucketRef
}

var treeWork = sync.Pool{New: func() any { return &treeScratch{} }}

// newBucket returns an empty bucket of key (d, h) in the heap. The heap
// of bucketRef is internal/heap's binary heap written out for its items
// with refBefore inlined (Push here, Pop in popBucket).
func (w *treeScratch) newBucket(d float64, h int32) int32 {
	var idx int32
	if n := len(w.free); n > 0 {
		idx = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		if len(w.buckets) < cap(w.buckets) {
			w.buckets = w.buckets[:len(w.buckets)+1] // its items' array kept
		} else {
			w.buckets = append(w.buckets, bucket{})
		}
		idx = int32(len(w.buckets) - 1)
	}
	b := &w.buckets[idx]
	b.d, b.h, b.sorted, b.items = d, h, true, b.items[:0]
	// push: the hole moves up from the end
	it := bucketRef{d, h, idx}
	w.heap = append(w.heap, it)
	hp := w.heap
	i := len(hp) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !refBefore(&it, &hp[p]) {
			break
		}
		hp[i] = hp[p]
		i = p
	}
	hp[i] = it
	return idx
}

// popBucket removes the heap's least entry and returns its bucket.
func (w *treeScratch) popBucket() int32 {
	hp := w.heap
	top := hp[0]
	last := len(hp) - 1
	x := hp[last]
	hp = hp[:last]
	w.heap = hp
	if last > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= last {
				break
			}
			if r := c + 1; r < last && refBefore(&hp[r], &hp[c]) {
				c = r
			}
			if !refBefore(&hp[c], &x) {
				break
			}
			hp[i] = hp[c]
			i = c
		}
		hp[i] = x
	}
	return top.idx
}

// Tree writes the shortest-path tree of every route from endpoint src
// into via, which has one entry per endpoint (Endpoints): via[e] is the
// LinkID of the last link of the fastest route from src to e for a
// RouteRefBytes message, -1 when e is src or unreachable. Dijkstra with
// ties to fewer hops, then to the endpoint settled first, the link first
// in Topology.Out order, so routes are deterministic; routes never pass
// through a GPU other than src, so a GPU is a leaf of the tree.
func (f *Fabric) Tree(src EndpointID, via []int32) {
	n := len(f.gpu)
	w := treeWork.Get().(*treeScratch)
	defer treeWork.Put(w)
	if cap(w.labels) < n {
		w.labels = make([]label, n)
	}
	lab := w.labels[:n]
	copy(lab, f.unreached)
	via = via[:n]
	copy(via, f.noVia)
	s := int32(src)
	lab[s].d = 0
	w.heap, w.buckets, w.free = w.heap[:0], w.buckets[:0], w.free[:0]
	p := pusher{w: w, open: -1}
	p.push(s, 0, 0)
	first, edges := f.first, f.edges
	for len(w.heap) > 0 {
		idx := w.popBucket()
		d, h := w.buckets[idx].d, w.buckets[idx].h
		// buckets of the same key are one
		for len(w.heap) > 0 && w.heap[0].d == d && w.heap[0].h == h {
			other := w.popBucket()
			w.buckets[idx].items = append(w.buckets[idx].items, w.buckets[other].items...)
			w.buckets[idx].sorted = false
			w.free = append(w.free, other)
			if p.open == other {
				p.open, p.ob = -1, nil
			}
		}
		if p.open == idx {
			p.open, p.ob = -1, nil
		}
		items := w.buckets[idx].items
		if !w.buckets[idx].sorted {
			slices.Sort(items)
		}
		for _, e := range items {
			if l := &lab[e]; d > l.d || (d == l.d && h > l.h) || (e != s && l.gpu) {
				continue // a stale entry; no routing through another accelerator
			}
			relax(edges[first[e]:first[e+1]], lab, via, d, h+1, &p)
		}
		w.free = append(w.free, idx)
	}
	via[s] = -1
}

// relax relaxes the links es of an endpoint settled at distance d, hops
// nh-1: an endpoint reached sooner (or as soon in fewer hops) takes the
// link as its last, and is queued unless it is a GPU (a GPU is a leaf:
// settled, it would relax nothing).
func relax(es []Edge, lab []label, via []int32, d float64, nh int32, p *pusher) {
	for i := range es {
		k := &es[i]
		l := &lab[k.To]
		nd := d + k.W
		if nd < l.d || (nd == l.d && nh < l.h) {
			l.d, l.h = nd, nh
			via[k.To] = k.Link
			if !l.gpu {
				p.push(k.To, nd, nh)
			}
		}
	}
}

// pusher queues endpoints: into the open bucket while the key stays, else
// into a new one.
type pusher struct {
	w    *treeScratch
	open int32   // the open bucket (-1: none)
	ob   *bucket // its address
}

func (p *pusher) push(v int32, d float64, h int32) {
	if p.ob == nil || p.ob.d != d || p.ob.h != h {
		p.open = p.w.newBucket(d, h)
		p.ob = &p.w.buckets[p.open]
	}
	b := p.ob
	if len(b.items) > 0 && b.items[len(b.items)-1] > v {
		b.sorted = false
	}
	b.items = append(b.items, v)
}
