package engine

import (
	"fmt"

	"placesim/devices"
	"placesim/workloads"
)

// instance is one node the executor plays: an op instance for one
// micro-batch and replica, a recomputed forward op, or a side node (a
// collective step, a weight stash) that runs off the compute stream. It
// holds its costs, where its successors and transfers are (see wire) and
// its state during the run, in 48 bytes, contiguous in sim.nodes: the
// executor reads a node's record, not one entry in each of a dozen
// arrays. Its count of dependencies not yet resident is apart, in
// sim.remaining: the executor counts them down in an order of its own,
// long before the node runs.
type instance struct {
	cost float64 // true time on its device
	temp int64   // workspace while it runs
	out  buffer  // its output, on the device it runs on (out.dev)
	// its successors are sim.succs[succ:]: local on its own device, then
	// those of each of its transfers, sim.xfers[send:send+nSend]
	succ, local, send, nSend int32
	// its inputs (what it releases when it ends) are
	// sim.inputs[sim.inAt[x]:sim.inEnd[x]], apart from the record
}

// buffer is a tensor held on one device until its last reader is done.
type buffer struct {
	bytes   int64
	readers int32 // consumers (and sends) still to finish
	dev     int32
}

// instanceID says what a node is: which op, micro-batch and replica (op -1
// for a side node; micro-batch -1 for an op that runs once per step).
type instanceID struct {
	op, mb, rep int32
	kind        NodeKind
}

// sideEdge is a dependency into or out of a side node. A control edge
// orders its nodes (on one device) but holds no buffer: the consumer is
// not a reader of the producer's output.
//
// A mirrored edge (via > 0, only when replica 0 stands for identical
// peers) is the transfer its consumer receives from a peer: by symmetry
// it is played as the representative's own transfer to its peer on
// device via-1 (the same route, up to the peers' symmetry, at the same
// time), whose copy lands on the consumer's device.
type sideEdge struct {
	from, to int32
	bytes    int64
	control  bool
	via      int32
}

// unrolled derives the nodes of a plan for its execution regime: a step
// (every op once: node = op), a pipeline (every op per micro-batch, update
// ops once or per micro-batch, recomputed forward ops), data parallelism
// (every replica), with side nodes for all-reduces and weight stashes.
// Nodes are laid out replica by replica as
//
//	[m x per-micro-batch ops][once ops][m x recomputed ops]
//
// so that a node's index is arithmetic on (op, micro-batch, replica) and no
// graph is copied; side nodes follow.
type unrolled struct {
	l    *layout
	c    *devices.Cluster
	g    *workloads.Graph
	plan *Plan
	step bool // a plain step: node = op, no tables (see identity)
	n, m int
	reps int
	// played is the replicas whose nodes exist: reps, or 1 when replica
	// 0 stands for its identical peers (see symmetry.go)
	played int
	scale  int     // a per-micro-batch op's share of a replica's batch: m x reps
	once   []bool  // op runs once per step (an update op outside PipeDream)
	rec    []bool  // op is a recomputed forward op
	idx    []int32 // op -> index among per-micro-batch or once ops
	recIdx []int32 // op -> index among recomputed ops (-1: none)
	nPer   int
	nOnce  int
	nRec   int
	block  int // nodes per replica

	// op-level unique predecessors and successors with the largest edge's
	// bytes (several edges between two ops are one dependency)
	opPredStart, opPreds []int32
	opPredBytes          []int64

	nodes []instance
	dev   []int32 // each node's device (its out.dev), compact for wire
	ids   []instanceID
	sides []sideEdge // edges into side nodes and out of them

	// each stage's ops by role, in topological order
	fwdOps, bwdOps, updOps, recOps [][]int32

	// peers, when replica 0 stands for the others, is what the symmetry
	// check reads: each class of transfers every replica makes alike (see
	// peerClass); asym says why the replicas are not identical after all
	// (the full unroll is then played) and images each of its links'
	// counterparts in every replica (see checkPeers)
	peers  []peerClass
	asym   string
	mirror bool // some side edge is a mirrored transfer (sideEdge.via)
	images map[int32][]int32
	// fallback says why every replica was played though the caller let
	// identical ones be played once ("" when they were, or not asked)
	fallback string

	versions []int            // most weight versions kept by each stage
	ars      []allReduceNodes // all-reduces, for the statistics
	// base is every op instance's cost before the data-parallel model's
	// charges (slowest GPU, bucket copies, contention), and straggle the
	// slowdown given to the slowest replica (slowestReplica)
	base     []float64
	straggle float64

	// the table unroll returns beside the nodes: where the side nodes
	// start, the nodes' unique successors, each device's order of nodes
	// (nil: none) and the nodes' priorities (nil: none)
	firstSide int32
	succ      csr
	order     [][]int32
	prio      []float64
}

