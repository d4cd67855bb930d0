package engine

import (
	"slices"

	"placesim/workloads"
)

// succEdge is a dependency to successor v on device dev, carrying bytes
// (controlBytes: a control edge, which orders its nodes but holds no
// buffer).
type succEdge struct {
	v, dev int32
	bytes  int64
}

// csr is the nodes' unique successors: node x's are to[start[x]:start[x+1]],
// each with its bytes (controlBytes: a control edge, which orders its
// nodes but holds no buffer).
//
// Each node's inputs have their slots already: node v's end at
// inEnd[v], as many as its edges that hold a buffer, and wire writes them
// as it goes.
//
// via, nil but when replica 0 stands for identical peers, marks the
// mirrored edges: via[i] > 0 makes edge i a transfer routed to device
// via[i]-1 whose copy lands on the consumer's own device (see sideEdge).
type csr struct {
	start, to []int32
	bytes     []int64
	via       []int32
	inEnd     []int32
}

// wire prepares the nodes' dependencies for the run from their unique
// successors: it counts each node's unmet dependencies, groups each
// node's successors by device into s.succs, makes one transfer per group
// on another device, writes what each node releases when it ends into
// its input slots and lists the nodes without inputs (s.roots).
//
// A node's consumers on its own device come first, then those on each
// other device by ascending device, each group in its original order (the
// order in which its consumers become ready). A group on another device is
// one transfer, sent when the node ends, of the largest of the group's
// edges.
func (s *sim) wire(g csr) {
	n := len(s.nodes)
	dev := s.un.dev
	nodes := s.nodes
	a := s.arena
	s.succs = reuse(&a.succs, 0, len(g.to))
	s.xfers = reuse(&a.xfers, 0, n+16)
	// the counts go to compact arrays, not to the consumers' records: a
	// node's consumers are scattered, and 16 counts share a cache line
	remaining := reuse(&a.remaining, n, n)
	s.remaining = remaining
	// nIn: where each node's next input goes, counting down from the end
	// of its slots; it ends where they start (s.inAt)
	nIn := grow(&a.cursor, n, n)
	copy(nIn, g.inEnd)
	total := 0
	if n > 0 {
		total = int(g.inEnd[n-1])
	}
	// what each node releases when it ends: the producer's node for a
	// local input, transferInput(t) for transfer t's copy
	s.inputs = grow(&a.inputs, total, total)
	var remote []succEdge
	nDev := int32(len(s.streams))
	for x := 0; x < n; x++ {
		d := dev[x]
		nd := &nodes[x]
		nd.succ, nd.send = int32(len(s.succs)), int32(len(s.xfers))
		// local consumers first, in order; the others wait in remote
		remote = remote[:0]
		lo, hi := g.start[x], g.start[x+1]
		to, bytes := g.to[lo:hi], g.bytes[lo:hi]
		bytes = bytes[:len(to)]
		for i, v := range to {
			b, dv := bytes[i], dev[v]
			if g.via != nil && g.via[int(lo)+i] > 0 {
				// a mirrored edge: routed to the peer's device
				dv = g.via[int(lo)+i] - 1
			}
			remaining[v]++
			if dv != d {
				remote = append(remote, succEdge{v: v, dev: dv, bytes: b})
				continue
			}
			s.succs = append(s.succs, v)
			nd.local++
			if holdsBuffer(b) {
				nIn[v]--
				s.inputs[nIn[v]] = int32(x)
				nd.out.readers++
			}
		}
		if len(remote) > 1 {
			sortByDevice(remote)
		}
		// then one transfer per remote device, by ascending device: each
		// is one reader of the output
		for i := 0; i < len(remote); {
			dv := remote[i].dev
			t := int32(len(s.xfers))
			// the copy lands on the consumers' device (a mirrored
			// transfer's consumers are on the producer's own)
			xf := transfer{producer: int32(x), first: int32(len(s.succs)), recv: buffer{dev: dev[remote[i].v]}}
			for ; i < len(remote) && remote[i].dev == dv; i++ {
				e := remote[i]
				s.succs = append(s.succs, e.v)
				if holdsBuffer(e.bytes) {
					nIn[e.v]--
					s.inputs[nIn[e.v]] = transferInput(t)
				}
				xf.n++
				xf.recv.bytes = max(xf.recv.bytes, e.bytes)
			}
			if handInlined {
				// hand-inlined copy of route's fast path (route does not
				// inline); pinned by the enginereference build (handInlined)
				if xf.hop = -1; s.routeAt != nil {
					xf.hop = routeStart(s.routeAt[d*nDev+dv])
				}
				if xf.hop < 0 {
					xf.hop = s.route(d, dv)
				}
			} else {
				xf.hop = s.route(d, dv)
			}
			s.xfers = append(s.xfers, xf)
			nd.nSend++
			nd.out.readers++
		}
	}
	if s.trace != nil {
		s.recOf = make([]int32, len(s.xfers))
	}
	s.inAt, s.inEnd = nIn, g.inEnd
	for x := 0; x < n; x++ {
		if remaining[x] == 0 {
			s.roots = append(s.roots, int32(x))
		}
	}
}

