package devices

import (
	"math"
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

// fabric is the topology as the route table reads it: links.Fabric (the
// search, and through Hops the figures its trees are read with) and the
// figures of the links touching an adapter, each pair of figures once
// (nearest's bound). It is made from the topology on the table's first route, so a
// cloned cluster whose links were changed before Rebuild routes on its
// own figures.
type fabric struct {
	*links.Fabric
	nicLinks []links.Hop
}

func (rt *routeTable) fabric() *fabric {
	rt.once.Do(func() {
		f := &fabric{Fabric: links.NewFabric(rt.topo)}
		seen := map[[2]float64]bool{}
		for _, l := range rt.topo.Links {
			if key := [2]float64{l.Latency, l.Bandwidth}; (f.NIC(int32(l.From)) || f.NIC(int32(l.To))) && !seen[key] {
				seen[key] = true
				f.nicLinks = append(f.nicLinks, links.Hop{Latency: l.Latency, Bandwidth: l.Bandwidth})
			}
		}
		rt.fab = f
	})
	return rt.fab
}

// row returns src's route tree, found on first use (safe for concurrent
// use).
func (rt *routeTable) row(src int) *routeRow {
	r := &rt.trees[src]
	r.once.Do(func() {
		f := rt.fabric()
		r.via = make([]int32, f.Endpoints())
		f.Tree(rt.ep[src], r.via)
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
	hops := rt.fabric().Hops()
	from, to := int32(rt.ep[src]), int32(rt.ep[dst])
	n := 0
	for e := to; e != from; e = hops[r.via[e]].From {
		n++
	}
	route := make(links.Route, n)
	for e := to; e != from; e = hops[r.via[e]].From {
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
	if f.NIC(e) {
		return true
	}
	hops := f.Hops()
	for e != from {
		e = hops[r.via[e]].From
		if f.NIC(e) {
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
	hops := f.Hops()
	var buf [16]int32
	route := buf[:0]
	for from, e := int32(rt.ep[src]), int32(rt.ep[dst]); e != from; {
		lid := r.via[e]
		route = append(route, lid)
		e = hops[lid].From
	}
	var start, finish float64 // of the current hop
	for i := len(route) - 1; i >= 0; i-- {
		l := &hops[route[i]]
		hop := l.Latency + float64(b)/l.Bandwidth // Link.HopTime(b)
		if i < len(route)-1 && !f.StoreAndForward(l.From) {
			// cut-through: the head arrives after the previous hop's latency
			s := start + hops[route[i+1]].Latency
			start, finish = s, math.Max(s+hop, finish+l.Latency)
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
		lb = math.Min(lb, l.Latency+float64(b)/l.Bandwidth)
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
// other candidate is as fast. Otherwise the other candidates are timed
// (each candidate once in all). On a DGX cluster a GPU's nearest peer is then found among its node's.
func (rt *routeTable) nearest(src int, b int64, cands []int) (int, float64) {
	f := rt.fabric()
	n := f.Endpoints()
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
		if e != from && f.GPU(e) {
			continue // routes pass no other GPU
		}
		for _, k := range f.Out(e) {
			if mark[k.To] != call && !f.NIC(k.To) {
				mark[k.To] = call
				queue = append(queue, k.To)
			}
		}
	}
	w.queue = queue
	// near: the candidates of the first pass, those reached without an
	// adapter and those not reached at all (an unreachable one times 0);
	// none when src is itself an adapter
	var via []int32
	if !f.NIC(from) {
		via = rt.row(src).via
	}
	near := func(d int) bool { e := rt.ep[d]; return via != nil && (mark[e] == call || via[e] < 0) }
	best, bestT := -1, math.Inf(1)
	if via != nil {
		for i, d := range cands {
			if !near(d) {
				continue
			}
			if t := rt.transferTime(src, d, b); t < bestT {
				best, bestT = i, t
			}
		}
		if best >= 0 && bestT < f.nicBound(b) {
			return best, bestT
		}
	}
	// the others, each timed once: a tie goes to the earlier index, as in
	// one scan of every candidate in order
	for i, d := range cands {
		if near(d) {
			continue
		}
		if t := rt.transferTime(src, d, b); t < bestT || t == bestT && i < best {
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