// NodeKind says what an unrolled node is.
type NodeKind uint8

// Node kinds of an unrolled plan.
const (
	// NodeCompute is an op instance for one micro-batch and replica.
	NodeCompute NodeKind = iota
	// NodeRecompute is a forward op run again before its backward.
	NodeRecompute
	// NodeAllReduce is a step of a ring all-reduce (zero compute time;
	// its output is the chunk sent to the next replica).
	NodeAllReduce
	// NodeStash holds a stashed weight version (PipeDream).
	NodeStash
)

func (k NodeKind) String() string {
	switch k {
	case NodeCompute:
		return "compute"
	case NodeRecompute:
		return "recompute"
	case NodeAllReduce:
		return "all-reduce"
	case NodeStash:
		return "stash"
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// unrolledPlan reports whether p is played as more than one instance per
// op (a pipeline or data parallelism).
func (p *Plan) unrolledPlan() bool { return p.Pipeline != nil || p.DataParallel != nil }

// node is the node of op v for micro-batch mb on replica r (the single
// node of a once op, whatever mb).
func (u *unrolled) node(v int32, mb, r int) int32 {
	if u.step {
		return v
	}
	if u.once[v] {
		return int32(r*u.block + u.m*u.nPer + int(u.idx[v]))
	}
	return int32(r*u.block + mb*u.nPer + int(u.idx[v]))
}

// recNode is the recomputation of forward op v for mb on replica r.
func (u *unrolled) recNode(v int32, mb, r int) int32 {
	return int32(r*u.block + u.m*u.nPer + u.nOnce + mb*u.nRec + int(u.recIdx[v]))
}

// source is the node whose output consumer op v (a node of kind
// NodeCompute for mb, or a recomputation when recomp) reads from op w: the
// recomputed copy when w is recomputed on the same stage and the consumer
// is a recomputation or not a forward op (a backward reads the stage's
// activations again after the recompute).
func (u *unrolled) source(w, v int32, mb, r int, recomp bool) int32 {
	if u.rec[w] && u.l.stageOf[w] == u.l.stageOf[v] && (recomp || u.g.Ops[v].Role != workloads.Forward) {
		return u.recNode(w, mb, r)
	}
	return u.node(w, mb, r)
}

// unroll derives the node table of plan p for graph g on cluster c, the
// one place where an execution regime becomes a graph of instances: the
// nodes with their costs, devices and identities, their unique successors
// (succ), each device's order of nodes and the nodes' priorities. It is a
// pure function of its arguments: it reads lay (the layout Plan.validate
// built; nil builds it) and writes only the arrays it borrows from a. The
// simulation then allocates the parameters (sim.params), wires the
// successors and takes the orders (sim.init).
//
// With bySymmetry, identical data-parallel replicas are played once:
// replica 0 stands for the others (see symmetry.go); where they are not
// identical the full unroll is returned with the reason (u.fallback).
func unroll(g *workloads.Graph, c *devices.Cluster, p *Plan, lay *layout, maxMemory int64, a *arena, bySymmetry bool) (*unrolled, error) {
	l := lay
	if l == nil {
		var err error
		if l, err = p.layout(g, c); err != nil {
			return nil, err
		}
	}
	if !bySymmetry || l.reps < 2 {
		return unrollAs(g, c, p, l, maxMemory, a, l.reps)
	}
	why := replicasDiffer(c, p, l)
	if why == "" {
		u, err := unrollAs(g, c, p, l, maxMemory, a, 1)
		if err != nil {
			return nil, err
		}
		if u.asym == "" {
			return u, nil
		}
		why = u.asym
	}
	u, err := unrollAs(g, c, p, l, maxMemory, a, l.reps)
	if err != nil {
		return nil, err
	}
	u.fallback = why
	return u, nil
}

// unrollAs is unroll with the nodes of played replicas: every replica,
// or 1 (replica 0 standing for its peers; u.asym then says when they turn
// out not to be identical).
func unrollAs(g *workloads.Graph, c *devices.Cluster, p *Plan, l *layout, maxMemory int64, a *arena, played int) (*unrolled, error) {
	n := len(g.Ops)
	u := &unrolled{l: l, c: c, g: g, plan: p, step: !p.unrolledPlan(), n: n, m: l.m, reps: l.reps, played: played, scale: l.m * l.reps}
	if g.Batch <= 1 {
		// a graph of one sample (msr-fiddle's per-sample costs): every
		// micro-batch and replica plays a whole sample, see SamplesPerStep
		u.scale = 1
	}
	u.opAdjacency()
	u.classify()
	if err := u.checkSize(maxMemory); err != nil {
		return nil, err
	}
	if l.stages != nil {
		u.roles()
	}
	total := u.played * u.block
	if u.step {
		// instances writes every op's node and device
		u.nodes = grow(&a.nodes, total, total)
		u.dev = grow(&a.dev, total, total)
	} else {
		u.nodes = reuse(&a.nodes, total, total+total/8)
		u.dev = reuse(&a.dev, total, total+total/8)
		u.ids = reuse(&a.ids, total, total+total/8)
	}
	if err := u.instances(); err != nil {
		return nil, err
	}
	// side nodes: weight stashes, all-reduces
	u.versions = make([]int, len(l.stages))
	for st := range l.stages {
		u.versions[st] = 1
		if l.sched == PipeDream {
			u.addStash(st)
		}
	}
	if u.reps > 1 {
		u.base = append([]float64(nil), costs(u.nodes)...)
		u.slowestReplica()
		u.addAllReduces()
		if u.played < u.reps {
			if u.asym == "" {
				u.asym = u.checkPeers()
			}
			if u.asym != "" {
				return u, nil // not identical: unroll plays every replica
			}
		}
	}
	u.firstSide = int32(total)
	if u.step {
		// a step: the op graph is the node graph
		u.succ = stepSuccessors(g, a)
	} else {
		u.succ = u.adjacency()
	}
	u.order = make([][]int32, len(c.Devices))
	if l.sched != "" {
		u.orders()
	} else {
		u.planOrder()
	}
	return u, nil
}

// id says what node x is; a plain step keeps no table (node x is op x).
func (u *unrolled) id(x int32) instanceID {
	if u.ids == nil {
		return instanceID{op: x}
	}
	return u.ids[x]
}

// opAdjacency takes, for an unrolled plan, each op's unique predecessors
// with the largest edge's bytes (workloads.Graph.UniquePreds: several
// edges between two ops are one dependency). A step needs none: its nodes
// are the ops (see stepSuccessors).
func (u *unrolled) opAdjacency() {
	if u.step {
		return
	}
	d := u.g.UniquePreds()
	u.opPredStart, u.opPreds, u.opPredBytes = d.Start, d.Ops, d.Bytes
}

// classify decides which ops run once, which are recomputed, and numbers
// them.
func (u *unrolled) classify() {
	g, l := u.g, u.l
	if u.step {
		u.nPer, u.block = u.n, u.n
		return
	}
	u.once = make([]bool, u.n)
	u.rec = make([]bool, u.n)
	u.idx = make([]int32, u.n)
	u.recIdx = make([]int32, u.n)
	unrolled := u.plan.unrolledPlan()
	for v := range g.Ops {
		op := &g.Ops[v]
		u.once[v] = unrolled && op.Role == workloads.Update && l.sched != PipeDream
		u.rec[v] = l.recompute && op.Role == workloads.Forward && u.opPredStart[v+1] > u.opPredStart[v]
		u.recIdx[v] = -1
		if u.once[v] {
			u.idx[v] = int32(u.nOnce)
			u.nOnce++
		} else {
			u.idx[v] = int32(u.nPer)
			u.nPer++
		}
		if u.rec[v] {
			u.recIdx[v] = int32(u.nRec)
			u.nRec++
		}
	}
	u.block = u.m*u.nPer + u.nOnce + u.m*u.nRec
}

// scaled reports whether op v's costs are per micro-batch (divided by the
// scale): every op but an update op.
func (u *unrolled) scaled(v int32) bool { return u.g.Ops[v].Role != workloads.Update }

// divUp is b / k rounded up.
func divUp(b int64, k int) int64 {
	if k == 1 {
		return b
	}
	return (b + int64(k) - 1) / int64(k)
}

// instances fills every op instance's identity, device, time, output and
// workspace.
func (u *unrolled) instances() error {
	g, l := u.g, u.l
	for r := 0; r < u.played; r++ {
		for vi := range g.Ops {
			v := int32(vi)
			op := &g.Ops[v]
			d := l.dev(r, u.plan.Device[v])
			if op.CPUOnly && u.c.Devices[d].Kind.Class != devices.CPU {
				return cpuOnlyError(op, &u.c.Devices[d])
			}
			k := 1
			if u.scale > 1 && u.scaled(v) { // (a step reads no role)
				k = u.scale
			}
			t, err := scaledOpTime(op, &u.c.Devices[d].Kind, k)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalidPlan, err)
			}
			in := instance{cost: t, out: buffer{bytes: divUp(op.OutputBytes, k), dev: int32(d)}, temp: divUp(op.TempBytes, k)}
			switch {
			case u.step:
				u.nodes[v], u.dev[v] = in, int32(d)
			case u.once[v]:
				x := u.node(v, 0, r)
				u.nodes[x], u.ids[x], u.dev[x] = in, instanceID{op: v, mb: -1, rep: int32(r)}, int32(d)
			default:
				for mb := 0; mb < u.m; mb++ {
					x := u.node(v, mb, r)
					u.nodes[x], u.ids[x], u.dev[x] = in, instanceID{op: v, mb: int32(mb), rep: int32(r)}, int32(d)
					if u.rec[v] {
						y := u.recNode(v, mb, r)
						u.nodes[y], u.ids[y], u.dev[y] = in, instanceID{op: v, mb: int32(mb), rep: int32(r), kind: NodeRecompute}, int32(d)
					}
				}
			}
		}
	}
	return nil
}

