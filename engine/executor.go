package engine

import (
	"fmt"

	"placesim/devices"
	"placesim/workloads"
)

// Options tune a simulation.
type Options struct {
	// Trace records every transfer hop and each device's memory timeline
	// in Result.Trace (costs memory; off for benchmarks and searches).
	Trace bool
}

// sim is the state of one simulation.
type sim struct {
	g   *workloads.Graph
	c   *devices.Cluster
	p   *Plan
	opt Options

	dev   []int32   // op -> device
	cost  []float64 // true op time on its device
	outB  []int64   // op output bytes
	tempB []int64   // op workspace bytes

	// unique predecessors and successors (CSR), so that several edges
	// between the same two ops count as one dependency
	predStart, preds []int32
	succStart, succs []int32
	succBytes        []int64 // largest edge's bytes to each unique successor

	remaining []int32 // dependencies not yet resident
	srcRef    []int32 // readers of an op's output buffer still to finish
	xferFirst []int32 // first transfer of an op's output (-1: none)
	xferN     []int32

	streams []stream
	links   []linkQueue
	xfers   []transfer
	mem     []ledger

	// scratch for grouping an op's remote consumers by device
	devMark  []int32
	devBytes []int64

	prio     []float64 // priority by node (the plan's), or nil
	remote   []int32   // scratch: remote devices of one op's consumers
	readySeq uint64

	// relax plays the streams' orders as priorities (see Simulate); pos is
	// each node's position in its device's order
	relax bool
	pos   []int32

	q     eventQueue
	now   float64
	done  int
	res   *Result
	trace *Trace

	// set only when the plan is unrolled (a pipeline or data parallelism,
	// see unroll.go): the arrays above are then indexed by node, an
	// (op, micro-batch, replica) instance or a side node
	side []bool // the node runs off the compute stream (collective steps)
	un   *unrolled
}

// stream is a device's compute stream with its ready ops.
type stream struct {
	busy     bool
	fifo     []int32 // ready ops when the plan has no priorities
	head     int
	pq       readyHeap // ready ops when it has
	order    []int     // strict order, when the plan has one
	orderPos int
	busyTime float64
	ops      int
	params   int64
}

// Simulate plays one step of plan p for graph g on cluster c. The graph must
// be valid (see workloads.Graph.Validate). A run that exceeds a device's
// memory returns a Result with OOM set and no error; errors are for plans
// that do not fit the graph or cluster.
func Simulate(g *workloads.Graph, c *devices.Cluster, p *Plan, opt Options) (*Result, error) {
	g = p.graphFor(g)
	if err := p.Validate(g, c); err != nil {
		return nil, err
	}
	s := &sim{g: g, c: c, p: p, opt: opt}
	if err := s.init(); err != nil {
		return nil, err
	}
	s.run()
	if s.done < len(s.dev) {
		err := s.deadlock()
		if (p.Pipeline == nil && p.DataParallel == nil) || p.Order != nil {
			return nil, err
		}
		// The schedule's strict order comes from the ops' roles and the
		// stage order; a graph whose dependencies run against them (a
		// backward op fed from a later stage's forward of another
		// micro-batch, parts interleaved by a non-contiguous split) can make
		// it wait forever. Play it again with the order as a priority: each
		// device runs the ready instance that comes first in its schedule.
		s = &sim{g: g, c: c, p: p, opt: opt, relax: true}
		if err := s.init(); err != nil {
			return nil, err
		}
		s.run()
		if s.done < len(s.dev) {
			return nil, s.deadlock()
		}
		r := s.result()
		r.OrderRelaxed = err.Error()
		return r, nil
	}
	return s.result(), nil
}

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
	var err error
	if s.p.Pipeline != nil || s.p.DataParallel != nil {
		err = s.unroll()
	} else {
		err = s.initOps()
	}
	if err != nil {
		return err
	}
	n := len(s.dev)
	s.res.OpStart, s.res.OpEnd = make([]float64, n), make([]float64, n)
	s.xfers = make([]transfer, 0, s.countTransfers())
	s.remaining = make([]int32, n)
	s.srcRef = make([]int32, n)
	s.xferFirst = make([]int32, n)
	s.xferN = make([]int32, n)
	for i := 0; i < n; i++ {
		s.remaining[i] = s.predStart[i+1] - s.predStart[i]
		s.xferFirst[i] = -1
	}
	if s.relax {
		s.pos = make([]int32, n)
		for d := range s.streams {
			for i, v := range s.streams[d].order {
				s.pos[v] = int32(i)
			}
		}
	}
	for i := 0; i < n; i++ {
		if s.remaining[i] == 0 {
			s.makeReady(int32(i))
		}
	}
	for d := range s.streams {
		s.tryStart(int32(d))
	}
	return nil
}

