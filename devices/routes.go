package devices

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"placesim/links"
)

// routeTable holds a cluster's routes. The shortest-path tree of a source
// device (one Dijkstra run: every route from it) is found on its first
// use and kept as one link per endpoint (8.7 kB for a 1,024-GPU DGX
// cluster, where the routes it holds, read out, took 100 kB); a route is
// read out of its tree the first time it is asked for, and kept. A
// simulation that sends from k devices costs k runs, not the n^2 of
// computing every pair up front, and a question about a route (its
// transfer time, whether it crosses an adapter, which of some devices is
// nearest) is answered from the tree without reading the route out.
type routeTable struct {
	topo  *links.Topology
	devs  []Device
	ep    []links.EndpointID // by device: its endpoint
	once  sync.Once
	fab   *fabric // the topology as routing reads it, made on first use
	trees []routeRow
}

// routeBlock is a block of a row's routes: slot j%len holds the route to
// device j once read out.
type routeBlock [64]atomic.Pointer[links.Route]

type routeRow struct {
	once sync.Once
	via  []int32 // via[e]: the last link of the route to endpoint e, -1 for none
	// routes holds the routes read out, by destination device in blocks
	// of routeBlock, a block made on its first route (a GPU's routes to
	// its node's peers and to its ring neighbours are a block or two of a
	// thousand destinations)
	kept   sync.Once
	routes []atomic.Pointer[routeBlock]
}

func newRouteTable(t *links.Topology, devs []Device) *routeTable {
	ep := make([]links.EndpointID, len(devs))
	for i := range devs {
		ep[i] = devs[i].Endpoint
	}
	return &routeTable{topo: t, devs: devs, ep: ep, trees: make([]routeRow, len(devs))}
}

// fabric is a topology laid out for Dijkstra's inner loop: each
// endpoint's outgoing links as consecutive entries (in Topology.Out
// order, which decides ties) with their heads and hop times, and the
// endpoint facts the search and the route readers ask, without copying a
// Link or comparing type names per link. It is made from the topology
// on the table's first route, so a cloned cluster whose links were
// changed before Rebuild routes on its own figures.
type fabric struct {
	first []int32 // endpoint e's links are edges[first[e]:first[e+1]]
	edges []edge
	gpu   []bool // by endpoint: a GPU (a leaf of every route tree)
	saf   []bool // by endpoint: store-and-forward (Endpoint.StoreAndForward)
	nic   []bool // by endpoint: a network adapter
	links []hop  // by link
	// unreached and noVia are a tree's labels and links before the
	// search: every endpoint at +Inf, no link
	unreached []label
	noVia     []int32
	// nicLinks: the figures of the links touching an adapter, each pair
	// of figures once
	nicLinks []hop
}

// hop is a link's figures as the transfer time reads them.
type hop struct {
	from    int32
	lat, bw float64
}

// edge is a link as routing reads it.
type edge struct {
	w    float64 // Link.HopTime(links.RouteRefBytes), the routing weight
	to   int32
	link int32
}

func (rt *routeTable) fabric() *fabric {
	rt.once.Do(func() {
		t := rt.topo
		n := len(t.Endpoints)
		f := &fabric{first: make([]int32, n+1), edges: make([]edge, 0, len(t.Links)),
			gpu: make([]bool, n), saf: make([]bool, n), nic: make([]bool, n)}
		for e := range n {
			ep := t.Endpoints[e]
			f.gpu[e], f.saf[e], f.nic[e] = ep.Type == links.GPU, ep.StoreAndForward(), ep.Type == links.NIC
			for _, lid := range t.Out(links.EndpointID(e)) {
				l := &t.Links[lid]
				f.edges = append(f.edges, edge{w: l.HopTime(links.RouteRefBytes), to: int32(l.To), link: int32(lid)})
			}
			f.first[e+1] = int32(len(f.edges))
		}
		f.unreached, f.noVia = make([]label, n), make([]int32, n)
		for e := range n {
			f.unreached[e] = label{math.Inf(1), 0, f.gpu[e]}
			f.noVia[e] = -1
		}
		f.links = make([]hop, len(t.Links))
		seen := map[[2]float64]bool{}
		for i, l := range t.Links {
			f.links[i] = hop{int32(l.From), l.Latency, l.Bandwidth}
			if key := [2]float64{l.Latency, l.Bandwidth}; (f.nic[l.From] || f.nic[l.To]) && !seen[key] {
				seen[key] = true
				f.nicLinks = append(f.nicLinks, hop{lat: l.Latency, bw: l.Bandwidth})
			}
		}
		rt.fab = f
	})
	return rt.fab
}