// params counts every op instance on its device's stream and allocates
// the parameters: resident on every replica's device from the start, in
// the order of the replicas, then the ops.
func (s *sim) params() {
	u := s.un
	ops := u.g.Ops
	if u.step {
		// node v is op v, on u.dev[v]
		for v := range ops {
			d, b := u.dev[v], ops[v].ParamBytes
			st := &s.streams[d]
			st.ops++
			st.params += b
			// alloc, written out as the hot paths do (alloc does not inline)
			if m := &s.mem[d]; m.add(b) {
				s.allocSlow(d, b, int32(v), allocParams)
			}
		}
		return
	}
	for r := 0; r < u.played; r++ {
		for vi := range u.g.Ops {
			v := int32(vi)
			op := &u.g.Ops[v]
			d := u.l.dev(r, u.plan.Device[v])
			st := &s.streams[d]
			st.ops++
			st.params += op.ParamBytes
			s.alloc(int32(d), op.ParamBytes, u.node(v, 0, r), allocParams)
		}
	}
}

// scaledOpTime is op's time on kind k for 1/scale of its batch: a measured
// time (devices.MeasuredTime, with the kind's MeasuredScale) divided by
// scale, else the roofline on FLOPs/scale and bytes with the full launch
// overhead, where the bytes are the op's FixedBytes (whole tensors that do
// not shrink with the batch) plus the rest divided by scale.
func scaledOpTime(op *workloads.Op, k *devices.Kind, scale int) (float64, error) {
	// a measured time first, as OpTime would (a CPU-only op on an
	// accelerator is OpTime's error)
	if !op.CPUOnly || k.Class == devices.CPU {
		if t, ok := devices.MeasuredTime(op, k); ok {
			if scale == 1 {
				return t, nil
			}
			return t / float64(scale), nil
		}
	}
	if scale == 1 {
		return devices.OpTime(op, k)
	}
	cp := *op
	cp.Measured = nil
	cp.FLOPs /= float64(scale)
	cp.BytesAccessed = workloads.BatchShareBytes(op.BytesAccessed, op.FixedBytes, scale)
	return devices.OpTime(&cp, k)
}