// initOps sets up a plain plan: one node per op.
func (s *sim) initOps() error {
	g, c := s.g, s.c
	n := len(g.Ops)
	s.dev = make([]int32, n)
	s.cost = make([]float64, n)
	s.outB = make([]int64, n)
	s.tempB = make([]int64, n)
	for i := range g.Ops {
		d := s.p.Device[i]
		s.dev[i] = int32(d)
		t, err := devices.OpTime(&g.Ops[i], &c.Devices[d].Kind)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidPlan, err)
		}
		s.cost[i] = t
		s.outB[i] = g.Ops[i].OutputBytes
		s.tempB[i] = g.Ops[i].TempBytes
	}
	s.buildAdjacency()
	s.prio = s.p.Priority
	if s.p.Order != nil {
		for d := range s.streams {
			s.streams[d].order = s.p.Order[d]
		}
	}
	// parameters are resident from the start
	for i := range g.Ops {
		st := &s.streams[s.dev[i]]
		st.ops++
		st.params += g.Ops[i].ParamBytes
		s.alloc(s.dev[i], g.Ops[i].ParamBytes, int32(i), "parameters")
	}
	return nil
}

// buildAdjacency builds the unique predecessor and successor lists.
func (s *sim) buildAdjacency() {
	g := s.g
	n := len(g.Ops)
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	s.predStart = make([]int32, n+1)
	s.succStart = make([]int32, n+1)
	s.preds = make([]int32, 0, len(g.Edges))
	s.succs = make([]int32, 0, len(g.Edges))
	s.succBytes = make([]int64, 0, len(g.Edges))
	pos := make([]int32, n) // index in succs of (u, v) while scanning u
	for v := 0; v < n; v++ {
		s.predStart[v] = int32(len(s.preds))
		for _, eid := range g.In(v) {
			u := int32(g.Edges[eid].From)
			if mark[u] != int32(v) {
				mark[u] = int32(v)
				s.preds = append(s.preds, u)
			}
		}
	}
	s.predStart[n] = int32(len(s.preds))
	for i := range mark {
		mark[i] = -1
	}
	for u := 0; u < n; u++ {
		s.succStart[u] = int32(len(s.succs))
		for _, eid := range g.Out(u) {
			e := &g.Edges[eid]
			v := int32(e.To)
			if mark[v] != int32(u) {
				mark[v] = int32(u)
				pos[v] = int32(len(s.succs))
				s.succs = append(s.succs, v)
				s.succBytes = append(s.succBytes, e.Bytes)
			} else if e.Bytes > s.succBytes[pos[v]] {
				s.succBytes[pos[v]] = e.Bytes
			}
		}
	}
	s.succStart[n] = int32(len(s.succs))
}