// stepSuccessors is a step's successors (its nodes are the ops): each
// op's unique successors (workloads.Graph.UniqueSuccs: several edges
// between two ops are one dependency, of the largest edge's bytes) in the
// order of their first edge in g.Out, and where each op's inputs end
// (inEnd: a slot for each unique predecessor whose edge holds a buffer).
func stepSuccessors(g *workloads.Graph, a *arena) csr {
	n := len(g.Ops)
	d := g.UniqueSuccsInto(a.succ, reuse(&a.mark, n, n), grow(&a.pos, n, n))
	a.succ = d
	inEnd := reuse(&a.inEnd, n, n)
	for i, v := range d.Ops {
		if holdsBuffer(d.Bytes[i]) {
			inEnd[v]++
		}
	}
	for x := 1; x < n; x++ {
		inEnd[x] += inEnd[x-1]
	}
	return csr{start: d.Start, to: d.Ops, bytes: d.Bytes, inEnd: inEnd}
}

// sortByDevice sorts a node's successors on other devices stably by
// device.
func sortByDevice(es []succEdge) {
	if len(es) > 32 {
		slices.SortStableFunc(es, func(a, b succEdge) int { return int(a.dev) - int(b.dev) })
		return
	}
	for i := 1; i < len(es); i++ {
		e, k := es[i], es[i].dev
		j := i
		for ; j > 0 && es[j-1].dev > k; j-- {
			es[j] = es[j-1]
		}
		es[j] = e
	}
}

// The encodings of the node graph's edges and inputs. Each is a sign bit
// in an array that is otherwise indices or sizes, so that the hot loops
// read one array, not two.

// controlBytes is the bytes of a control edge: it orders its nodes (on
// one device) but holds no buffer, so the consumer is no reader of the
// producer's output and has no input slot for it.
const controlBytes = -1

// holdsBuffer reports whether an edge of bytes b holds a buffer (is not a
// control edge).
func holdsBuffer(b int64) bool { return b >= 0 }

// transferInput is how sim.inputs lists transfer t's copy of an input
// from another device: ^t, negative, apart from the node indices of local
// inputs.
func transferInput(t int32) int32 { return ^t }

// isTransferInput reports whether an entry of sim.inputs is a transfer's
// copy (else it is the producer's node).
func isTransferInput(in int32) bool { return in < 0 }

// inputTransfer is the transfer an entry of sim.inputs lists (see
// transferInput).
func inputTransfer(in int32) int32 { return ^in }

// controlPred is how unrolled.adjacency lists a control edge's
// predecessor among the node-level predecessors: ^from, negative (its
// bytes are controlBytes).
func controlPred(from int32) int32 { return ^from }

// predNode is the node of a predecessor entry, a control edge's
// (controlPred) or a data edge's.
func predNode(w int32) int32 {
	if w < 0 {
		return ^w
	}
	return w
}