// addSide appends a side node (it runs off the compute stream) on device
// d with an output of out bytes, and returns its ID.
func (u *unrolled) addSide(k NodeKind, d int, out int64, mb, r int) int32 {
	x := int32(len(u.nodes))
	u.nodes = append(u.nodes, instance{out: buffer{bytes: out, dev: int32(d)}})
	u.dev = append(u.dev, int32(d))
	u.ids = append(u.ids, instanceID{op: -1, mb: int32(mb), rep: int32(r), kind: k})
	return x
}

// edge adds a dependency from node a to node b carrying bytes when they
// are on different devices.
func (u *unrolled) edge(a, b int32, bytes int64) {
	u.sides = append(u.sides, sideEdge{from: a, to: b, bytes: bytes})
}

// mirrored adds a mirrored edge from node a to node b, both on the
// representative's device: the transfer of bytes that b receives from a
// peer, played as a's transfer to the peer on device via (see sideEdge).
func (u *unrolled) mirrored(a, b int32, bytes int64, via int) {
	u.sides = append(u.sides, sideEdge{from: a, to: b, bytes: bytes, via: int32(via) + 1})
	u.mirror = true
}

// control adds a control edge: b runs after a, on the same device, and a's
// output is not kept for b.
func (u *unrolled) control(a, b int32) {
	u.sides = append(u.sides, sideEdge{from: a, to: b, control: true})
}