// countTransfers is the number of (producer, remote device) pairs: the
// exact number of transfers the run will make.
func (s *sim) countTransfers() int {
	n := 0
	for u := range s.dev {
		for _, v := range s.succs[s.succStart[u]:s.succStart[u+1]] {
			if dv := s.dev[v]; dv != s.dev[u] && s.devMark[dv] != int32(u) {
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
	for s.q.Len() > 0 {
		e := s.q.next()
		s.now = e.time
		s.res.Events++
		switch e.kind {
		case evOpEnd:
			s.opEnd(e.id)
		case evHopEnd:
			s.hopEnd(e.id, e.aux)
		case evHopHead:
			s.enqueueHop(e.id, e.aux+1)
		case evSideEnd:
			s.finish(e.id)
			s.tryStart(s.dev[e.id])
		}
	}
}

// makeReady queues op on its device's stream; the caller calls tryStart.
func (s *sim) makeReady(op int32) {
	if s.side != nil && s.side[op] {
		s.startSide(op)
		return
	}
	st := &s.streams[s.dev[op]]
	switch {
	case st.order != nil && s.relax:
		st.pq.push(readyItem{prio: -float64(s.pos[op]), seq: s.readySeq, op: op})
		s.readySeq++
	case st.order != nil:
		// readiness is remaining == 0; tryStart checks the next in order
	case s.prio != nil:
		st.pq.push(readyItem{prio: s.prio[op], seq: s.readySeq, op: op})
		s.readySeq++
	default:
		st.fifo = append(st.fifo, op)
	}
}

// startSide starts a side node: it runs off the device's compute stream
// (a collective's step, a weight stash), so it starts as soon as it is ready.
func (s *sim) startSide(op int32) {
	s.res.OpStart[op] = s.now
	what := "all-reduce chunk"
	if s.un.kind[op] == NodeStash {
		what = "weight stash"
	}
	s.alloc(s.dev[op], s.outB[op], op, what)
	s.q.schedule(s.now+s.cost[op], evSideEnd, op, 0)
}

// tryStart starts the next op on device d if the stream is idle.
func (s *sim) tryStart(d int32) {
	st := &s.streams[d]
	if st.busy {
		return
	}
	var op int32
	switch {
	case st.order != nil && s.relax:
		if st.pq.len() == 0 {
			return
		}
		op = st.pq.pop().op
	case st.order != nil:
		if st.orderPos >= len(st.order) {
			return
		}
		op = int32(st.order[st.orderPos])
		if s.remaining[op] != 0 {
			return
		}
		st.orderPos++
	case s.prio != nil:
		if st.pq.len() == 0 {
			return
		}
		op = st.pq.pop().op
	default:
		if st.head == len(st.fifo) {
			return
		}
		op = st.fifo[st.head]
		st.head++
		if st.head == len(st.fifo) {
			st.fifo, st.head = st.fifo[:0], 0
		}
	}
	st.busy = true
	s.res.OpStart[op] = s.now
	s.alloc(d, s.outB[op], op, "output")
	s.alloc(d, s.tempB[op], op, "temp")
	s.q.schedule(s.now+s.cost[op], evOpEnd, op, 0)
}

// opEnd finishes op: wakes local consumers, sends the output to every
// other device that has a consumer, and releases inputs.
func (s *sim) opEnd(op int32) {
	d := s.dev[op]
	st := &s.streams[d]
	st.busy = false
	st.busyTime += s.cost[op]
	s.finish(op)
	s.tryStart(d)
}

// finish completes op (a stream op or a side node): frees its workspace
// and inputs, sends its output to every other device that has a consumer
// and wakes local consumers. The caller restarts the stream.
func (s *sim) finish(op int32) {
	d := s.dev[op]
	s.res.OpEnd[op] = s.now
	s.done++
	s.free(d, s.tempB[op])
	// release this op's inputs first: memory freed at an instant is free
	// for whatever starts at that instant
	for _, u := range s.preds[s.predStart[op]:s.predStart[op+1]] {
		if s.dev[u] == d {
			s.releaseSource(u)
		} else {
			s.releaseRecv(u, d)
		}
	}

	// the output's readers: local consumers, one send per remote device
	var refs int32
	remote := s.remote[:0]
	lo, hi := s.succStart[op], s.succStart[op+1]
	for i, v := range s.succs[lo:hi] {
		dv := s.dev[v]
		if dv == d {
			refs++
			continue
		}
		if s.devMark[dv] != op {
			s.devMark[dv] = op
			s.devBytes[dv] = 0
			remote = append(remote, dv)
		}
		if b := s.succBytes[int(lo)+i]; b > s.devBytes[dv] {
			s.devBytes[dv] = b
		}
	}
	if len(remote) > 0 {
		sortSmall(remote)
		s.xferFirst[op] = int32(len(s.xfers))
		s.xferN[op] = int32(len(remote))
		refs += int32(len(remote))
	}
	s.remote = remote
	s.srcRef[op] = refs
	if refs == 0 {
		s.free(d, s.outB[op])
	}
	for _, dv := range remote {
		s.send(op, d, dv, s.devBytes[dv])
	}
	// wake local consumers
	for _, v := range s.succs[s.succStart[op]:s.succStart[op+1]] {
		if s.dev[v] == d {
			s.satisfy(v)
		}
	}
}

// send creates the transfer of producer's output from device src to dst.
func (s *sim) send(producer, src, dst int32, bytes int64) {
	t := int32(len(s.xfers))
	x := transfer{producer: producer, src: src, dst: dst, bytes: bytes,
		route: s.c.Route(int(src), int(dst)), rec: -1}
	s.res.TransferCount++
	s.res.BytesMoved += bytes
	if s.trace != nil {
		x.rec = int32(len(s.trace.Transfers))
		rec := TransferRecord{Producer: int(producer), Src: int(src), Dst: int(dst), Bytes: bytes}
		if s.un != nil {
			rec.Producer, rec.MicroBatch, rec.Replica = s.un.instance(producer)
		}
		s.trace.Transfers = append(s.trace.Transfers, rec)
	}
	s.xfers = append(s.xfers, x)
	s.enqueueHop(t, 0)
}

// deliver lands transfer t on its destination: its consumers there may run.
func (s *sim) deliver(t int32) {
	x := &s.xfers[t]
	p := x.producer
	var n int32
	for _, v := range s.succs[s.succStart[p]:s.succStart[p+1]] {
		if s.dev[v] == x.dst {
			n++
		}
	}
	x.recvRef = n
	dst := x.dst
	for _, v := range s.succs[s.succStart[p]:s.succStart[p+1]] {
		if s.dev[v] == dst {
			s.satisfy(v)
		}
	}
	s.tryStart(dst)
}

// satisfy marks one dependency of v resident.
func (s *sim) satisfy(v int32) {
	if s.remaining[v]--; s.remaining[v] == 0 {
		s.makeReady(v)
	}
}

// releaseSource drops one reader of u's output on u's own device.
func (s *sim) releaseSource(u int32) {
	if s.srcRef[u]--; s.srcRef[u] == 0 {
		s.free(s.dev[u], s.outB[u])
	}
}

// releaseRecv drops one reader of the copy of u's output on device d.
func (s *sim) releaseRecv(u, d int32) {
	first, n := s.xferFirst[u], s.xferN[u]
	for t := first; t < first+n; t++ {
		if x := &s.xfers[t]; x.dst == d {
			if x.recvRef--; x.recvRef == 0 {
				s.free(d, x.bytes)
			}
			return
		}
	}
}

func (s *sim) deadlock() error {
	n := len(s.dev)
	for d, st := range s.streams {
		if st.order != nil && st.orderPos < len(st.order) {
			op := int32(st.order[st.orderPos])
			return fmt.Errorf("%w: %d of %d ops never ran; device %s waits for op %q, next in its order, whose inputs never arrive",
				ErrDeadlock, n-s.done, n, s.c.Devices[d].Name, s.nodeName(op))
		}
	}
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
	if s.un != nil {
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
