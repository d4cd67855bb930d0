package engine

import "slices"

// wire prepares the nodes' dependencies for the run from their unique
// successors (CSR; an entry with bytes < 0 is a control edge): it counts
// each node's inputs, groups each node's successors by device, makes one
// transfer per group on another device, and lists what each node releases
// when it ends, and the nodes without inputs (s.roots). succs is
// reordered in place and kept as s.succs.
//
// A node's consumers on its own device come first, then those on each
// other device by ascending device, each group in its original order (the
// order in which its consumers become ready). A group on another device is
// one transfer, sent when the node ends, of the largest of the group's
// edges.
func (s *sim) wire(succStart, succs []int32, bytes []int64) {
	n := len(s.nodes)
	dev := make([]int32, n)
	for x := range s.nodes {
		dev[x] = s.nodes[x].out.dev
	}
	// inputs: the edges that carry a buffer, counted per consumer
	s.inStart = make([]int32, n+1)
	s.sendStart = make([]int32, n+1)
	sends := int32(0)
	for x := 0; x < n; x++ {
		s.sendStart[x] = sends
		lo, hi := succStart[x], succStart[x+1]
		seg, sb := succs[lo:hi], bytes[lo:hi]
		d := dev[x]
		local := true
		for i, v := range seg {
			s.nodes[v].remaining++
			if sb[i] >= 0 {
				s.inStart[v+1]++
			}
			local = local && dev[v] == d
		}
		nd := &s.nodes[x]
		if local {
			nd.local = int32(len(seg))
			nd.localReaders = readers(sb)
			continue
		}
		groupByDevice(seg, sb, dev, d)
		k := 0
		for k < len(seg) && dev[seg[k]] == d {
			k++
		}
		nd.local = int32(k)
		nd.localReaders = readers(sb[:k])
		for i := k; i < len(seg); i++ {
			if i == k || dev[seg[i]] != dev[seg[i-1]] {
				sends++
			}
		}
	}
	s.sendStart[n] = sends
	for v := 0; v < n; v++ {
		s.inStart[v+1] += s.inStart[v]
	}
	s.inputs = make([]int32, s.inStart[n])
	fill := slices.Clone(s.inStart[:n])
	s.xfers = make([]transfer, sends)
	for x := 0; x < n; x++ {
		lo, hi := succStart[x], succStart[x+1]
		seg, sb := succs[lo:hi], bytes[lo:hi]
		nd := &s.nodes[x]
		if nd.remaining == 0 {
			s.roots = append(s.roots, int32(x))
		}
		k := int(nd.local)
		for i, v := range seg[:k] {
			if sb[i] >= 0 {
				s.inputs[fill[v]] = int32(x)
				fill[v]++
			}
		}
		t := s.sendStart[x]
		for i := k; i < len(seg); t++ {
			dv := dev[seg[i]]
			var most int64
			j := i
			for ; j < len(seg) && dev[seg[j]] == dv; j++ {
				if v := seg[j]; sb[j] >= 0 {
					most = max(most, sb[j])
					s.inputs[fill[v]] = ^t
					fill[v]++
				}
			}
			xf := &s.xfers[t]
			*xf = transfer{producer: int32(x), first: lo + int32(i), n: int32(j - i), recv: buffer{bytes: most, dev: dv}, rec: -1}
			xf.route, xf.hops = s.route(dev[x], dv)
			i = j
		}
	}
	s.succStart, s.succs = succStart, succs
}

// readers counts the edges that carry a buffer (not control edges).
func readers(bytes []int64) int32 {
	var n int32
	for _, b := range bytes {
		if b >= 0 {
			n++
		}
	}
	return n
}

// groupByDevice sorts a node's successors (and their bytes) stably by
// device, those on the node's own device d first.
func groupByDevice(seg []int32, sb []int64, dev []int32, d int32) {
	key := func(v int32) int32 {
		if dev[v] == d {
			return -1
		}
		return dev[v]
	}
	if len(seg) > 32 {
		type entry struct {
			key, v int32
			b      int64
		}
		es := make([]entry, len(seg))
		for i, v := range seg {
			es[i] = entry{key(v), v, sb[i]}
		}
		slices.SortStableFunc(es, func(a, b entry) int { return int(a.key) - int(b.key) })
		for i, e := range es {
			seg[i], sb[i] = e.v, e.b
		}
		return
	}
	for i := 1; i < len(seg); i++ {
		v, b, kv := seg[i], sb[i], key(seg[i])
		j := i
		for ; j > 0 && key(seg[j-1]) > kv; j-- {
			seg[j], sb[j] = seg[j-1], sb[j-1]
		}
		seg[j], sb[j] = v, b
	}
}
