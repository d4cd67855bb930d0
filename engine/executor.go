package engine

import (
	"fmt"

	"placesim/devices"
	"placesim/links"
	"placesim/workloads"
)

// Options tune a simulation.
type Options struct {
	// Trace records every transfer hop and each device's memory timeline
	// in Result.Trace (costs memory; off for benchmarks and searches).
	Trace bool
	// MaxMemory bounds the memory the simulation itself may take (its
	// unrolled instances, edges and events), estimated before anything is
	// allocated: a plan above it is refused with ErrTooLarge. 0 means
	// DefaultMaxMemory; it must not be negative.
	MaxMemory int64
}

// sim is the state of one simulation: the unrolled nodes and their edges,
// the streams, links, transfers and memory ledgers, and the event queue.
type sim struct {
	g   *workloads.Graph
	c   *devices.Cluster
	p   *Plan
	opt Options
	un  *unrolled

	nodes []instance // what runs, with its state (see unroll.go)
	// prio is each node's ready-queue key (the highest runs first): the
	// plan's priority, or minus the node's position in its device's order;
	// nil when every node has the same (first ready, first run)
	prio []float64

	// unique predecessors and successors (CSR), so that several edges
	// between the same two nodes count as one dependency
	predStart, preds []int32
	succStart, succs []int32
	succBytes        []int64 // largest edge's bytes to each unique successor

	streams []stream
	links   []linkQueue
	xfers   []transfer
	mem     []ledger

	// the routes transfers use, copied on first use (see route): hops
	// holds their links; a route is found by device pair in routeAt and
	// routeLen (index+1, length) on clusters of up to 64 devices, else in
	// routeMap
	hops              []links.LinkID
	routeAt, routeLen []int32
	routeMap          map[int32]int32

	// scratch for grouping a node's remote consumers by device
	devMark  []int32
	devBytes []int64
	remote   []int32
	readySeq uint64

	q     eventQueue
	now   float64
	done  int
	res   *Result
	trace *Trace
}

// stream is a device's compute stream with its ready nodes.
type stream struct {
	busy  bool
	ready readyQueue // keyed by the nodes' prio, then first ready
	// order, when set, is the device's schedule: its nodes' prio is minus
	// their position in it. With strict, only order[next] may start (order
	// enforcement); otherwise the order is a priority.
	order    []int32
	strict   bool
	next     int
	busyTime float64
	ops      int
	params   int64
}

// Simulate plays one step of plan p for graph g on cluster c. The graph must
// be valid (see workloads.Graph.Validate). A run that exceeds a device's
// memory returns a Result with OOM set and no error; errors are for plans
// that do not fit the graph or cluster.
//
// A pipeline schedule's strict per-device order comes from the ops' roles
// and the stage order; a graph whose dependencies run against them (a
// backward op fed from a later stage's forward of another micro-batch,
// parts interleaved by a non-contiguous split) would make it wait forever.
// The engine finds that before the run (a cycle of dependencies and order)
// and plays the order as a priority instead, saying so in
// Result.OrderRelaxed; a strict order the plan itself gives (Plan.Order)
// that cannot complete is an ErrDeadlock error.
func Simulate(g *workloads.Graph, c *devices.Cluster, p *Plan, opt Options) (*Result, error) {
	g = p.graphFor(g)
	if err := p.Validate(g, c); err != nil {
		return nil, err
	}
	if opt.MaxMemory < 0 {
		return nil, fmt.Errorf("%w: engine option MaxMemory = %d (valid range: >= 0; 0 = %d bytes)", ErrInvalidPlan, opt.MaxMemory, DefaultMaxMemory)
	}
	s := &sim{g: g, c: c, p: p, opt: opt}
	if err := s.init(); err != nil {
		return nil, err
	}
	if err := s.orderDeadlock(); err != nil {
		if p.Order != nil {
			return nil, err
		}
		s.relaxOrders()
		s.res.OrderRelaxed = err.Error()
	}
	s.start()
	s.run()
	if s.done < len(s.nodes) {
		return nil, s.deadlock()
	}
	return s.result(), nil
}

