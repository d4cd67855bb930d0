package engine

// transfer is one send/recv pair: producer's output moving to device
// recv.dev for its consumers there, succs[first:first+n].
type transfer struct {
	producer   int32
	first, n   int32
	route      int32   // its route in sim.routes
	recv       buffer  // the copy on recv.dev, readers: consumers there still to finish
	prevFinish float64 // when the previous hop finishes (cut-through)
}

// routeRef is a route between two devices: its links are
// sim.hops[at:at+n].
type routeRef struct{ at, n int32 }

// waiting is a transfer's hop in a link's queue, since time enq.
type waiting struct {
	t, h int32
	enq  float64
}

// linkQueue is one directed link: FCFS, one transfer at a time.
type linkQueue struct {
	// the link's figures, copied from the topology for the hot path
	bw, lat float64
	// cutIn: the link leaves a cut-through endpoint (switch, NIC);
	// sfOut: it enters a store-and-forward endpoint (host, device)
	cutIn, sfOut bool

	busy  bool
	queue []waiting // in arrival order, from head on (see advance)
	head  int
	stats LinkStats
}

// enqueueHop puts transfer t's hop h on its link, starting it when free.
func (s *sim) enqueueHop(t int32, h int32) {
	lq := &s.links[s.hops[s.routes[s.xfers[t].route].at+h]]
	if !lq.busy {
		s.startHop(t, h, s.now)
		return
	}
	lq.queue = append(lq.queue, waiting{t: t, h: h, enq: s.now})
}

// startHop starts hop h of transfer t now; it joined the link's queue at
// enq. A hop out of a store-and-forward
// endpoint (the source device, a host) takes latency + bytes/bandwidth; a
// hop out of a cut-through endpoint (switch, NIC) starts as soon as the
// head arrives and ends no earlier than the previous hop plus its latency.
func (s *sim) startHop(t, h int32, enq float64) {
	x := &s.xfers[t]
	r := s.routes[x.route]
	lid := s.hops[r.at+h]
	lq := &s.links[lid]
	lq.busy = true
	start := s.now
	finish := start + lq.lat + float64(x.recv.bytes)/lq.bw
	if h > 0 && lq.cutIn {
		if f := x.prevFinish + lq.lat; f > finish {
			finish = f
		}
	}
	x.prevFinish = finish
	lq.stats.Busy += finish - start
	lq.stats.Bytes += x.recv.bytes
	lq.stats.Transfers++
	lq.stats.QueueDelay += start - enq
	last := h == r.n-1
	if last {
		// the receive buffer exists from the moment the last hop writes it
		if s.mem[x.recv.dev].add(x.recv.bytes) {
			s.allocSlow(x.recv.dev, x.recv.bytes, x.producer, allocRecv)
		}
	}
	if s.trace != nil {
		r := &s.trace.Transfers[s.recOf[t]]
		r.Hops = append(r.Hops, HopRecord{Link: int(lid), Enqueue: enq, Start: start, End: finish})
	}
	s.q.schedule(finish, evHopEnd, t, h)
	if !last && !lq.sfOut {
		s.q.schedule(start+lq.lat, evHopHead, t, h)
	}
}

// hopEnd frees the link and moves the transfer on.
func (s *sim) hopEnd(t int32, h int32) {
	x := &s.xfers[t]
	r := s.routes[x.route]
	lq := &s.links[s.hops[r.at+h]]
	lq.busy = false
	if lq.head < len(lq.queue) {
		w := lq.queue[lq.head]
		lq.head = advance(&lq.queue, lq.head)
		s.startHop(w.t, w.h, w.enq)
	}
	if h == 0 {
		s.releaseSource(x.producer)
	}
	switch {
	case h == r.n-1:
		s.deliver(t)
	case lq.sfOut:
		s.enqueueHop(t, h+1)
	}
}

// route returns the index in s.routes of the route from device src to
// dst, copying it there on first use: transfers then hold no pointer,
// which spares the garbage collector from scanning them.
func (s *sim) route(src, dst int32) int32 {
	if s.routeAt != nil {
		if at := s.routeAt[src*int32(len(s.c.Devices))+dst]; at > 0 {
			return at - 1
		}
	}
	return s.newRoute(src, dst)
}

// newRoute is route's slow path: a route not yet copied, or any route on
// a cluster of more than 64 devices (found in routeMap).
func (s *sim) newRoute(src, dst int32) int32 {
	key := src*int32(len(s.c.Devices)) + dst
	if s.routeAt == nil {
		if i, ok := s.routeMap[key]; ok {
			return i
		}
	}
	r := s.c.Route(int(src), int(dst))
	i := int32(len(s.routes))
	s.routes = append(s.routes, routeRef{at: int32(len(s.hops)), n: int32(len(r))})
	s.hops = append(s.hops, r...)
	if s.routeAt != nil {
		s.routeAt[key] = i + 1
	} else {
		s.routeMap[key] = i
	}
	return i
}
