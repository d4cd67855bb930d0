package chakra

import (
	"fmt"
	"sort"
	"strings"

	"placesim/workloads"
	"placesim/workloads/chakra/etdef"
)

// p2pKey pairs sends and receives: source, destination, tag.
type p2pKey struct {
	src, dst int
	tag      int64
}

// matchP2P pairs each send of a set with the receive of the same source,
// destination and tag, in order. A pair whose ends wait for no other send
// or receive is folded: the receiver's consumers depend on the sender's
// producers through an edge of the message's bytes, as the engine plays
// any transfer; otherwise both stay zero-time ops joined by that edge.
func (b *builder) matchP2P() error {
	if !b.multi {
		return nil
	}
	sends := map[p2pKey][]nodeRef{}
	for ri, r := range b.t.Ranks {
		for i := range r.Nodes {
			n := &r.Nodes[i]
			if n.Kind != Send {
				continue
			}
			if err := b.peer(r, n); err != nil {
				return err
			}
			k := p2pKey{r.Rank, n.Peer, n.Tag}
			sends[k] = append(sends[k], nodeRef{ri, i})
		}
	}
	for ri, r := range b.t.Ranks {
		for i := range r.Nodes {
			n := &r.Nodes[i]
			if n.Kind != Recv {
				continue
			}
			if err := b.peer(r, n); err != nil {
				return err
			}
			k := p2pKey{n.Peer, r.Rank, n.Tag}
			q := sends[k]
			if len(q) == 0 {
				return fmt.Errorf("%w: %s: receive node %d %q from rank %d (tag %d) has no matching send in %s", ErrRank, r.File, n.ID, clip(n.Name, 60), n.Peer, n.Tag, b.t.Ranks[b.inSet[n.Peer]].File)
			}
			s := q[0]
			sends[k] = q[1:]
			rr := nodeRef{ri, i}
			if b.foldable(s) && b.foldable(rr) {
				b.fold[rr] = s
				b.folded[rr], b.folded[s] = true, true
			} else {
				b.pair[rr] = s
			}
		}
	}
	keys := make([]p2pKey, 0, len(sends))
	for k, q := range sends {
		if len(q) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Slice(keys, func(i, j int) bool {
			a, c := keys[i], keys[j]
			if a.src != c.src {
				return a.src < c.src
			}
			if a.dst != c.dst {
				return a.dst < c.dst
			}
			return a.tag < c.tag
		})
		k := keys[0]
		s := sends[k][0]
		n := &b.t.Ranks[s.r].Nodes[s.i]
		return fmt.Errorf("%w: %s: send node %d %q to rank %d (tag %d) has no matching receive in %s", ErrRank, b.t.Ranks[s.r].File, n.ID, clip(n.Name, 60), k.dst, k.tag, b.t.Ranks[b.inSet[k.dst]].File)
	}
	return nil
}

// peer checks a send's or receive's peer in a set.
func (b *builder) peer(r *Rank, n *Node) error {
	what := map[Kind]string{Send: "send", Recv: "receive"}[n.Kind]
	if !n.HasPeer {
		return fmt.Errorf("%w: %s: %s node %d %q has no peer rank (attribute comm_dst or comm_src), which a set of ranks needs to pair it", ErrFormat, r.File, what, n.ID, clip(n.Name, 60))
	}
	if _, ok := b.inSet[n.Peer]; !ok {
		return fmt.Errorf("%w: %s: %s node %d %q names rank %d, which the trace set (ranks %v) does not contain", ErrRank, r.File, what, n.ID, clip(n.Name, 60), n.Peer, b.summary.Ranks)
	}
	return nil
}

// foldable: a send or receive none of whose dependencies is a send or a
// receive.
func (b *builder) foldable(x nodeRef) bool {
	r := b.t.Ranks[x.r]
	for _, d := range b.deps(&r.Nodes[x.i]) {
		if k := r.Nodes[b.idx[x.r][d]].Kind; k == Send || k == Recv {
			return false
		}
	}
	return true
}

