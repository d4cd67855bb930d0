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
	// MaxMemory bounds the memory the simulation itself may take (its
	// unrolled instances, edges and events), estimated before anything is
	// allocated: a plan above it is refused with ErrTooLarge. 0 means
	// DefaultMaxMemory; it must not be negative.
	MaxMemory int64
	// FullReplicas plays every data-parallel replica even where they are
	// identical. By default identical replicas are played once, by a
	// representative whose figures stand for every replica
	// (Result.Symmetry; the same iteration time and per-device peak
	// memory, see symmetry.go); a trace (Trace) plays every replica.
	FullReplicas bool
}

// sim is the state of one simulation: the unrolled nodes and their edges,
// the streams, links, transfers and memory ledgers, and the event queue.
type sim struct {
	g   *workloads.Graph
	c   *devices.Cluster
	p   *Plan
	opt Options
	un  *unrolled
	// lay is the pipeline and data-parallel layout Plan.validate built
	// (nil for a plain step: unroll builds the step's)
	lay *layout

	nodes []instance // what runs, with its state (see unroll.go)
	// remaining is each node's dependencies not yet resident on its
	// device (when 0, it is ready)
	remaining []int32
	// firstSide is the first side node: side nodes (collective steps,
	// weight stashes) follow the op instances (see unroll) and run off
	// the compute stream
	firstSide int32
	// prio is each node's ready-queue key (the highest runs first): the
	// plan's priority, or minus the node's position in its device's order;
	// nil when every node has the same (first ready, first run)
	prio []float64

	// successors (unique: several edges between two nodes are one
	// dependency), grouped by device (see wire): node x's consumers on its
	// own device are succs[nodes[x].succ:][:nodes[x].local], those on
	// another device follow, one group per transfer
	succs []int32
	// inputs lists what a node releases when it ends, node x's in
	// inputs[inAt[x]:inEnd[x]]: the producer's node for an input on its
	// device, transferInput(t) for transfer t's copy of an input from
	// another device
	// (control edges hold no buffer: not listed)
	inputs      []int32
	inAt, inEnd []int32
	roots       []int32 // the nodes without inputs, ascending
	recOf       []int32 // each transfer's index in trace.Transfers (with a trace)

	streams []stream
	links   []linkQueue
	xfers   []transfer
	mem     []ledger

	// the routes transfers use, copied on first use (see route): hops
	// holds their links, each route's ending in -1; a route is found by
	// device pair in routeAt (its start+1) on clusters of up to 64
	// devices, else in routeMap
	hops     []int32
	routeAt  []int32
	routeMap map[int32]int32

	readySeq uint64
	// warmAt: a node from which on a start reads the next block ahead
	// (see warm); warmEnd: the end of the nodes read ahead so far; sink:
	// what keeps warm's loads
	warmAt, warmEnd int32
	sink            int64
	// arena lends the large arrays above (see recycle)
	arena *arena

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
	// the ops' device classes are checked while their times are read
	lay, err := p.validate(g, c, false)
	if err != nil {
		return nil, err
	}
	if opt.MaxMemory < 0 {
		return nil, fmt.Errorf("%w: engine option MaxMemory = %d (valid range: >= 0; 0 = %d bytes)", ErrInvalidPlan, opt.MaxMemory, DefaultMaxMemory)
	}
	s := &sim{g: g, c: c, p: p, opt: opt, lay: lay, arena: arenas.Get().(*arena)}
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
	r := s.result()
	s.recycle()
	return r, nil
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
		s.routeAt = make([]int32, nd*nd)
	} else {
		s.routeMap = map[int32]int32{}
	}
	for d := range s.mem {
		s.mem[d].capacity = c.Devices[d].Memory
		if s.opt.Trace {
			s.mem[d].watch = -1
		}
	}
	s.res = &Result{}
	s.q.items = s.arena.events[:0]
	if s.opt.Trace {
		s.trace = &Trace{}
	}
	u, err := unroll(s.g, s.c, s.p, s.lay, s.opt.maxMemory(), s.arena, !s.opt.FullReplicas && !s.opt.Trace)
	if err != nil {
		return err
	}
	if u.reps > 1 && !s.opt.FullReplicas && s.opt.Trace {
		u.fallback = "a trace (Options.Trace) records every replica's transfers"
	}
	s.un = u
	s.params()
	s.nodes, s.firstSide = u.nodes, u.firstSide
	s.wire(u.succ)
	u.succ = csr{} // the arena's arrays, wired: not kept
	for d, o := range u.order {
		s.streams[d].order = o
	}
	s.prio = u.prio
	n := len(s.nodes)
	s.res.OpStart, s.res.OpEnd = make([]float64, n), make([]float64, n)
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
	for x := range s.prio {
		if s.isSide(int32(x)) {
			continue
		}
		switch d := s.nodes[x].out.dev; {
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
	for _, x := range s.roots {
		s.makeReady(x, s.nodes[x].out.dev)
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
		indeg[x] = s.remaining[x]
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
		for _, y := range s.successors(x) {
			release(y)
		}
		if nd := &s.nodes[x]; !s.isSide(x) {
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

// run processes events until none are left.
func (s *sim) run() {
	q := &s.q
	events := 0 // counted here, not in s.res: one memory write less per event
	for {
		var e *event
		if handInlined {
			// hand-inlined copy of eventQueue.next (one call less per
			// event); pinned by the enginereference build (handInlined)
			if q.taken {
				n := len(q.items) - 1
				last := q.items[n]
				q.items = q.items[:n]
				if n > 0 {
					q.down(0, last)
				}
			}
			if len(q.items) == 0 {
				q.taken = false
				s.res.Events += events
				return
			}
			q.taken = true
			e = &q.items[0]
		} else {
			var ok bool
			if e, ok = q.next(); !ok {
				s.res.Events += events
				return
			}
		}
		// the event stays at the heap's root only until the handler
		// schedules: its fields are read first
		s.now = e.time
		id, aux := e.id, e.aux
		events++
		switch e.kind() {
		case evOpEnd:
			s.opEnd(id)
		case evHopEnd:
			s.hopEnd(id, aux)
		case evHopHead:
			s.enqueueHop(id, aux+1)
		case evSideEnd:
			s.finish(id, s.un.mirror)
			s.tryStart(s.nodes[id].out.dev)
		}
	}
}

// isSide reports whether node x is a side node: it runs off the compute
// stream, as soon as it is ready.
func (s *sim) isSide(x int32) bool { return x >= s.firstSide }

// makeReady queues node x, which runs on device d, on d's stream (the
// caller calls tryStart), or starts a side node at once.
func (s *sim) makeReady(x, d int32) {
	if s.isSide(x) {
		s.startSide(x)
		return
	}
	var prio float64
	if s.prio != nil {
		prio = s.prio[x]
	}
	s.streams[d].ready.push(readyItem{prio: prio, seq: s.readySeq, op: x})
	s.readySeq++
}

// startSide starts a side node: it runs off the device's compute stream
// (a collective's step, a weight stash), so it starts as soon as it is ready.
func (s *sim) startSide(x int32) {
	s.res.OpStart[x] = s.now
	what := allocChunk
	if s.un.id(x).kind == NodeStash {
		what = allocStash
	}
	nd := &s.nodes[x]
	s.alloc(nd.out.dev, nd.out.bytes, x, what)
	s.q.schedule(s.now+nd.cost, evSideEnd, x, 0)
}

// tryStart starts the next node on device d if the stream is idle and has
// a ready node (see startNext).
func (s *sim) tryStart(d int32) {
	if st := &s.streams[d]; !st.busy && st.ready.len() > 0 {
		s.startNext(d)
	}
}

// startNext starts the next node on device d, an idle stream with ready
// nodes: the one with the highest priority, or under a strict order the
// next in order once it is ready.
func (s *sim) startNext(d int32) {
	st := &s.streams[d]
	if st.strict {
		if st.ready.top() != st.order[st.next] {
			return
		}
		st.next++
	}
	x := st.ready.pop()
	st.busy = true
	if x >= s.warmAt {
		s.warm(x)
	}
	s.res.OpStart[x] = s.now
	nd := &s.nodes[x]
	if m := &s.mem[d]; m.add(nd.out.bytes) {
		s.allocSlow(d, nd.out.bytes, x, allocOutput)
	}
	if m := &s.mem[d]; m.add(nd.temp) {
		s.allocSlow(d, nd.temp, x, allocTemp)
	}
	s.q.schedule(s.now+nd.cost, evOpEnd, x, 0)
}

// opEnd finishes node x on its stream and starts the next.
func (s *sim) opEnd(x int32) {
	nd := &s.nodes[x]
	st := &s.streams[nd.out.dev]
	st.busy = false
	st.busyTime += nd.cost
	s.finish(x, false)
	if handInlined {
		// hand-inlined copy of tryStart (it does not inline), less its
		// busy test: the stream is idle (finish starts nothing on it);
		// pinned by the enginereference build (handInlined)
		if st.ready.len() > 0 {
			s.startNext(nd.out.dev)
		}
	} else {
		s.tryStart(nd.out.dev)
	}
}

// finish completes node x (a stream node or a side node): frees its
// workspace and inputs, sends its output to every other device that has a
// consumer and wakes local consumers. The caller restarts the stream.
//
// sendFirst, for a side node when replica 0 stands for its peers
// (symmetry.go), sends before it releases the inputs. Its mirrored sends
// stand for its left neighbour's, which end the neighbour's step at this
// same instant; in the full simulation the neighbour's copy starts
// landing here before this replica's own end of step frees its inputs
// (the neighbours' events at one instant run in replica order), and the
// representative keeps that order.
func (s *sim) finish(x int32, sendFirst bool) {
	nd := &s.nodes[x]
	d := nd.out.dev
	s.res.OpEnd[x] = s.now
	s.done++
	s.free(d, nd.temp)
	if sendFirst {
		for t := nd.send; t < nd.send+nd.nSend; t++ {
			s.send(t)
		}
	}
	// release this node's inputs (unless sendFirst, before the sends):
	// memory freed at an instant is free for whatever starts at that instant
	for _, in := range s.inputs[s.inAt[x]:s.inEnd[x]] {
		if isTransferInput(in) {
			s.release(&s.xfers[inputTransfer(in)].recv)
		} else {
			s.release(&s.nodes[in].out)
		}
	}
	// the output's readers (local consumers, one send per remote device;
	// wire counted them) free it; without any it is freed now
	if nd.out.readers == 0 {
		s.free(d, nd.out.bytes)
	}
	if !sendFirst {
		for t := nd.send; t < nd.send+nd.nSend; t++ {
			s.send(t)
		}
	}
	// wake local consumers
	for _, v := range s.succs[nd.succ : nd.succ+nd.local] {
		s.satisfy(v, d)
	}
}

// successors is node x's successors: local ones, then those of each of
// its transfers.
func (s *sim) successors(x int32) []int32 {
	nd := &s.nodes[x]
	end := nd.succ + nd.local
	if nd.nSend > 0 {
		last := &s.xfers[nd.send+nd.nSend-1]
		end = last.first + last.n
	}
	return s.succs[nd.succ:end]
}

// send starts transfer t of its producer's output, which just ended.
func (s *sim) send(t int32) {
	x := &s.xfers[t]
	s.res.TransferCount++
	s.res.BytesMoved += x.recv.bytes
	if s.trace != nil {
		s.recOf[t] = int32(len(s.trace.Transfers))
		id := s.un.id(x.producer)
		rec := TransferRecord{Producer: int(id.op), MicroBatch: int(id.mb), Replica: int(id.rep),
			Src: int(s.nodes[x.producer].out.dev), Dst: int(x.recv.dev), Bytes: x.recv.bytes}
		s.trace.Transfers = append(s.trace.Transfers, rec)
	}
	s.enqueueHop(t, 0)
}

// deliver lands transfer t on its destination: its consumers there may run.
func (s *sim) deliver(t int32) {
	x := &s.xfers[t]
	x.recv.readers = x.n
	for _, v := range s.succs[x.first : x.first+x.n] {
		s.satisfy(v, x.recv.dev)
	}
	if handInlined {
		// hand-inlined copy of tryStart (it does not inline); pinned by
		// the enginereference build (handInlined)
		if st := &s.streams[x.recv.dev]; !st.busy && st.ready.len() > 0 {
			s.startNext(x.recv.dev)
		}
	} else {
		s.tryStart(x.recv.dev)
	}
}

// satisfy marks one dependency of v, which runs on device d, resident.
func (s *sim) satisfy(v, d int32) {
	if s.remaining[v]--; s.remaining[v] == 0 {
		s.makeReady(v, d)
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
		r.Throughput = float64(SamplesPerStep(s.g, s.p)) / s.now
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
		s.standFor(r)
		s.un.result(r)
	}
	return r
}

// warmLead and warmBlock set how far ahead warm reads: blocks of
// warmBlock nodes, from warmLead nodes after the node starting. A step's
// ops run close to their order in the graph (in BenchmarkSimulate's 100k
// DAG, 99 % start within 143 places of their index), so the nodes about
// to start are the next ones by index.
const (
	warmLead  = 256
	warmBlock = 64
)

// warm reads ahead, from node x+warmLead on, the next block of node
// records with their transfers, inputs, successors and start and end
// times. On a large graph these arrays were last touched when wire wrote
// them and are no longer in the caches; read one by one as nodes start,
// each is a cache miss the run loop waits for (at 100k ops most of the
// difference in time per op from 10k). Read in a tight loop whose loads
// do not depend on each other, a block's lines come from memory together,
// and the run finds them in the cache. Only reads: the sum goes to
// s.sink so that the loads are kept. Where the nodes do not start in
// index order (pipelines, whose instances are numbered by op), a block is
// read at most once, ahead of the highest node started: at worst one
// extra pass over the arrays.
func (s *sim) warm(x int32) {
	from := max(s.warmEnd, x+warmLead)
	to := min(from+warmBlock, int32(len(s.nodes)))
	s.warmAt = from + warmBlock - warmLead
	if from >= to {
		s.warmAt = int32(len(s.nodes)) // nothing left: never again
		return
	}
	s.warmEnd = to
	var sum int64
	nodes := s.nodes[from:to]
	for i := range nodes {
		sum += nodes[i].temp
	}
	// their transfers, inputs and successors follow each other in node order
	first, last := &nodes[0], &nodes[len(nodes)-1]
	xfers := s.xfers[first.send : last.send+last.nSend]
	for i := range xfers {
		sum += xfers[i].recv.bytes
	}
	const perLine = 16 // int32s per cache line
	in := s.inputs[s.inAt[from]:s.inEnd[to-1]]
	for i := 0; i < len(in); i += perLine {
		sum += int64(in[i])
	}
	for _, at := range [2][]int32{s.inAt[from:to], s.inEnd[from:to]} {
		for i := 0; i < len(at); i += perLine {
			sum += int64(at[i])
		}
	}
	succ := s.succs[first.succ:min(int(last.succ)+perLine, len(s.succs))]
	for i := 0; i < len(succ); i += perLine {
		sum += int64(succ[i])
	}
	for _, times := range [2][]float64{s.res.OpStart[from:to], s.res.OpEnd[from:to]} {
		for i := 0; i < len(times); i += perLine / 2 {
			sum += int64(times[i])
		}
	}
	s.sink += sum
}

// SamplesPerStep is the number of samples one simulated step of plan p
// processes: the graph's batch, which micro-batches and replicas share;
// but for a graph of one sample (Batch <= 1: its costs are one sample's,
// as msr-fiddle's files give them, Tarnawski et al. section 3), which
// cannot be cut, each micro-batch of each replica is a whole sample at
// the graph's costs, and a step of m micro-batches on r replicas
// processes m x r samples.
func SamplesPerStep(g *workloads.Graph, p *Plan) int {
	if g.Batch > 1 {
		return g.Batch
	}
	n := 1
	if p != nil && p.Pipeline != nil && p.Pipeline.MicroBatches > 1 {
		n = p.Pipeline.MicroBatches
	}
	if p != nil && p.DataParallel != nil && p.DataParallel.Replicas > 1 {
		n *= p.DataParallel.Replicas
	}
	return n
}
