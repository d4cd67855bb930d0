package engine

// transfer is one send/recv pair: producer's output moving to device
// recv.dev for its consumers there, succs[first:first+n].
type transfer struct {
	producer   int32
	first, n   int32
	hop        int32   // its route's first link in sim.hops (see route)
	recv       buffer  // the copy on recv.dev, readers: consumers there still to finish
	prevFinish float64 // when the previous hop finishes (cut-through)
}

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
	lid := s.hops[s.xfers[t].hop+h]
	if !s.links[lid].busy {
		s.startHop(t, h, lid, s.now)
		return
	}
	lq := &s.links[lid]
	lq.queue = append(lq.queue, waiting{t: t, h: h, enq: s.now})
}

// startHop starts hop h of transfer t, on link lid, now; it joined the
// link's queue at enq. A hop out of a store-and-forward endpoint (the
// source device, a host) takes latency + bytes/bandwidth; a hop out of a
// cut-through endpoint (switch, NIC) starts as soon as the head arrives
// and ends no earlier than the previous hop plus its latency.
func (s *sim) startHop(t, h, lid int32, enq float64) {
	x := &s.xfers[t]
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
	last := s.lastHop(x.hop + h)
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
	at := x.hop + h
	lid := s.hops[at]
	lq := &s.links[lid]
	lq.busy = false
	if lq.head < len(lq.queue) {
		w := lq.queue[lq.head]
		lq.head = advance(&lq.queue, lq.head)
		s.startHop(w.t, w.h, lid, w.enq)
	}
	if h == 0 {
		s.release(&s.nodes[x.producer].out)
	}
	switch {
	case s.lastHop(at):
		s.deliver(t)
	case lq.sfOut:
		s.enqueueHop(t, h+1)
	}
}

// route returns where in s.hops the route from device src to dst
// starts, copying it there on first use: its links, then -1 (a transfer
// finds its hop's link, and whether it is the last, from its own start
// alone). Transfers then hold no pointer, which spares the garbage
// collector from scanning them. A route is found by device pair in
// routeAt (its start+1) on clusters of up to 64 devices, which wire reads
// itself first, else in routeMap.
func (s *sim) route(src, dst int32) int32 {
	key := src*int32(len(s.c.Devices)) + dst
	if s.routeAt != nil {
		if at := routeStart(s.routeAt[key]); at >= 0 {
			return at
		}
	} else if at, ok := s.routeMap[key]; ok {
		return at
	}
	at := int32(len(s.hops))
	for _, l := range s.c.Route(int(src), int(dst)) {
		s.hops = append(s.hops, int32(l))
	}
	s.hops = append(s.hops, endOfRoute)
	if s.routeAt != nil {
		s.routeAt[key] = routeEntry(at)
	} else {
		s.routeMap[key] = at
	}
	return at
}

// endOfRoute follows a route's last link in sim.hops.
const endOfRoute = -1

// lastHop reports whether hop slot at of sim.hops is a route's last link.
func (s *sim) lastHop(at int32) bool { return s.hops[at+1] == endOfRoute }

// routeEntry is what routeAt holds for a route starting at start in
// sim.hops: start+1, so that routeAt's zero value means "not copied yet".
func routeEntry(start int32) int32 { return start + 1 }

// routeStart is the start in sim.hops of the route routeAt holds as
// entry, -1 when it has not been copied yet.
func routeStart(entry int32) int32 { return entry - 1 }