// The queue of tree holds the endpoints to settle in buckets of one key
// (distance, hops): a relaxation that reaches many endpoints at one
// distance (a network switch's thousand adapters) fills one bucket, and
// the heap orders buckets, not endpoints. The endpoints of the least key
// are settled in endpoint order, as links.RouteTree's queue, ordered by
// (distance, hops, endpoint), pops them; a bucket is complete when it is
// taken, for every key pushed later is larger (a hop adds a positive
// time and one hop), so the endpoints are settled in RouteTree's order
// and every tie is broken as it breaks it. On a 1,024-GPU DGX cluster a
// tree takes a third of the instructions of the heap of endpoints.

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

// treeScratch is what one tree run works in, kept for the next.
type treeScratch struct {
	labels  []label
	buckets []bucket
	free    []int32 // buckets to reuse
	heap    []bucketRef
}

var treeWork = sync.Pool{New: func() any { return &treeScratch{} }}

// newBucket returns an empty bucket of key (d, h) in the heap.
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

// tree writes the shortest-path tree from endpoint src into via (one
// entry per endpoint): links.Topology.RouteTree's algorithm on the
// fabric's arrays, with the same weights, the same order of links and
// the same order of settling, hence the same tree, tie for tie
// (TestRouteTreeMatchesTopology holds it to RouteTree).
func (f *fabric) tree(src int32, via []int32) {
	n := len(f.gpu)
	w := treeWork.Get().(*treeScratch)
	defer treeWork.Put(w)
	if cap(w.labels) < n {
		w.labels = make([]label, n)
	}
	lab := w.labels[:n]
	copy(lab, f.unreached)
	copy(via, f.noVia)
	lab[src].d = 0
	w.heap, w.buckets, w.free = w.heap[:0], w.buckets[:0], w.free[:0]
	p := pusher{w: w, open: -1}
	p.push(src, 0, 0)
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
			if l := &lab[e]; d > l.d || (d == l.d && h > l.h) || (e != src && l.gpu) {
				continue // a stale entry; no routing through another accelerator
			}
			relax(edges[first[e]:first[e+1]], lab, via, d, h+1, &p)
		}
		w.free = append(w.free, idx)
	}
	via[src] = -1
}

