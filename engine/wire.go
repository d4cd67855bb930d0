package engine

import (
	"slices"

	"placesim/workloads"
)

// succEdge is a dependency to successor v, carrying bytes (< 0: a control
// edge, which orders its nodes but holds no buffer).
type succEdge struct {
	v     int32
	bytes int64
}

// successors appends node x's unique successors to buf and returns it.
type successors func(x int32, buf []succEdge) []succEdge

// wire prepares the nodes' dependencies for the run from their unique
// successors: it counts each node's inputs, groups each node's successors
// by device into s.succs, makes one transfer per group on another device,
// lists what each node releases when it ends and the nodes without
// inputs (s.roots). edges is an upper bound of the successors' number
// (for the first allocation).
//
// A node's consumers on its own device come first, then those on each
// other device by ascending device, each group in its original order (the
// order in which its consumers become ready). A group on another device is
// one transfer, sent when the node ends, of the largest of the group's
// edges.
func (s *sim) wire(succ successors, edges int) {
	n := len(s.nodes)
	dev := s.un.dev
	s.remaining = make([]int32, n)
	s.succStart = make([]int32, n+1)
	s.sendStart = make([]int32, n+1)
	s.inStart = make([]int32, n+1) // inputs per consumer, then CSR offsets
	s.succs = make([]int32, 0, edges)
	var control []bool // per entry of s.succs, only once a control edge is seen
	var buf []succEdge
	var sends chunked[send] // the transfers, until they are made
	for x := 0; x < n; x++ {
		s.succStart[x] = int32(len(s.succs))
		s.sendStart[x] = int32(sends.len())
		buf = succ(int32(x), buf[:0])
		d := dev[x]
		local := true
		for _, e := range buf {
			s.remaining[e.v]++
			if e.bytes >= 0 {
				s.inStart[e.v+1]++
			} else if control == nil {
				control = make([]bool, len(s.succs), cap(s.succs))
			}
			local = local && dev[e.v] == d
		}
		if !local {
			groupByDevice(buf, dev, d)
		}
		// local consumers first, then one group per remote device
		nd := &s.nodes[x]
		cur := send{dev: -1}
		for _, e := range buf {
			s.succs = append(s.succs, e.v)
			if control != nil {
				control = append(control, e.bytes < 0)
			}
			switch dv := dev[e.v]; {
			case dv == d:
				nd.local++
				if e.bytes >= 0 {
					nd.localReaders++
				}
				continue
			case dv != cur.dev:
				if cur.n > 0 {
					sends.append(cur)
				}
				cur = send{dev: dv}
			}
			cur.n++
			cur.bytes = max(cur.bytes, e.bytes)
		}
		if cur.n > 0 {
			sends.append(cur)
		}
	}
	s.succStart[n] = int32(len(s.succs))
	s.sendStart[n] = int32(sends.len())
	for v := 0; v < n; v++ {
		s.inStart[v+1] += s.inStart[v]
	}
	// the transfers, and the inputs: the producer's node for a local
	// input, ^t for transfer t's copy
	s.xfers = make([]transfer, sends.len())
	if s.trace != nil {
		s.recOf = make([]int32, len(s.xfers))
	}
	s.inputs = make([]int32, s.inStart[n])
	fill := slices.Clone(s.inStart[:n])
	next := sends.reader()
	for x := 0; x < n; x++ {
		if s.remaining[x] == 0 {
			s.roots = append(s.roots, int32(x))
		}
		i := s.succStart[x]
		for end := i + s.nodes[x].local; i < end; i++ {
			if v := s.succs[i]; control == nil || !control[i] {
				s.inputs[fill[v]] = int32(x)
				fill[v]++
			}
		}
		for t := s.sendStart[x]; t < s.sendStart[x+1]; t++ {
			sd := next()
			xf := &s.xfers[t]
			*xf = transfer{producer: int32(x), first: i, n: sd.n, recv: buffer{bytes: sd.bytes, dev: sd.dev}}
			xf.route, xf.hops = s.route(dev[x], sd.dev)
			for end := i + sd.n; i < end; i++ {
				if v := s.succs[i]; control == nil || !control[i] {
					s.inputs[fill[v]] = ^t
					fill[v]++
				}
			}
		}
	}
}

// send is a transfer as wire first finds it: n consumers on device dev,
// the largest edge's bytes.
type send struct {
	bytes  int64
	dev, n int32
}

// stepSuccessors lists op x's distinct successors in the order of its
// edges, with the largest such edge's bytes (several edges between two
// ops are one dependency). mark and pos are scratch of one entry per op,
// mark filled with -1.
func stepSuccessors(g *workloads.Graph, mark, pos []int32) successors {
	return func(x int32, buf []succEdge) []succEdge {
		for _, eid := range g.Out(int(x)) {
			e := &g.Edges[eid]
			w := int32(e.To)
			if mark[w] != x {
				mark[w] = x
				pos[w] = int32(len(buf))
				buf = append(buf, succEdge{w, e.Bytes})
			} else if e.Bytes > buf[pos[w]].bytes {
				buf[pos[w]].bytes = e.Bytes
			}
		}
		return buf
	}
}

// csrSuccessors lists the successors of a CSR.
func csrSuccessors(start, succs []int32, bytes []int64) successors {
	return func(x int32, buf []succEdge) []succEdge {
		for i := start[x]; i < start[x+1]; i++ {
			buf = append(buf, succEdge{succs[i], bytes[i]})
		}
		return buf
	}
}

// groupByDevice sorts a node's successors stably by device, those on the
// node's own device d first.
func groupByDevice(es []succEdge, dev []int32, d int32) {
	key := func(e succEdge) int32 {
		if dev[e.v] == d {
			return -1
		}
		return dev[e.v]
	}
	if len(es) > 32 {
		slices.SortStableFunc(es, func(a, b succEdge) int { return int(key(a)) - int(key(b)) })
		return
	}
	for i := 1; i < len(es); i++ {
		e, k := es[i], key(es[i])
		j := i
		for ; j > 0 && key(es[j-1]) > k; j-- {
			es[j] = es[j-1]
		}
		es[j] = e
	}
}

// chunked is an append-only list in chunks of 4096 items: it grows
// without copying what it holds.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) len() int { return c.n }

func (c *chunked[T]) append(v T) {
	if c.n%4096 == 0 {
		c.chunks = append(c.chunks, make([]T, 0, 4096))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

// reader returns a function that yields the items in order.
func (c *chunked[T]) reader() func() T {
	var chunk []T
	k := 0
	return func() T {
		if len(chunk) == 0 {
			chunk = c.chunks[k]
			k++
		}
		v := chunk[0]
		chunk = chunk[1:]
		return v
	}
}