// roles sorts every stage's ops by role.
func (u *unrolled) roles() {
	l := u.l
	p := len(l.stages)
	u.fwdOps, u.bwdOps = make([][]int32, p), make([][]int32, p)
	u.updOps, u.recOps = make([][]int32, p), make([][]int32, p)
	for st, ops := range l.stages {
		for _, v := range ops {
			switch u.g.Ops[v].Role {
			case workloads.Forward:
				u.fwdOps[st] = append(u.fwdOps[st], v)
			case workloads.Backward:
				u.bwdOps[st] = append(u.bwdOps[st], v)
			default:
				u.updOps[st] = append(u.updOps[st], v)
			}
			if u.rec[v] {
				u.recOps[st] = append(u.recOps[st], v)
			}
		}
	}
}

// orders expands the schedule of every device's stages (merged when
// several share it, see deviceItems) into its strict order of nodes, for
// every replica (u.order).
func (u *unrolled) orders() {
	l := u.l
	// an item's time per micro-batch on replica 0, for merging stages
	dur := func(st int, k itemKind) float64 {
		var ops []int32
		switch k {
		case itemForward, itemRecompute:
			ops = u.fwdOps[st]
		case itemBackward:
			ops = u.bwdOps[st]
		case itemUpdate:
			ops = u.updOps[st]
		}
		var t float64
		for _, v := range ops {
			t += u.nodes[u.node(v, 0, 0)].cost
		}
		return t
	}
	items := deviceItems(l.sched, l.stageDev, u.m, l.recompute, dur)
	for d, its := range items {
		for r := 0; r < u.played; r++ {
			var o []int32
			for _, si := range its {
				st, mb := si.stage, int(si.mb)
				switch si.kind {
				case itemForward:
					for _, v := range u.fwdOps[st] {
						o = append(o, u.node(v, mb, r))
					}
				case itemBackward:
					for _, v := range u.bwdOps[st] {
						o = append(o, u.node(v, mb, r))
					}
				case itemRecompute:
					for _, v := range u.recOps[st] {
						o = append(o, u.recNode(v, mb, r))
					}
				case itemUpdate:
					for _, v := range u.updOps[st] {
						o = append(o, u.node(v, mb, r))
					}
				}
			}
			u.order[l.dev(r, d)] = o
		}
	}
}