// relax relaxes the links es of an endpoint settled at distance d, hops
// nh-1: an endpoint reached sooner (or as soon in fewer hops) takes the
// link as its last, and is queued unless it is a GPU.
func relax(es []edge, lab []label, via []int32, d float64, nh int32, p *pusher) {
	for i := range es {
		k := &es[i]
		l := &lab[k.to]
		nd := d + k.w
		if nd < l.d || (nd == l.d && nh < l.h) {
			l.d, l.h = nd, nh
			via[k.to] = k.link
			if !l.gpu {
				p.push(k.to, nd, nh)
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

// row returns src's route tree, found on first use (safe for concurrent
// use).
func (rt *routeTable) row(src int) *routeRow {
	r := &rt.trees[src]
	r.once.Do(func() {
		f := rt.fabric()
		r.via = make([]int32, len(f.gpu))
		f.tree(int32(rt.ep[src]), r.via)
	})
	return r
}

// reaches reports whether the tree of row r (from device src) reaches
// device dst.
func (rt *routeTable) reaches(r *routeRow, src, dst int) bool {
	return src == dst || r.via[rt.ep[dst]] >= 0
}

// route is the route from device src to dst read out of src's tree (once:
// it is kept); nil when dst is unreachable.
func (rt *routeTable) route(src, dst int) links.Route {
	r := rt.row(src)
	r.kept.Do(func() {
		r.routes = make([]atomic.Pointer[routeBlock], (len(rt.devs)+len(routeBlock{})-1)/len(routeBlock{}))
	})
	blk := r.routes[dst/len(routeBlock{})].Load()
	if blk == nil {
		r.routes[dst/len(routeBlock{})].CompareAndSwap(nil, new(routeBlock))
		blk = r.routes[dst/len(routeBlock{})].Load()
	}
	slot := &blk[dst%len(routeBlock{})]
	if p := slot.Load(); p != nil {
		return *p
	}
	if !rt.reaches(r, src, dst) {
		return nil
	}
	f := rt.fabric()
	from, to := int32(rt.ep[src]), int32(rt.ep[dst])
	n := 0
	for e := to; e != from; e = f.links[r.via[e]].from {
		n++
	}
	route := make(links.Route, n)
	for e := to; e != from; e = f.links[r.via[e]].from {
		n--
		route[n] = links.LinkID(r.via[e])
	}
	slot.CompareAndSwap(nil, &route)
	return *slot.Load()
}

// crossesNIC reports whether the route from device a to b passes a
// network adapter, read from a's tree.
func (rt *routeTable) crossesNIC(a, b int) bool {
	f := rt.fabric()
	r := rt.row(a)
	if a == b || !rt.reaches(r, a, b) {
		return false
	}
	from, e := int32(rt.ep[a]), int32(rt.ep[b])
	if f.nic[e] {
		return true
	}
	for e != from {
		e = f.links[r.via[e]].from
		if f.nic[e] {
			return true
		}
	}
	return false
}

// transferTime is links.Topology.TransferTime of the route from device
// src to dst (0 when unreachable, as of the empty route), read from src's
// tree into a buffer on the stack instead of out into a kept route, and
// timed on the fabric's copy of the links' figures: the same hops in the
// same order through the same arithmetic, so the same float64
// (TestRouteTreeMatchesTopology).
func (rt *routeTable) transferTime(src, dst int, b int64) float64 {
	r := rt.row(src)
	if !rt.reaches(r, src, dst) {
		return 0
	}
	f := rt.fabric()
	var buf [16]int32
	route := buf[:0]
	for from, e := int32(rt.ep[src]), int32(rt.ep[dst]); e != from; {
		lid := r.via[e]
		route = append(route, lid)
		e = f.links[lid].from
	}
	var start, finish float64 // of the current hop
	for i := len(route) - 1; i >= 0; i-- {
		l := &f.links[route[i]]
		hop := l.lat + float64(b)/l.bw // Link.HopTime(b)
		if i < len(route)-1 && !f.saf[l.from] {
			// cut-through: the head arrives after the previous hop's latency
			s := start + f.links[route[i+1]].lat
			start, finish = s, math.Max(s+hop, finish+l.lat)
			continue
		}
		start = finish
		finish = start + hop
	}
	return finish
}

// nearScratch is what nearest works in: the endpoints reached without
// an adapter, marked with the call's number.
type nearScratch struct {
	mark  []uint32
	call  uint32
	queue []int32
}

var nearWork = sync.Pool{New: func() any { return &nearScratch{} }}

// nicBound is the least time any one link touching a network adapter
// (leaving or entering one) takes to carry b bytes, Link.HopTime(b):
// +Inf when the topology has no adapter.
func (f *fabric) nicBound(b int64) float64 {
	lb := math.Inf(1)
	for _, l := range f.nicLinks {
		lb = math.Min(lb, l.lat+float64(b)/l.bw)
	}
	return lb
}

// nearest returns the index in cands (devices) of the first with the
// least transfer time of b bytes from device src, and that time (-1 and
// +Inf when cands is empty): what a scan of every candidate in order,
// keeping strict improvements, returns. It times first the candidates
// src reaches without a network adapter (a search from src that enters
// no adapter and leaves no other GPU) and any it cannot reach (time 0,
// as transferTime says); when the least of them is below
// the time of the fastest link touching an adapter (nicBound), it is the
// answer: every route to another candidate crosses an adapter, and a
// transfer takes at least as long as each of its hops (in floating point
// too: the finish of a hop, in links.Topology.TransferTime, is at least
// that hop's HopTime and never earlier than the previous hop's), so no
// other candidate is as fast. Otherwise every candidate is timed. On a
// DGX cluster a GPU's nearest peer is then found among its node's.
func (rt *routeTable) nearest(src int, b int64, cands []int) (int, float64) {
	f := rt.fabric()
	n := len(f.gpu)
	w := nearWork.Get().(*nearScratch)
	defer nearWork.Put(w)
	if len(w.mark) < n {
		w.mark, w.call = make([]uint32, n), 0
	}
	w.call++
	if w.call == 0 {
		clear(w.mark)
		w.call = 1
	}
	mark, call := w.mark, w.call
	from := int32(rt.ep[src])
	queue := append(w.queue[:0], from)
	mark[from] = call
	for i := 0; i < len(queue); i++ {
		e := queue[i]
		if e != from && f.gpu[e] {
			continue // routes pass no other GPU
		}
		for _, k := range f.edges[f.first[e]:f.first[e+1]] {
			if mark[k.to] != call && !f.nic[k.to] {
				mark[k.to] = call
				queue = append(queue, k.to)
			}
		}
	}
	w.queue = queue
	best, bestT := -1, math.Inf(1)
	if !f.nic[from] {
		via := rt.row(src).via
		for i, d := range cands {
			if e := rt.ep[d]; mark[e] != call && via[e] >= 0 {
				continue // reached through an adapter only (an unreachable one times 0)
			}
			if t := rt.transferTime(src, d, b); t < bestT {
				best, bestT = i, t
			}
		}
		if best >= 0 && bestT < f.nicBound(b) {
			return best, bestT
		}
	}
	best, bestT = -1, math.Inf(1)
	for i, d := range cands {
		if t := rt.transferTime(src, d, b); t < bestT {
			best, bestT = i, t
		}
	}
	return best, bestT
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
