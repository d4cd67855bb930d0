package engine

import (
	"fmt"

	"placesim/devices"
	"placesim/workloads"
)

// unrolled is a pipeline or data-parallel plan turned into nodes the
// executor plays like ops: one node per (op, micro-batch, replica) and per
// recomputed forward op, laid out replica by replica as
//
//	[m x per-micro-batch ops][once ops][m x recomputed ops]
//
// so that a node's ID is arithmetic on (op, micro-batch, replica) and no
// graph is copied; side nodes (all-reduce steps, weight stashes) follow.
type unrolled struct {
	l      *layout
	g      *workloads.Graph
	plan   *Plan
	n, m   int
	reps   int
	scale  int     // a per-micro-batch op's share of a replica's batch: m x reps
	once   []bool  // op runs once per step (an update op outside PipeDream)
	rec    []bool  // op is a recomputed forward op
	idx    []int32 // op -> index among per-micro-batch or once ops
	recIdx []int32 // op -> index among recomputed ops (-1: none)
	nPer   int
	nOnce  int
	nRec   int
	block  int // nodes per replica

	// op-level unique predecessors with the largest edge's bytes
	opPredStart []int32
	opPreds     []int32
	opPredBytes []int64

	// per node
	opOf, mbOf, repOf []int32
	kind              []NodeKind

	// edges into side nodes and out of them, added after the graph's
	xFrom, xTo []int32
	xBytes     []int64

	// side nodes' device and output bytes (index: node - reps*block)
	sideDev []int32
	sideOut []int64

	// each stage's ops by role, in topological order
	fwdOps, bwdOps, updOps, recOps [][]int32

	versions []int            // most weight versions kept by each stage
	ars      []allReduceNodes // all-reduces, for the statistics
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

// node is the node of op v for micro-batch mb on replica r (the single
// node of a once op, whatever mb).
func (u *unrolled) node(v int32, mb, r int) int32 {
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

// unroll builds the nodes of a pipeline / data-parallel plan into s.
func (s *sim) unroll() error {
	l, err := s.p.layout(s.g, s.c)
	if err != nil {
		return err
	}
	g := s.g
	n := len(g.Ops)
	u := &unrolled{l: l, g: g, plan: s.p, n: n, m: l.m, reps: l.reps, scale: l.m * l.reps}
	s.un = u
	u.opAdjacency()
	u.classify()
	u.roles()
	total := u.reps * u.block

	// side nodes: weight stashes, all-reduces (they append to the node
	// tables below, so those start with the regular nodes)
	u.opOf = make([]int32, total, total+total/8)
	u.mbOf = make([]int32, total, total+total/8)
	u.repOf = make([]int32, total, total+total/8)
	u.kind = make([]NodeKind, total, total+total/8)
	for r := 0; r < u.reps; r++ {
		for v := int32(0); v < int32(n); v++ {
			if u.once[v] {
				x := u.node(v, 0, r)
				u.opOf[x], u.mbOf[x], u.repOf[x] = v, -1, int32(r)
				continue
			}
			for mb := 0; mb < u.m; mb++ {
				x := u.node(v, mb, r)
				u.opOf[x], u.mbOf[x], u.repOf[x] = v, int32(mb), int32(r)
				if u.rec[v] {
					y := u.recNode(v, mb, r)
					u.opOf[y], u.mbOf[y], u.repOf[y], u.kind[y] = v, int32(mb), int32(r), NodeRecompute
				}
			}
		}
	}
	u.versions = make([]int, len(l.stages))
	for st := range l.stages {
		u.versions[st] = 1
		if l.sched == PipeDream {
			u.addStash(st)
		}
	}
	if u.reps > 1 {
		u.addAllReduces()
	}

	if err := u.nodeCosts(s); err != nil {
		return err
	}
	u.adjacency(s)
	if l.sched != "" {
		u.orders(s)
	} else {
		u.planOrder(s)
	}
	// parameters: resident on every replica's device from the start
	for r := 0; r < u.reps; r++ {
		for v := range g.Ops {
			d := l.repDev[r][s.p.Device[v]]
			st := &s.streams[d]
			st.ops++
			st.params += g.Ops[v].ParamBytes
			s.alloc(int32(d), g.Ops[v].ParamBytes, u.node(int32(v), 0, r), "parameters")
		}
	}
	return nil
}

// opAdjacency computes each op's unique predecessors, with the largest
// edge's bytes (several edges between two ops are one dependency).
func (u *unrolled) opAdjacency() {
	g := u.g
	mark := make([]int32, u.n)
	pos := make([]int32, u.n)
	for i := range mark {
		mark[i] = -1
	}
	u.opPredStart = make([]int32, u.n+1)
	u.opPreds = make([]int32, 0, len(g.Edges))
	u.opPredBytes = make([]int64, 0, len(g.Edges))
	for v := 0; v < u.n; v++ {
		u.opPredStart[v] = int32(len(u.opPreds))
		for _, eid := range g.In(v) {
			e := &g.Edges[eid]
			w := int32(e.From)
			if mark[w] != int32(v) {
				mark[w] = int32(v)
				pos[w] = int32(len(u.opPreds))
				u.opPreds = append(u.opPreds, w)
				u.opPredBytes = append(u.opPredBytes, e.Bytes)
			} else if e.Bytes > u.opPredBytes[pos[w]] {
				u.opPredBytes[pos[w]] = e.Bytes
			}
		}
	}
	u.opPredStart[u.n] = int32(len(u.opPreds))
}

// classify decides which ops run once, which are recomputed, and numbers
// them.
func (u *unrolled) classify() {
	g, l := u.g, u.l
	u.once = make([]bool, u.n)
	u.rec = make([]bool, u.n)
	u.idx = make([]int32, u.n)
	u.recIdx = make([]int32, u.n)
	for v := range g.Ops {
		op := &g.Ops[v]
		u.once[v] = op.Role == workloads.Update && l.sched != PipeDream
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
func divUp(b int64, k int) int64 { return (b + int64(k) - 1) / int64(k) }

// nodeCosts fills the per-node device, time, output and workspace.
func (u *unrolled) nodeCosts(s *sim) error {
	g, l := u.g, u.l
	total := len(u.opOf)
	s.dev = make([]int32, total)
	s.cost = make([]float64, total)
	s.outB = make([]int64, total)
	s.tempB = make([]int64, total)
	if total > u.reps*u.block {
		s.side = make([]bool, total)
		for x := u.reps * u.block; x < total; x++ {
			s.side[x] = true
		}
	}
	for r := 0; r < u.reps; r++ {
		for vi := range g.Ops {
			v := int32(vi)
			op := &g.Ops[v]
			d := l.repDev[r][s.p.Device[v]]
			k := 1
			if u.scaled(v) {
				k = u.scale
			}
			t, err := scaledOpTime(op, &s.c.Devices[d].Kind, k)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalidPlan, err)
			}
			out, temp := divUp(op.OutputBytes, k), divUp(op.TempBytes, k)
			mbs := u.m
			if u.once[v] {
				mbs = 1
			}
			for mb := 0; mb < mbs; mb++ {
				x := u.node(v, mb, r)
				s.dev[x], s.cost[x], s.outB[x], s.tempB[x] = int32(d), t, out, temp
				if u.rec[v] {
					y := u.recNode(v, mb, r)
					s.dev[y], s.cost[y], s.outB[y], s.tempB[y] = int32(d), t, out, temp
				}
			}
		}
	}
	for x := u.reps * u.block; x < total; x++ {
		s.dev[x], s.outB[x] = u.sideDev[x-u.reps*u.block], u.sideOut[x-u.reps*u.block]
	}
	return nil
}

// scaledOpTime is op's time on kind k for 1/scale of its batch: a measured
// time (looked up as devices.OpTime does: kind name, class, "*") divided
// by scale, else the roofline on FLOPs/scale and bytes/scale with the full
// launch overhead.
func scaledOpTime(op *workloads.Op, k *devices.Kind, scale int) (float64, error) {
	if scale == 1 {
		return devices.OpTime(op, k)
	}
	if !op.CPUOnly || k.Class == devices.CPU {
		if m := op.Measured; m != nil {
			for _, key := range []string{k.Name, string(k.Class), workloads.MeasuredAny} {
				if t, ok := m[key]; ok {
					return t / float64(scale), nil
				}
			}
		}
	}
	cp := *op
	cp.Measured = nil
	cp.FLOPs /= float64(scale)
	cp.BytesAccessed = divUp(op.BytesAccessed, scale)
	return devices.OpTime(&cp, k)
}

// addSide appends a side node (it runs off the compute stream) on device
// d with an output of out bytes, and returns its ID.
func (u *unrolled) addSide(k NodeKind, d int, out int64, mb, r int) int32 {
	x := int32(len(u.opOf))
	u.opOf = append(u.opOf, -1)
	u.mbOf = append(u.mbOf, int32(mb))
	u.repOf = append(u.repOf, int32(r))
	u.kind = append(u.kind, k)
	u.sideDev = append(u.sideDev, int32(d))
	u.sideOut = append(u.sideOut, out)
	return x
}

// edge adds a dependency from node a to node b carrying bytes when they
// are on different devices.
func (u *unrolled) edge(a, b int32, bytes int64) {
	u.xFrom = append(u.xFrom, a)
	u.xTo = append(u.xTo, b)
	u.xBytes = append(u.xBytes, bytes)
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
// every replica.
func (u *unrolled) orders(s *sim) {
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
			t += s.cost[u.node(v, 0, 0)]
		}
		return t
	}
	items := deviceItems(l.sched, l.stageDev, u.m, l.recompute, dur)
	for d, its := range items {
		for r := 0; r < u.reps; r++ {
			var o []int
			for _, si := range its {
				st, mb := si.stage, int(si.mb)
				switch si.kind {
				case itemForward:
					for _, v := range u.fwdOps[st] {
						o = append(o, int(u.node(v, mb, r)))
					}
				case itemBackward:
					for _, v := range u.bwdOps[st] {
						o = append(o, int(u.node(v, mb, r)))
					}
				case itemRecompute:
					for _, v := range u.recOps[st] {
						o = append(o, int(u.recNode(v, mb, r)))
					}
				case itemUpdate:
					for _, v := range u.updOps[st] {
						o = append(o, int(u.node(v, mb, r)))
					}
				}
			}
			s.streams[l.repDev[r][d]].order = o
		}
	}
}

// planOrder maps the plan's priorities and strict order onto every
// replica's nodes (data parallelism without a pipeline: one node per op
// and replica).
func (u *unrolled) planOrder(s *sim) {
	p := s.p
	if p.Priority != nil {
		s.prio = make([]float64, len(u.opOf))
		for x, v := range u.opOf {
			if v >= 0 {
				s.prio[x] = p.Priority[v]
			}
		}
	}
	if p.Order == nil {
		return
	}
	for r := 0; r < u.reps; r++ {
		for d, ops := range p.Order {
			rd := u.l.repDev[r][d]
			if rd < 0 {
				continue
			}
			o := make([]int, len(ops))
			for i, v := range ops {
				o[i] = int(u.node(int32(v), 0, r))
			}
			s.streams[rd].order = o
		}
	}
}

// adjacency builds the nodes' unique predecessors and successors (CSR)
// into s: the graph's edges for every instance, then the side edges.
func (u *unrolled) adjacency(s *sim) {
	total := len(u.opOf)
	regular := u.reps * u.block
	// side edges grouped by destination
	xStart := make([]int32, total+1)
	for _, t := range u.xTo {
		xStart[t+1]++
	}
	for i := 0; i < total; i++ {
		xStart[i+1] += xStart[i]
	}
	xOrd := make([]int32, len(u.xTo))
	fill := append([]int32(nil), xStart[:total]...)
	for i, t := range u.xTo {
		xOrd[fill[t]] = int32(i)
		fill[t]++
	}

	est := u.reps*u.m*len(u.opPreds)*2 + len(u.xTo)
	preds := make([]int32, 0, est)
	pBytes := make([]int64, 0, est)
	s.predStart = make([]int32, total+1)
	for x := 0; x < total; x++ {
		s.predStart[x] = int32(len(preds))
		if x < regular {
			v, mb, r := u.opOf[x], int(u.mbOf[x]), int(u.repOf[x])
			recomp := u.kind[x] == NodeRecompute
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
		}
		for _, i := range xOrd[xStart[x]:xStart[x+1]] {
			preds = append(preds, u.xFrom[i])
			pBytes = append(pBytes, u.xBytes[i])
		}
	}
	s.predStart[total] = int32(len(preds))
	s.preds = preds

	// successors: the transpose, in node order
	s.succStart = make([]int32, total+1)
	for _, w := range preds {
		s.succStart[w+1]++
	}
	for i := 0; i < total; i++ {
		s.succStart[i+1] += s.succStart[i]
	}
	s.succs = make([]int32, len(preds))
	s.succBytes = make([]int64, len(preds))
	copy(fill, s.succStart[:total])
	for x := 0; x < total; x++ {
		for j := s.predStart[x]; j < s.predStart[x+1]; j++ {
			w := preds[j]
			s.succs[fill[w]] = int32(x)
			s.succBytes[fill[w]] = pBytes[j]
			fill[w]++
		}
	}
}

// instance says which op, micro-batch and replica node x is (op -1 for a
// side node; micro-batch -1 for a once-per-step op).
func (u *unrolled) instance(x int32) (op, mb, replica int) {
	return int(u.opOf[x]), int(u.mbOf[x]), int(u.repOf[x])
}

// name describes node x for errors: the op's name, "(recomputed)", the
// micro-batch and the replica.
func (u *unrolled) name(x int32) string {
	op, mb, r := u.instance(x)
	k := u.kind[x]
	var what string
	switch {
	case op < 0:
		what = k.String() + " node"
	case k == NodeRecompute:
		what = u.g.Ops[op].Name + " (recomputed)"
	default:
		what = u.g.Ops[op].Name
	}
	if mb >= 0 && u.l.sched != "" {
		what += fmt.Sprintf(" micro-batch %d", mb)
	}
	if u.reps > 1 {
		what += fmt.Sprintf(" replica %d", r)
	}
	return what
}

// nodeName describes node x: the op's name, and for an unrolled plan its
// micro-batch and replica.
func (s *sim) nodeName(x int32) string {
	if s.un == nil {
		return s.g.Ops[x].Name
	}
	return s.un.name(x)
}