// init derives the nodes and prepares the streams, links and ledgers.
func (s *sim) init() error {
	c := s.c
	s.streams = make([]stream, len(c.Devices))
	s.mem = make([]ledger, len(c.Devices))
	s.links = make([]linkQueue, len(c.Topology.Links))
	for i, l := range c.Topology.Links {
		s.links[i] = linkQueue{bw: l.Bandwidth, lat: l.Latency,
			cutIn: !c.Topology.Endpoints[l.From].StoreAndForward(),
			sfOut: c.Topology.Endpoints[l.To].StoreAndForward()}
	}
	if nd := len(c.Devices); nd <= 64 {
		s.routeAt, s.routeLen = make([]int32, nd*nd), make([]int32, nd*nd)
	} else {
		s.routeMap = map[int32]int32{}
	}
	s.devMark = make([]int32, len(c.Devices))
	s.devBytes = make([]int64, len(c.Devices))
	for d := range s.devMark {
		s.devMark[d] = -1
		s.mem[d].capacity = c.Devices[d].Memory
	}
	s.res = &Result{}
	if s.opt.Trace {
		s.trace = &Trace{}
	}
	if err := s.unroll(); err != nil {
		return err
	}
	n := len(s.nodes)
	s.res.OpStart, s.res.OpEnd = make([]float64, n), make([]float64, n)
	s.xfers = make([]transfer, 0, s.countTransfers())
	for x := range s.nodes {
		s.nodes[x].remaining = s.predStart[x+1] - s.predStart[x]
	}
	for d := range s.streams {
		st := &s.streams[d]
		st.strict = st.order != nil
		if st.order != nil && s.prio == nil {
			s.prio = make([]float64, len(s.nodes))
		}
		for i, x := range st.order {
			s.prio[x] = -float64(i)
		}
	}
	// a stream whose nodes all have the same prio is first ready, first run
	same := make([]bool, len(s.streams))
	first := make([]float64, len(s.streams))
	seen := make([]bool, len(s.streams))
	for x := range s.nodes {
		nd := &s.nodes[x]
		if nd.side || s.prio == nil {
			continue
		}
		switch d := nd.out.dev; {
		case !seen[d]:
			seen[d], same[d], first[d] = true, true, s.prio[x]
		case s.prio[x] != first[d]:
			same[d] = false
		}
	}
	for d := range s.streams {
		s.streams[d].ready.fifo = same[d] || !seen[d]
	}
	return nil
}

// relaxOrders plays every device's schedule as a priority.
func (s *sim) relaxOrders() {
	for d := range s.streams {
		s.streams[d].strict = false
	}
}

// start makes the nodes without inputs ready and starts the streams.
func (s *sim) start() {
	for x := range s.nodes {
		if s.nodes[x].remaining == 0 {
			s.makeReady(int32(x))
		}
	}
	for d := range s.streams {
		s.tryStart(int32(d))
	}
}