// planOrder maps the plan's priorities (u.prio) and strict order
// (u.order) onto every replica's nodes (a step, or data parallelism
// without a pipeline: one node per op and replica).
func (u *unrolled) planOrder() {
	p := u.plan
	if p.Priority != nil {
		u.prio = make([]float64, len(u.nodes))
		for x := range u.nodes {
			if id := u.id(int32(x)); id.op >= 0 {
				u.prio[x] = p.Priority[id.op]
			}
		}
	}
	if p.Order == nil {
		return
	}
	late := u.afterAllReduce()
	for r := 0; r < u.played; r++ {
		for d, ops := range p.Order {
			rd := u.l.dev(r, d)
			if rd < 0 {
				continue
			}
			o := make([]int32, 0, len(ops))
			for _, v := range ops {
				if late == nil || !late[v] {
					o = append(o, u.node(int32(v), 0, r))
				}
			}
			for _, v := range ops {
				if late != nil && late[v] {
					o = append(o, u.node(int32(v), 0, r))
				}
			}
			u.order[rd] = o
		}
	}
}

// afterAllReduce marks, when replicas exchange gradients, the ops that
// wait for an all-reduce: the update ops (each waits for its stage's whole
// backward pass in every replica, see allReduceRound) and everything
// downstream of them. A strict order made for one step may run an update
// before a backward op of the same device, which in a step is fine but with
// data parallelism deadlocks (the update waits for the all-reduce, the
// all-reduce for that backward op, the backward op for the update, its
// predecessor in the order); planOrder moves the marked ops to the end of
// each device's order, keeping their relative order. Nil when nothing
// waits for an all-reduce.
func (u *unrolled) afterAllReduce() []bool {
	if u.reps < 2 || u.opPredStart == nil {
		return nil
	}
	late := make([]bool, len(u.g.Ops))
	any := false
	for _, ups := range u.updOps {
		for _, v := range ups {
			late[v], any = true, true
		}
	}
	if !any {
		return nil
	}
	for _, v := range u.l.topo {
		if late[v] {
			continue
		}
		for _, w := range u.opPreds[u.opPredStart[v]:u.opPredStart[v+1]] {
			if late[w] {
				late[v] = true
				break
			}
		}
	}
	return late
}