// ops creates the ops, in node id order across the ranks (then rank).
func (b *builder) ops() error {
	var refs []nodeRef
	b.op = make([][]int, len(b.t.Ranks))
	b.done = make([][]int, len(b.t.Ranks))
	for ri, r := range b.t.Ranks {
		b.op[ri] = make([]int, len(r.Nodes))
		b.done[ri] = make([]int, len(r.Nodes))
		for i := range r.Nodes {
			b.op[ri][i], b.done[ri][i] = -1, -1
			refs = append(refs, nodeRef{ri, i})
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		a, c := refs[i], refs[j]
		ia, ic := b.t.Ranks[a.r].Nodes[a.i].ID, b.t.Ranks[c.r].Nodes[c.i].ID
		if ia != ic {
			return ia < ic
		}
		return a.r < c.r
	})
	s := b.summary
	for _, x := range refs {
		r := b.t.Ranks[x.r]
		n := &r.Nodes[x.i]
		if n.Kind == Metadata || b.folded[x] {
			continue
		}
		op := workloads.Op{
			Name:          fmt.Sprintf("r%d/%d %s", r.Rank, n.ID, clip(n.Name, 48)),
			Type:          opType(n),
			Layer:         fmt.Sprintf("rank%d", r.Rank),
			Colocation:    fmt.Sprintf("rank%d", r.Rank),
			FLOPs:         n.FLOPs,
			BytesAccessed: n.Bytes,
			OutputBytes:   n.OutputBytes,
			ParamBytes:    n.ParamBytes,
			TempBytes:     n.TempBytes,
		}
		zero := map[string]float64{workloads.MeasuredAny: 0}
		switch {
		case n.Kind == Collective && b.multi:
			op.Measured = zero
			s.CollectivesSimulated++
		case (n.Kind == Send || n.Kind == Recv) && b.multi:
			op.Measured = zero
		case n.CPU && b.opts.CPU == CPUDrop:
			// its tensors are its kernels' (they allocate them)
			op.Measured = zero
			op.OutputBytes, op.BytesAccessed, op.TempBytes = 0, 0, 0
		case n.CPU && b.opts.CPU == CPUHost:
			op.CPUOnly = true
			op.Colocation = fmt.Sprintf("rank%d-host", r.Rank)
			if n.HasDuration {
				op.Measured = map[string]float64{workloads.MeasuredCPU: n.Duration}
			} else {
				s.NoDuration++
			}
		default:
			if n.Kind == Collective {
				s.CollectivesMeasured++
			}
			if n.HasDuration {
				op.Measured = map[string]float64{b.gpuKey: n.Duration}
			} else {
				s.NoDuration++
			}
		}
		b.op[x.r][x.i] = b.g.AddOp(op)
		if n.Kind == Collective && b.multi {
			d := op
			d.Name += " #done"
			d.Measured = zero
			d.FLOPs, d.BytesAccessed, d.OutputBytes, d.ParamBytes, d.TempBytes = 0, 0, 0, 0, 0
			b.done[x.r][x.i] = b.g.AddOp(d)
		}
	}
	return nil
}

// opType names a node's op class for statistics and, without a measured
// time, the cost model's kernel class.
func opType(n *Node) string {
	switch n.Kind {
	case Collective:
		return strings.ToLower(strings.ReplaceAll(n.Coll.String(), "_", "-"))
	case Send:
		return "send"
	case Recv:
		return "recv"
	case MemLoad:
		return "mem-load"
	case MemStore:
		return "mem-store"
	}
	l := strings.ToLower(n.Name)
	for _, m := range []struct{ key, typ string }{
		{"conv", "conv2d"}, {"gemm", "matmul"}, {"addmm", "matmul"}, {"aten::mm", "matmul"}, {"bmm", "batch-matmul"},
		{"matmul", "matmul"}, {"linear", "matmul"}, {"batch_norm", "batchnorm"}, {"layer_norm", "layernorm"},
		{"softmax", "softmax"}, {"embedding", "embedding"},
	} {
		if strings.Contains(l, m.key) {
			return m.typ
		}
	}
	if n.CPU {
		return "host-op"
	}
	return "kernel"
}

// sources are the ops (with the bytes they send) a dependency on x means.
func (b *builder) sources(x nodeRef, dst *Node, depBytes int64, hasBytes bool, out []src) []src {
	r := b.t.Ranks[x.r]
	n := &r.Nodes[x.i]
	switch {
	case n.Kind == Metadata:
		return out
	case b.done[x.r][x.i] >= 0:
		return append(out, src{b.done[x.r][x.i], 0})
	case b.folded[x] && n.Kind == Send:
		for _, d := range b.deps(n) {
			out = b.sources(nodeRef{x.r, b.idx[x.r][d]}, n, 0, true, out)
		}
		return out
	case b.folded[x]:
		s := b.fold[x]
		sn := &b.t.Ranks[s.r].Nodes[s.i]
		for _, d := range b.deps(sn) {
			out = b.sources(nodeRef{s.r, b.idx[s.r][d]}, sn, sn.CommSize, true, out)
		}
		for _, d := range b.deps(n) {
			out = b.sources(nodeRef{x.r, b.idx[x.r][d]}, n, 0, true, out)
		}
		return out
	}
	if !hasBytes {
		depBytes = shared(n, dst)
	}
	if n.CPU && b.opts.CPU == CPUDrop {
		depBytes = 0
	}
	return append(out, src{b.op[x.r][x.i], depBytes})
}