// orderDeadlock reports, before the run, whether the streams' strict
// orders can complete: they cannot exactly when the dependencies and the
// order (each node after the one before it on its device) form a cycle,
// since every transfer eventually arrives. The error says which device
// waits for which node, as the run would have found it.
func (s *sim) orderDeadlock() error {
	strict := false
	for d := range s.streams {
		strict = strict || s.streams[d].strict
	}
	if !strict {
		return nil
	}
	n := len(s.nodes)
	indeg := make([]int32, n)
	next := make([]int, len(s.streams))
	queue := make([]int32, 0, n)
	for x := range s.nodes {
		indeg[x] = s.predStart[x+1] - s.predStart[x]
	}
	for d := range s.streams {
		for _, x := range s.streams[d].order[min(1, len(s.streams[d].order)):] {
			indeg[x]++
		}
	}
	for x := range indeg {
		if indeg[x] == 0 {
			queue = append(queue, int32(x))
		}
	}
	release := func(y int32) {
		if indeg[y]--; indeg[y] == 0 {
			queue = append(queue, y)
		}
	}
	for k := 0; k < len(queue); k++ {
		x := queue[k]
		for _, y := range s.succs[s.succStart[x]:s.succStart[x+1]] {
			release(y)
		}
		if nd := &s.nodes[x]; !nd.side {
			st := &s.streams[nd.out.dev]
			if st.strict {
				next[nd.out.dev]++
				if next[nd.out.dev] < len(st.order) {
					release(st.order[next[nd.out.dev]])
				}
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	for d := range s.streams {
		if st := &s.streams[d]; st.strict && next[d] < len(st.order) {
			return fmt.Errorf("%w: %d of %d ops never ran; device %s waits for op %q, next in its order, whose inputs never arrive",
				ErrDeadlock, n-len(queue), n, s.c.Devices[d].Name, s.un.name(st.order[next[d]]))
		}
	}
	return fmt.Errorf("%w: %d of %d ops never ran", ErrDeadlock, n-len(queue), n)
}

// countTransfers is the number of (producer, remote device) pairs: the
// exact number of transfers the run will make.
func (s *sim) countTransfers() int {
	n := 0
	for u := range s.nodes {
		du := s.nodes[u].out.dev
		for _, v := range s.succs[s.succStart[u]:s.succStart[u+1]] {
			if dv := s.nodes[v].out.dev; dv != du && s.devMark[dv] != int32(u) {
				s.devMark[dv] = int32(u)
				n++
			}
		}
	}
	for d := range s.devMark {
		s.devMark[d] = -1
	}
	return n
}

// run processes events until none are left.
func (s *sim) run() {
	for s.q.pending() > 0 {
		e := s.q.next()
		s.now = e.time
		s.res.Events++
		switch e.kind() {
		case evOpEnd:
			s.opEnd(e.id)
		case evHopEnd:
			s.hopEnd(e.id, e.aux)
		case evHopHead:
			s.enqueueHop(e.id, e.aux+1)
		case evSideEnd:
			s.finish(e.id)
			s.tryStart(s.nodes[e.id].out.dev)
		}
	}
}

// makeReady queues node x on its device's stream (the caller calls
// tryStart), or starts a side node at once.
func (s *sim) makeReady(x int32) {
	nd := &s.nodes[x]
	if nd.side {
		s.startSide(x)
		return
	}
	var prio float64
	if s.prio != nil {
		prio = s.prio[x]
	}
	s.streams[nd.out.dev].ready.push(readyItem{prio: prio, seq: s.readySeq, op: x})
	s.readySeq++
}

// startSide starts a side node: it runs off the device's compute stream
// (a collective's step, a weight stash), so it starts as soon as it is ready.
func (s *sim) startSide(x int32) {
	s.res.OpStart[x] = s.now
	what := "all-reduce chunk"
	if s.un.id(x).kind == NodeStash {
		what = "weight stash"
	}
	nd := &s.nodes[x]
	s.alloc(nd.out.dev, nd.out.bytes, x, what)
	s.q.schedule(s.now+nd.cost, evSideEnd, x, 0)
}

// tryStart starts the next node on device d if the stream is idle: the
// ready node with the highest priority, or under a strict order the next
// in order once it is ready.
func (s *sim) tryStart(d int32) {
	st := &s.streams[d]
	if st.busy || st.ready.len() == 0 {
		return
	}
	if st.strict {
		if st.ready.top() != st.order[st.next] {
			return
		}
		st.next++
	}
	x := st.ready.pop().op
	st.busy = true
	s.res.OpStart[x] = s.now
	nd := &s.nodes[x]
	s.alloc(d, nd.out.bytes, x, "output")
	s.alloc(d, nd.temp, x, "temp")
	s.q.schedule(s.now+nd.cost, evOpEnd, x, 0)
}

// opEnd finishes node x on its stream and starts the next.
func (s *sim) opEnd(x int32) {
	nd := &s.nodes[x]
	st := &s.streams[nd.out.dev]
	st.busy = false
	st.busyTime += nd.cost
	s.finish(x)
	s.tryStart(nd.out.dev)
}

// finish completes node x (a stream node or a side node): frees its
// workspace and inputs, sends its output to every other device that has a
// consumer and wakes local consumers. The caller restarts the stream.
func (s *sim) finish(x int32) {
	nd := &s.nodes[x]
	d := nd.out.dev
	s.res.OpEnd[x] = s.now
	s.done++
	s.free(d, nd.temp)
	// release this node's inputs first: memory freed at an instant is free
	// for whatever starts at that instant
	for _, w := range s.preds[s.predStart[x]:s.predStart[x+1]] {
		if w < 0 {
			continue // a control edge holds no buffer
		}
		if s.nodes[w].out.dev == d {
			s.releaseSource(w)
		} else {
			s.releaseRecv(w, d)
		}
	}

	// the output's readers: local consumers, one send per remote device
	var refs int32
	remote := s.remote[:0]
	lo, hi := s.succStart[x], s.succStart[x+1]
	for i, v := range s.succs[lo:hi] {
		dv := s.nodes[v].out.dev
		if dv == d {
			if s.succBytes[int(lo)+i] >= 0 {
				refs++ // a reader, not a control edge
			}
			continue
		}
		if s.devMark[dv] != x {
			s.devMark[dv] = x
			s.devBytes[dv] = 0
			remote = append(remote, dv)
		}
		if b := s.succBytes[int(lo)+i]; b > s.devBytes[dv] {
			s.devBytes[dv] = b
		}
	}
	if len(remote) > 0 {
		sortSmall(remote)
		nd.xferFirst = int32(len(s.xfers))
		nd.xferN = int32(len(remote))
		refs += int32(len(remote))
	}
	s.remote = remote
	nd.out.readers = refs
	if refs == 0 {
		s.free(d, nd.out.bytes)
	}
	for _, dv := range remote {
		s.send(x, d, dv, s.devBytes[dv])
	}
	// wake local consumers
	for _, v := range s.succs[lo:hi] {
		if s.nodes[v].out.dev == d {
			s.satisfy(v)
		}
	}
}

// send creates the transfer of producer's output from device src to dst.
func (s *sim) send(producer, src, dst int32, bytes int64) {
	t := int32(len(s.xfers))
	x := transfer{producer: producer, src: src, dst: dst, recv: buffer{bytes: bytes}, rec: -1}
	x.route, x.hops = s.route(src, dst)
	s.res.TransferCount++
	s.res.BytesMoved += bytes
	if s.trace != nil {
		x.rec = int32(len(s.trace.Transfers))
		id := s.un.id(producer)
		rec := TransferRecord{Producer: int(id.op), MicroBatch: int(id.mb), Replica: int(id.rep), Src: int(src), Dst: int(dst), Bytes: bytes}
		s.trace.Transfers = append(s.trace.Transfers, rec)
	}
	s.xfers = append(s.xfers, x)
	s.enqueueHop(t, 0)
}

// deliver lands transfer t on its destination: its consumers there may run.
func (s *sim) deliver(t int32) {
	x := &s.xfers[t]
	p, dst := x.producer, x.dst
	succs := s.succs[s.succStart[p]:s.succStart[p+1]]
	var n int32
	for _, v := range succs {
		if s.nodes[v].out.dev == dst {
			n++
		}
	}
	x.recv.readers = n
	for _, v := range succs {
		if s.nodes[v].out.dev == dst {
			s.satisfy(v)
		}
	}
	s.tryStart(dst)
}

// satisfy marks one dependency of v resident.
func (s *sim) satisfy(v int32) {
	if s.nodes[v].remaining--; s.nodes[v].remaining == 0 {
		s.makeReady(v)
	}
}

// releaseSource drops one reader of w's output on w's own device.
func (s *sim) releaseSource(w int32) {
	nd := &s.nodes[w]
	if nd.out.readers--; nd.out.readers == 0 {
		s.free(nd.out.dev, nd.out.bytes)
	}
}

// releaseRecv drops one reader of the copy of w's output on device d.
func (s *sim) releaseRecv(w, d int32) {
	nd := &s.nodes[w]
	for t := nd.xferFirst; t < nd.xferFirst+nd.xferN; t++ {
		if x := &s.xfers[t]; x.dst == d {
			if x.recv.readers--; x.recv.readers == 0 {
				s.free(d, x.recv.bytes)
			}
			return
		}
	}
}

// deadlock describes a run that ended with nodes that never ran (a safety
// net: orderDeadlock finds strict orders that cannot complete before).
func (s *sim) deadlock() error {
	n := len(s.nodes)
	return fmt.Errorf("%w: %d of %d ops never ran", ErrDeadlock, n-s.done, n)
}

func (s *sim) result() *Result {
	r := s.res
	r.StepTime = s.now
	if s.now > 0 {
		r.Throughput = float64(s.g.Batch) / s.now
	}
	for d, dev := range s.c.Devices {
		st := &s.streams[d]
		ds := DeviceStats{Name: dev.Name, Ops: st.ops, Busy: st.busyTime, ParamBytes: st.params,
			PeakMemory: s.mem[d].peak, Capacity: s.mem[d].capacity}
		if s.now > 0 {
			ds.Utilisation = st.busyTime / s.now
		}
		r.Devices = append(r.Devices, ds)
	}
	for lid := range s.links {
		lq := &s.links[lid]
		if lq.stats.Transfers == 0 {
			continue
		}
		l := s.c.Topology.Links[lid]
		lq.stats.From = s.c.Topology.Endpoints[l.From].Name
		lq.stats.To = s.c.Topology.Endpoints[l.To].Name
		lq.stats.Kind = l.Kind
		r.Links = append(r.Links, lq.stats)
	}
	if s.trace != nil {
		for d := range s.mem {
			s.trace.Memory = append(s.trace.Memory, s.mem[d].samples)
		}
		r.Trace = s.trace
	}
	if s.p.unrolledPlan() {
		s.un.result(s, r)
	}
	return r
}

// sortSmall sorts a short slice of device indices (insertion sort).
func sortSmall(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