// adjacency builds the nodes' unique successors (CSR) with their bytes
// (controlBytes for a control edge): the graph's edges for every instance, then the
// side edges, listed by consumer and transposed; and the slots of each
// node's inputs (inEnd).
func (u *unrolled) adjacency() csr {
	total := len(u.nodes)
	regular := u.played * u.block
	// side edges grouped by destination
	xStart := make([]int32, total+1)
	for _, e := range u.sides {
		xStart[e.to+1]++
	}
	for i := 0; i < total; i++ {
		xStart[i+1] += xStart[i]
	}
	xOrd := make([]int32, len(u.sides))
	fill := append([]int32(nil), xStart[:total]...)
	for i, e := range u.sides {
		xOrd[fill[e.to]] = int32(i)
		fill[e.to]++
	}

	est := u.played*u.m*len(u.opPreds)*2 + len(u.sides)
	preds := make([]int32, 0, est)
	pBytes := make([]int64, 0, est)
	// pVia: each predecessor's mirrored device + 1 (0: none; see
	// sideEdge), only when there are mirrored edges
	var pVia []int32
	if u.mirror {
		pVia = make([]int32, 0, est)
	}
	predStart := make([]int32, total+1)
	for x := 0; x < total; x++ {
		predStart[x] = int32(len(preds))
		if x < regular {
			id := u.ids[x]
			v, mb, r := id.op, int(id.mb), int(id.rep)
			recomp := id.kind == NodeRecompute
			for j := u.opPredStart[v]; j < u.opPredStart[v+1]; j++ {
				w, b := u.opPreds[j], u.opPredBytes[j]
				if u.scaled(w) {
					b = divUp(b, u.scale)
				}
				if u.once[v] && !u.once[w] {
					// an update accumulates every micro-batch's gradient
					for i := 0; i < u.m; i++ {
						preds = append(preds, u.source(w, v, i, r, false))
						pBytes = append(pBytes, b)
					}
					continue
				}
				preds = append(preds, u.source(w, v, mb, r, recomp))
				pBytes = append(pBytes, b)
			}
			if pVia != nil {
				pVia = append(pVia, make([]int32, len(preds)-len(pVia))...)
			}
		}
		for _, i := range xOrd[xStart[x]:xStart[x+1]] {
			e := &u.sides[i]
			if e.control {
				preds = append(preds, controlPred(e.from))
				pBytes = append(pBytes, controlBytes)
			} else {
				preds = append(preds, e.from)
				pBytes = append(pBytes, e.bytes)
			}
			if pVia != nil {
				pVia = append(pVia, e.via)
			}
		}
	}
	predStart[total] = int32(len(preds))

	// successors: the transpose, in node order
	succStart := make([]int32, total+1)
	for _, w := range preds {
		succStart[predNode(w)+1]++
	}
	for i := 0; i < total; i++ {
		succStart[i+1] += succStart[i]
	}
	// and where each node's inputs end: a slot for each predecessor that
	// holds a buffer (not a control edge)
	succs := make([]int32, len(preds))
	succBytes := make([]int64, len(preds))
	var succVia []int32
	if pVia != nil {
		succVia = make([]int32, len(preds))
	}
	inEnd := make([]int32, total)
	in := int32(0)
	copy(fill, succStart[:total])
	for x := 0; x < total; x++ {
		for j := predStart[x]; j < predStart[x+1]; j++ {
			w := predNode(preds[j])
			succs[fill[w]] = int32(x)
			succBytes[fill[w]] = pBytes[j]
			if succVia != nil {
				succVia[fill[w]] = pVia[j]
			}
			fill[w]++
			if holdsBuffer(pBytes[j]) {
				in++
			}
		}
		inEnd[x] = in
	}
	return csr{start: succStart, to: succs, bytes: succBytes, via: succVia, inEnd: inEnd}
}

// name describes node x for errors: the op's name, "(recomputed)", the
// micro-batch and the replica.
func (u *unrolled) name(x int32) string {
	id := u.id(x)
	var what string
	switch {
	case id.op < 0:
		what = id.kind.String() + " node"
	case id.kind == NodeRecompute:
		what = u.g.Ops[id.op].Name + " (recomputed)"
	default:
		what = u.g.Ops[id.op].Name
	}
	if id.mb >= 0 && u.l.sched != "" {
		what += fmt.Sprintf(" micro-batch %d", id.mb)
	}
	if u.reps > 1 {
		what += fmt.Sprintf(" replica %d", id.rep)
	}
	return what
}