// src is one op an edge comes from and its bytes.
type src struct {
	op    int
	bytes int64
}

// shared is the bytes of from's output tensors that to reads.
func shared(from, to *Node) int64 {
	if len(from.outputs) == 0 || len(to.inputs) == 0 {
		return 0
	}
	out := make(map[[2]uint64]bool, len(from.outputs))
	for _, t := range from.outputs {
		out[[2]uint64{t.id, t.storage}] = true
	}
	var in []tensorRef
	for _, t := range to.inputs {
		if out[[2]uint64{t.id, t.storage}] {
			in = append(in, t)
		}
	}
	return tensorBytes(in)
}

// edges adds the dependencies, the collectives' transfers and the
// unfolded sends' transfers.
func (b *builder) edges() error {
	var buf []src
	for ri, r := range b.t.Ranks {
		for i := range r.Nodes {
			to := b.op[ri][i]
			if to < 0 {
				continue
			}
			n := &r.Nodes[i]
			deps := b.deps(n)
			for k, d := range deps {
				bytes, has := int64(0), false
				if len(n.DepBytes) == len(deps) {
					bytes, has = n.DepBytes[k], true
				}
				buf = b.sources(nodeRef{ri, b.idx[ri][d]}, n, bytes, has, buf[:0])
				for _, s := range buf {
					if s.op != to {
						b.g.AddEdge(s.op, to, s.bytes)
					}
				}
			}
			if s, ok := b.pair[nodeRef{ri, i}]; ok {
				b.g.AddEdge(b.op[s.r][s.i], to, b.t.Ranks[s.r].Nodes[s.i].CommSize)
			}
		}
	}
	// a collective between ranks: the direct algorithm's transfers
	seen := map[nodeRef]bool{}
	for ri, r := range b.t.Ranks {
		for i := range r.Nodes {
			refs, ok := b.coll[nodeRef{ri, i}]
			if !ok || seen[refs[0]] {
				continue
			}
			seen[refs[0]] = true
			b.collectiveEdges(refs)
		}
	}
	return nil
}

// collectiveEdges joins a collective's per-rank start ops to its done ops
// with the bytes each rank sends each other under the direct algorithm
// (every rank exchanges with every other at once): all-reduce is a
// reduce-scatter then an all-gather, 2S/n to each peer; reduce-scatter and
// all-to-all S/n; all-gather S (comm_size is the input, a rank's shard:
// Chakra's pytorch_node.py comm_size sums the input tensors); broadcast
// and scatter from the group's first rank, reduce and gather to it.
func (b *builder) collectiveEdges(refs []nodeRef) {
	n := int64(len(refs))
	root := refs[0]
	for _, a := range refs {
		an := &b.t.Ranks[a.r].Nodes[a.i]
		start := b.op[a.r][a.i]
		b.g.AddEdge(start, b.done[a.r][a.i], 0)
		for _, q := range refs {
			if q == a {
				continue
			}
			S := an.CommSize
			var bytes int64
			send := true
			switch an.Coll {
			case etdef.CollectiveCommType_ALL_REDUCE:
				bytes = 2 * (S / n)
			case etdef.CollectiveCommType_REDUCE_SCATTER, etdef.CollectiveCommType_REDUCE_SCATTER_BLOCK, etdef.CollectiveCommType_ALL_TO_ALL:
				bytes = S / n
			case etdef.CollectiveCommType_ALL_GATHER:
				bytes = S
			case etdef.CollectiveCommType_BROADCAST:
				bytes, send = S, a == root
			case etdef.CollectiveCommType_SCATTER:
				bytes, send = S/n, a == root
			case etdef.CollectiveCommType_REDUCE, etdef.CollectiveCommType_GATHER:
				bytes, send = S, q == root
			case etdef.CollectiveCommType_BARRIER:
				bytes = 0
			}
			if send {
				b.g.AddEdge(start, b.done[q.r][q.i], bytes)
			}
		}
	}
}

// longestChain is the longest path through the graph weighted by each
// op's measured time (0 for an op without one).
func (b *builder) longestChain() float64 {
	g := b.g
	order, err := g.TopoOrder()
	if err != nil {
		return 0
	}
	dist := make([]float64, len(g.Ops))
	best := 0.0
	for _, v := range order {
		var w float64
		for _, k := range []string{b.gpuKey, workloads.MeasuredCPU, workloads.MeasuredAny} {
			if t, ok := g.Ops[v].Measured[k]; ok {
				w = t
				break
			}
		}
		var start float64
		for _, e := range g.In(v) {
			if d := dist[g.Edges[e].From]; d > start {
				start = d
			}
		}
		dist[v] = start + w
		if dist[v] > best {
			best = dist[v]
		}
	}
	return best
}
